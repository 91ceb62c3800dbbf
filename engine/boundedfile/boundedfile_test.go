//go:build unix

package boundedfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test if f has not returned within a bound: a FIFO that
// is opened or read blocks until a writer comes, which none does here.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("the read blocked")
		return nil
	}
}

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.lua")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tt := range []struct {
		name string
		read func() error
		want string
	}{
		{"fifo", func() error { _, err := Read(fifo, 100, "the limit"); return err }, "not a regular file (a FIFO)"},
		{"fifo in root", func() error { _, err := ReadIn(root, "pipe.lua", 100, "the limit"); return err }, "not a regular file (a FIFO)"},
		{"device", func() error { _, err := Read("/dev/zero", 100, "the limit"); return err }, "not a regular file (a character device)"},
		{"directory", func() error { _, err := ReadIn(root, ".", 100, "the limit"); return err }, "not a regular file (a directory)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := within(t, tt.read)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRefusesAFileOverTheLimit(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "big.lua")
	if err := os.WriteFile(name, []byte(strings.Repeat("x", 11)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(name, 10, "the limit of a script"); err == nil || err.Error() != "file is 11 bytes, over the limit of a script (10 bytes)" {
		t.Fatalf("got %v", err)
	}
	got, err := Read(name, 11, "the limit of a script")
	if err != nil || string(got) != strings.Repeat("x", 11) {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestReadOfAGrowingFileStopsAtTheLimit(t *testing.T) {
	name := filepath.Join(t.TempDir(), "grows")
	if err := os.WriteFile(name, []byte("small"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(name, []byte(strings.Repeat("x", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAll(f, 10, "max_size"); err == nil || !strings.Contains(err.Error(), "grew over max_size (10 bytes)") {
		t.Errorf("got %v, want a growth error", err)
	}
}
