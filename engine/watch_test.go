package engine

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/script"
)

// watchCalls runs Watch over files() and returns a channel that receives
// one value per OnChange.
func watchCalls(t *testing.T, files func() map[string]script.Digest) <-chan struct{} {
	t.Helper()
	calls := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := Watch(ctx, WatchOptions{
			Files:    files,
			OnChange: func() { calls <- struct{}{} },
			Debounce: 10 * time.Millisecond,
		})
		if err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return calls
}

func waitCall(t *testing.T, calls <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-calls:
	case <-time.After(10 * time.Second):
		t.Fatalf("no OnChange after %s", what)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWatchSeesAWriteAndARename(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main.lua")
	write(t, main, "v1")
	calls := watchCalls(t, func() map[string]script.Digest {
		return map[string]script.Digest{main: {}}
	})
	// Watch has no digest to compare with here, so a write is needed;
	// repeat it until the watch is in place.
	deadline := time.Now().Add(10 * time.Second)
	for seen := false; !seen; {
		write(t, main, "v2")
		select {
		case <-calls:
			seen = true
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no OnChange after writing the file")
			}
		}
	}
	write(t, filepath.Join(dir, "next.lua"), "v3")
	if err := os.Rename(filepath.Join(dir, "next.lua"), main); err != nil {
		t.Fatal(err)
	}
	waitCall(t, calls, "renaming over the file")
}

// A file that changed between the load that read it and the moment its
// directory became watched raised no event: Watch must still see it, at
// start and when a reload adds a file in a new directory.
func TestWatchSeesChangesMadeBeforeTheWatch(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main.lua")
	mod := filepath.Join(dir, "lib", "mod.lua")
	write(t, main, "changed after load")
	write(t, mod, "changed after reload")

	// The first load read main.lua before it was edited. The reload that
	// follows reads it as it is now, and a module in a directory not
	// watched yet, which was edited right after.
	asLoaded := []map[string]script.Digest{
		{main: script.DigestOf([]byte("as loaded"))},
		{
			main: script.DigestOf([]byte("changed after load")),
			mod:  script.DigestOf([]byte("module as loaded")),
		},
		{
			main: script.DigestOf([]byte("changed after load")),
			mod:  script.DigestOf([]byte("changed after reload")),
		},
	}
	var mu sync.Mutex
	n := 0
	calls := watchCalls(t, func() map[string]script.Digest {
		mu.Lock()
		defer mu.Unlock()
		set := asLoaded[min(n, len(asLoaded)-1)]
		n++
		return set
	})
	waitCall(t, calls, "a change before Watch started")
	waitCall(t, calls, "a change of a module before its directory was watched")

	// Now everything matches: a real write is needed.
	select {
	case <-calls:
		t.Fatal("OnChange without a change")
	case <-time.After(50 * time.Millisecond):
	}
	write(t, mod, "edited")
	waitCall(t, calls, "writing the module")
}

// A failed load that looked for a module not written yet: writing it,
// directory and all, reloads.
func TestWatchSeesAMissingFileAppear(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main.lua")
	mod := filepath.Join(dir, "lib", "deeper", "later.lua")
	write(t, main, "v1")
	var mu sync.Mutex
	set := map[string]script.Digest{main: script.DigestOf([]byte("v1")), mod: script.Absent}
	calls := watchCalls(t, func() map[string]script.Digest {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(set)
	})
	// Nothing changed and the module is still missing: no reload. (The
	// watcher has surely synced once Files was asked; give it time to
	// misbehave.)
	select {
	case <-calls:
		t.Fatal("OnChange while nothing changed")
	case <-time.After(100 * time.Millisecond):
	}
	if err := os.MkdirAll(filepath.Dir(mod), 0o755); err != nil {
		t.Fatal(err)
	}
	// Creating the directories may reload already (the load still fails:
	// the module is still missing); writing the module must reload.
	waitCall(t, calls, "creating the module's directories")
	// The set stays as the failed load left it: only a reload changes it.
	write(t, mod, "module")
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-calls:
			return
		case <-deadline:
			t.Fatal("no OnChange after writing the missing module")
		}
	}
}
