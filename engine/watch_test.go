package engine

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// Kubernetes updates a mounted ConfigMap atomically: the files sit in a
// timestamped directory, `..data` links to it, and each key is a link
// `KEY -> ..data/KEY`. An update writes a new timestamped directory,
// points a new link at it, renames that link over `..data` and removes
// the old directory; the name the script was loaded by never changes.
func TestWatchSeesAConfigMapUpdate(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "..2026_12_07_10_00_00.1", "pipeline.lua"), "v1")
	symlink := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	symlink("..2026_12_07_10_00_00.1", "..data")
	symlink("..data/pipeline.lua", "pipeline.lua")
	main := filepath.Join(dir, "pipeline.lua")

	probe := filepath.Join(dir, "probe.lua")
	calls := watchCalls(t, func() map[string]script.Digest {
		return map[string]script.Digest{main: script.DigestOf([]byte("v1")), probe: {}}
	})
	// Write the probe until its event arrives: the directory is watched
	// from then on, so what follows is seen by its events.
	deadline := time.Now().Add(10 * time.Second)
	for seen := false; !seen; {
		write(t, probe, "probe")
		select {
		case <-calls:
			seen = true
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no OnChange after writing the probe")
			}
		}
	}
	write(t, filepath.Join(dir, "..2026_12_07_10_01_00.2", "pipeline.lua"), "v2")
	symlink("..2026_12_07_10_01_00.2", "..data_tmp")
	if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "..2026_12_07_10_00_00.1")); err != nil {
		t.Fatal(err)
	}
	waitCall(t, calls, "the ConfigMap update")
	select {
	case <-calls:
		t.Fatal("a second OnChange for one update")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestLinksTo(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "real", "f"), "x")
	for _, l := range [][2]string{{"real", "data"}, {"data/f", "f"}, {filepath.Join(dir, "f"), "abs"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if got := linksTo(filepath.Join(dir, "real", "f")); len(got) != 0 {
		t.Errorf("linksTo(a plain file) = %q", got)
	}
	want := []string{filepath.Join(dir, "abs"), filepath.Join(dir, "f"), filepath.Join(dir, "data")}
	if got := linksTo(filepath.Join(dir, "abs")); !slices.Equal(got, want) {
		t.Errorf("linksTo = %q, want %q", got, want)
	}
	if err := os.Symlink("loop", filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	if got := linksTo(filepath.Join(dir, "loop")); len(got) != maxLinkHops {
		t.Errorf("linksTo(a loop) followed %d links", len(got))
	}
}

// TestChangedSinceLargeFile: a native plugin's executable, tens of
// megabytes, is a watched file; unchanged, it has not changed (a bounded
// read had reported it changed, and every start reloaded once).
func TestChangedSinceLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin")
	content := make([]byte, 20<<20)
	content[len(content)-1] = 1
	if err := os.WriteFile(path, content, 0o755); err != nil {
		t.Fatal(err)
	}
	d := script.DigestOf(content)
	if changedSince(path, d) {
		t.Fatal("an unchanged 20 MiB file is reported changed")
	}
	content[0] = 2
	if err := os.WriteFile(path, content, 0o755); err != nil {
		t.Fatal(err)
	}
	if !changedSince(path, d) {
		t.Fatal("a changed 20 MiB file is reported unchanged")
	}
}
