package engine

import (
	"context"
	"crypto/sha256"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
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
// sed -i) are seen too. A file reached through symbolic links changes
// when any link on the way to it is replaced: Kubernetes updates a mounted
// ConfigMap by pointing its `..data` link at a new directory, while the
// file's own name (a link into `..data`) stays as it was. So the links on
// the way are watched too.
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

	files := map[string]script.Digest{} // watched files, as loaded
	links := map[string]bool{}          // symbolic links on the way to them
	dirs := map[string]bool{}
	sync := func() {
		loaded := map[string]script.Digest{}
		for f, d := range opts.Files() {
			if abs, err := filepath.Abs(f); err == nil {
				loaded[abs] = d
			}
		}
		want := map[string]bool{}
		dirOf := map[string]string{}
		for f, d := range loaded {
			dirOf[f] = filepath.Dir(f)
			if d == script.Absent {
				// Watch the nearest directory that exists: the file (and
				// the directories up to it) may be created later.
				dirOf[f] = existingAncestor(f)
			}
			want[dirOf[f]] = true
		}
		links = map[string]bool{}
		for f := range loaded {
			for _, l := range linksTo(f) {
				links[l] = true
				want[filepath.Dir(l)] = true
			}
		}
		for d := range dirs {
			if !want[d] {
				_ = w.Remove(d)
				delete(dirs, d)
			}
		}
		added := map[string]bool{}
		for d := range want {
			if dirs[d] {
				continue
			}
			if err := w.Add(d); err != nil {
				opts.Logger.Warn("cannot watch directory", "dir", d, "err", err)
				continue
			}
			dirs[d], added[d] = true, true
		}
		// Compare the files that joined the set, whose loaded content
		// changed or whose directory is watched only now: a change after
		// this raises an event, one before it did not.
		old := files
		files = make(map[string]script.Digest, len(loaded))
		for f, d := range loaded {
			files[f] = d
			prev, ok := old[f]
			if d == (script.Digest{}) || ok && prev == d && !added[dirOf[f]] {
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
			if _, ok := files[abs]; err != nil || !ok && !links[abs] && !leadsToAbsent(abs, files) {
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

// maxLinkHops bounds the symbolic links followed on the way to one file,
// as the kernel bounds them (ELOOP).
const maxLinkHops = 40

// linksTo returns the symbolic links that resolving path goes through: the
// path itself if it is a link, and every link among its directories or
// the links' targets. A path that does not resolve returns the links up
// to where it stops.
func linksTo(path string) []string {
	var links []string
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(path), string(filepath.Separator)), string(filepath.Separator))
	cur := string(filepath.Separator)
	for hops := 0; len(rest) > 0; {
		next := filepath.Join(cur, rest[0])
		rest = rest[1:]
		fi, err := os.Lstat(next)
		if err != nil {
			return links
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return links
		}
		links = append(links, next)
		target, err := os.Readlink(next)
		if err != nil {
			return links
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		// Resolve the target from the root, then what was left of path.
		parts := strings.Split(strings.TrimPrefix(filepath.Clean(target), string(filepath.Separator)), string(filepath.Separator))
		rest = append(parts, rest...)
		cur = string(filepath.Separator)
	}
	return links
}

// existingAncestor returns the nearest directory above file that exists.
func existingAncestor(file string) string {
	dir := filepath.Dir(file)
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// leadsToAbsent reports whether path is a directory above a file of files
// that was looked for and not found.
func leadsToAbsent(path string, files map[string]script.Digest) bool {
	for f, d := range files {
		if d == script.Absent && strings.HasPrefix(f, path+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// changedSince reports whether file no longer holds what digest d was
// taken of (a file that cannot be read has changed). The file is hashed as
// it is read, without a size bound: native plugins' executables are
// watched files too, and are tens of megabytes.
func changedSince(file string, d script.Digest) bool {
	if d == script.Absent {
		_, err := os.Stat(file)
		return err == nil
	}
	f, err := os.Open(file)
	if err != nil {
		return true
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return true
	}
	var now script.Digest
	h.Sum(now[:0])
	return now != d
}
