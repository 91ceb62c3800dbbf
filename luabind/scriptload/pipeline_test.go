package scriptload

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

func write(t *testing.T, archive string) string {
	t.Helper()
	dir := t.TempDir()
	if err := txtar.Write(txtar.Parse([]byte(archive)), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadWithPlugin(t *testing.T) {
	dir := write(t, `
-- main.lua --
plugin "acme" {}
acme.tag "a" {}
-- plugins/acme/plugin.lua --
return { name = "acme", version = "1.0.0", components = { "tag" } }
-- plugins/acme/tag.lua --
return { signals = { "traces" }, on_traces = function(b) return b end }
`)
	base := component.NewRegistry()
	s, reg, err := Load(filepath.Join(dir, "main.lua"), Options{Registry: base})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(), ","); got != "acme.tag" {
		t.Errorf("registry %s, want acme.tag", got)
	}
	if len(base.Names()) != 0 {
		t.Error("Load changed the base registry")
	}
	want := []string{
		filepath.Join(dir, "main.lua"),
		filepath.Join(dir, "plugins/acme/plugin.lua"),
		filepath.Join(dir, "plugins/acme/tag.lua"),
	}
	if !slices.Equal(s.Files, want) {
		t.Errorf("files %q, want %q", s.Files, want)
	}
	for _, f := range want {
		if d, ok := s.Digests[f]; !ok || d == script.Absent {
			t.Errorf("digest of %s: %v, %v", f, d, ok)
		}
	}
}

func TestLoadMergesDiagnostics(t *testing.T) {
	dir := write(t, `
-- main.lua --
plugin "acme" { path = "nowhere" }
file.read "x" { filename = "a" }
file.read "x" { filename = "b" }
`)
	reg := component.NewRegistry()
	if err := reg.Add(component.Registration{Name: "file.read", Args: struct{}{}, Build: func(component.Options, component.Arguments) (component.Component, error) { return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	s, got, err := Load(filepath.Join(dir, "main.lua"), Options{Registry: reg})
	if s == nil {
		t.Fatalf("a script that ran despite mistakes comes back: %v", err)
	}
	if got != nil {
		t.Error("a plugin failed to load: the registry must be nil")
	}
	ds := script.AsDiagnostics(err)
	if len(ds) != 2 || !strings.Contains(ds[0].Message, `plugin "acme"`) || !strings.Contains(ds[1].Message, "x") || ds[0].Pos.Line != 1 || ds[1].Pos.Line != 3 {
		t.Fatalf("diagnostics:\n%v", err)
	}
	absent := filepath.Join(dir, "nowhere", "plugin.lua")
	if s.Digests[absent] != script.Absent {
		t.Errorf("the manifest looked for is not recorded as absent: %v", s.Digests)
	}
}

func TestLoadUnchangedWithoutPlugins(t *testing.T) {
	dir := write(t, "-- main.lua --\nlocal x = 1\n")
	s, reg, err := Load(filepath.Join(dir, "main.lua"), Options{Registry: component.NewRegistry()})
	if err != nil || reg == nil {
		t.Fatal(reg, err)
	}
	if !reflect.DeepEqual(s.Files, []string{filepath.Join(dir, "main.lua")}) {
		t.Errorf("files %q", s.Files)
	}
}
