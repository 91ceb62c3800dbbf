package opamp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestStoreInstanceUIDPersists(t *testing.T) {
	s := newStore(t.TempDir())
	a, err := s.instanceUID()
	if err != nil {
		t.Fatal(err)
	}
	if a.Version() != 7 {
		t.Errorf("version %d, want a UUIDv7", a.Version())
	}
	b, err := s.instanceUID()
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("uid changed across loads: %s, then %s", a, b)
	}
}

func TestStoreStageCommit(t *testing.T) {
	root := t.TempDir()
	s := newStore(root)
	if _, _, ok, err := Applied(root); ok || err != nil {
		t.Fatalf("Applied before any commit = %v, %v", ok, err)
	}
	first, err := s.stage(map[string][]byte{"pipeline.lua": []byte("v1"), "lib/gw.lua": []byte("m")})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(first, "lib", "gw.lua")); err != nil || string(b) != "m" {
		t.Fatalf("staged module = %q, %v", b, err)
	}
	if err := s.commit(first, "pipeline.lua", []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	second, err := s.stage(map[string][]byte{"pipeline.lua": []byte("v2")})
	if err != nil {
		t.Fatal(err)
	}
	// Not committed yet: a restart still starts from the first.
	main, hash, ok, err := Applied(root)
	if err != nil || !ok || main != filepath.Join(first, "pipeline.lua") || !bytes.Equal(hash, []byte{1, 2}) {
		t.Fatalf("Applied = %q, %x, %v, %v; want the first config", main, hash, ok, err)
	}
	if err := s.commit(second, "pipeline.lua", []byte{3}); err != nil {
		t.Fatal(err)
	}
	main, hash, ok, err = Applied(root)
	if err != nil || !ok || main != filepath.Join(second, "pipeline.lua") || !bytes.Equal(hash, []byte{3}) {
		t.Fatalf("Applied = %q, %x, %v, %v; want the second config", main, hash, ok, err)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Errorf("the replaced config's directory is still there: %v", err)
	}
	entries, _ := os.ReadDir(s.configsDir())
	if len(entries) != 1 {
		t.Errorf("configs/ holds %d entries, want 1", len(entries))
	}
}

func TestAppliedRefusesEscapes(t *testing.T) {
	root := t.TempDir()
	s := newStore(root)
	if err := writeAtomic(filepath.Join(s.root, "applied.json"), []byte(`{"dir":"../..","main":"x.lua","hash":""}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := Applied(root); err == nil {
		t.Fatal("an applied.json pointing outside the configs was accepted")
	}
}
