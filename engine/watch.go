package engine

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchOptions configure Watch.
type WatchOptions struct {
	Logger *slog.Logger
	// Files returns the files to watch; it is asked again after every
	// change, since a reload can add or drop modules.
	Files func() []string
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

	files := map[string]bool{}
	dirs := map[string]bool{}
	sync := func() {
		files = map[string]bool{}
		want := map[string]bool{}
		for _, f := range opts.Files() {
			abs, err := filepath.Abs(f)
			if err != nil {
				continue
			}
			files[abs] = true
			want[filepath.Dir(abs)] = true
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
	}
	sync()

	timer := time.NewTimer(time.Hour)
	timer.Stop()
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
