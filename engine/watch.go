package engine

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/flowlua/flowlua/engine/script"
)

// WatchOptions configure Watch.
type WatchOptions struct {
	Logger *slog.Logger
	// Files returns the files to watch, each with the digest of the
	// content the running pipeline was loaded from (the zero Digest when
	// unknown). It is asked again after every OnChange, since a reload
	// can add or drop files.
	Files func() map[string]script.Digest
	// OnChange is called once per burst of changes.
	OnChange func()
	// Debounce is how long a burst lasts: OnChange runs once no event has
	// arrived for that long. Default 150ms.
	Debounce time.Duration
}

// Watch calls OnChange whenever one of the files changes, until ctx ends.
// It watches the files' directories rather than the files, so that editors
// that save by writing a new file and renaming it over the old one (vim,
// sed -i) are seen too.
//
// A file starts being watched only after the load that read it, so a
// change made in between would raise no event: when a file joins the
// watched set, its content is compared with the digest it was loaded
// with, and a difference counts as a change.
func Watch(ctx context.Context, opts WatchOptions) error {
	if opts.Debounce <= 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()

	timer := time.NewTimer(time.Hour)
	timer.Stop()

	files := map[string]bool{}
	dirs := map[string]bool{}
	sync := func() {
		loaded := map[string]script.Digest{}
		for f, d := range opts.Files() {
			abs, err := filepath.Abs(f)
			if err != nil {
				continue
			}
			if d != (script.Digest{}) || !hasDigest(loaded, abs) {
				loaded[abs] = d
			}
		}
		want := map[string]bool{}
		for f := range loaded {
			want[filepath.Dir(f)] = true
		}
		for d := range dirs {
			if !want[d] {
				_ = w.Remove(d)
				delete(dirs, d)
			}
		}
		for d := range want {
			if dirs[d] {
				continue
			}
			if err := w.Add(d); err != nil {
				opts.Logger.Warn("cannot watch directory", "dir", d, "err", err)
				continue
			}
			dirs[d] = true
		}
		// Compare the files that joined the set now that their
		// directories are watched: a change after this raises an event.
		old := files
		files = make(map[string]bool, len(loaded))
		for f, d := range loaded {
			files[f] = true
			if old[f] || d == (script.Digest{}) {
				continue
			}
			if changedSince(f, d) {
				opts.Logger.Debug("watched file changed before it was watched", "file", f)
				timer.Reset(opts.Debounce)
			}
		}
	}
	sync()

	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			abs, err := filepath.Abs(ev.Name)
			if err != nil || !files[abs] {
				continue
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			opts.Logger.Debug("watched file changed", "file", ev.Name, "op", ev.Op.String())
			timer.Reset(opts.Debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			opts.Logger.Warn("file watcher error", "err", err)
		case <-timer.C:
			opts.OnChange()
			sync()
		}
	}
}

func hasDigest(m map[string]script.Digest, f string) bool {
	d, ok := m[f]
	return ok && d != (script.Digest{})
}

// changedSince reports whether file no longer holds what digest d was
// taken of (a file that cannot be read has changed).
func changedSince(file string, d script.Digest) bool {
	b, err := os.ReadFile(file)
	return err != nil || script.DigestOf(b) != d
}
