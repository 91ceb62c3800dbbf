package file

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
)

// build builds a file.read of name with the default arguments and max.
func build(t *testing.T, name string, max int64, onChange func(Exports)) (*Read, error) {
	t.Helper()
	args := Arguments{Filename: name}
	args.SetToDefault()
	if max > 0 {
		args.MaxSize = max
	}
	opts := component.Options{ID: "file.read.t", Logger: slog.New(slog.DiscardHandler)}
	if onChange != nil {
		opts.OnStateChange = func(e component.Exports) { onChange(e.(Exports)) }
	}
	return New(opts, args)
}

// buildWithin builds like build, failing the test if the build takes
// longer than a few seconds (a blocked open or an endless read).
func buildWithin(t *testing.T, name string, max int64) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := build(t, name, max, nil)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("reading %s did not return within 5s", name)
		return nil
	}
}

func TestReadRefusesWhatIsNotARegularFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no devices, FIFOs or Unix sockets to read")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tt := range []struct{ name, want string }{
		{"/dev/zero", `reading "/dev/zero": not a regular file (a character device)`},
		{fifo, `reading "` + fifo + `": not a regular file (a FIFO)`},
		{dir, `reading "` + dir + `": not a regular file (a directory)`},
		{sock, `reading "` + sock + `": not a regular file (a socket)`},
	} {
		err := buildWithin(t, tt.name, 0)
		if err == nil || err.Error() != tt.want {
			t.Errorf("file.read of %s: got error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestReadRefusesAFileOverMaxSize(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, DefaultMaxSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	err := buildWithin(t, big, 0)
	want := `reading "` + big + `": file is 1048577 bytes, over max_size (1048576 bytes)`
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
	// At the limit is accepted.
	if err := buildWithin(t, big, DefaultMaxSize+1); err != nil {
		t.Errorf("a file of max_size bytes: %v", err)
	}
}
func TestArgumentsValidate(t *testing.T) {
	for _, tt := range []struct {
		max  int64
		want string
	}{
		{MaxMaxSize + 1, "max_size: 67108865 is over the maximum of 67108864 bytes (64 MiB)"},
		{0, "max_size: must be positive, got 0"},
		{-1, "max_size: must be positive, got -1"},
	} {
		a := Arguments{Filename: "x"}
		a.SetToDefault()
		a.MaxSize = tt.max
		err := a.Validate()
		if es, ok := err.(decode.Errors); !ok || es.Error() != tt.want {
			t.Errorf("max_size %d: got %v, want %q", tt.max, err, tt.want)
		}
	}
	a := Arguments{Filename: "x"}
	a.SetToDefault()
	a.MaxSize = MaxMaxSize
	if err := a.Validate(); err != nil {
		t.Errorf("max_size at the maximum: %v", err)
	}
}

// TestWatchedFileReplacedByAFIFO replaces a watched file by a FIFO: the
// re-read the change notification triggers refuses it without blocking,
// keeps the last content, and a regular file put back is read again.
func TestWatchedFileReplacedByAFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "value")
	if err := os.WriteFile(name, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	r, err := build(t, name, 0, func(e Exports) {
		mu.Lock()
		got = append(got, e.Content)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = r.Run(ctx); close(ran) }()
	defer func() { cancel(); <-ran }()

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor("unhealthy", func() bool {
		h := r.CurrentHealth()
		return h.Health == component.HealthUnhealthy && strings.Contains(h.Message, "not a regular file (a FIFO)")
	})
	// The watch loop is not stuck on the FIFO: it sees the next change.
	tmp := filepath.Join(dir, "tmp")
	if err := os.WriteFile(tmp, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
	waitFor("the new content", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) > 0 && got[len(got)-1] == "two"
	})
	if h := r.CurrentHealth(); h.Health != component.HealthHealthy {
		t.Errorf("health %v after a good read", h)
	}
	// An Update that lowers max_size under the file's size fails at once.
	args := r.arguments()
	args.MaxSize = 2
	if err := r.Update(args); err == nil || !strings.Contains(err.Error(), "file is 3 bytes, over max_size (2 bytes)") {
		t.Errorf("Update to max_size 2: got %v", err)
	}
}
