// Package file holds the file.* components.
package file

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/flowlua/flowlua/engine/boundedfile"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
)

func init() {
	component.Register(component.Registration{
		Name:    "file.read",
		Doc:     "Exports a file's content (a regular file of at most max_size bytes), re-exported whenever the file changes.",
		Args:    Arguments{},
		Exports: Exports{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			return New(opts, args.(Arguments))
		},
	})
}

// Arguments are file.read's arguments.
type Arguments struct {
	Filename      string        `lua:"filename,required" doc:"path of the file to read"`
	IsSecret      bool          `lua:"is_secret" doc:"hide the content in the API and the UI"`
	PollFrequency time.Duration `lua:"poll_frequency" doc:"how often to re-read the file besides change notifications"`
	MaxSize       int64         `lua:"max_size" doc:"largest file accepted, in bytes (at most 64 MiB); a larger file is an error"`
	TrimSpace     bool          `lua:"trim_space" doc:"export the content without leading and trailing white space (a token file's final newline), as the collector's ${file:...} reads a value"`
}

const (
	// DefaultMaxSize is max_size when the script does not set it.
	DefaultMaxSize = 1 << 20
	// MaxMaxSize is the largest max_size accepted: the content is held in
	// memory, in the exports and in every dependant's arguments.
	MaxMaxSize = 64 << 20
)

// SetToDefault sets the defaults.
func (a *Arguments) SetToDefault() {
	a.PollFrequency = time.Minute
	a.MaxSize = DefaultMaxSize
}

// Validate checks the arguments.
func (a Arguments) Validate() error {
	var errs decode.Errors
	if a.PollFrequency <= 0 {
		errs = append(errs, &decode.Error{Path: "poll_frequency", Message: "must be positive"})
	}
	switch {
	case a.MaxSize <= 0:
		errs = append(errs, &decode.Error{Path: "max_size", Message: fmt.Sprintf("must be positive, got %d", a.MaxSize)})
	case a.MaxSize > MaxMaxSize:
		errs = append(errs, &decode.Error{Path: "max_size", Message: fmt.Sprintf("%d is over the maximum of %d bytes (64 MiB)", a.MaxSize, MaxMaxSize)})
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// Exports are file.read's exports.
type Exports struct {
	Content string `lua:"content" doc:"the file's content"`
}

// Read is the file.read component: it exports a file's content and
// re-exports it whenever the file changes.
type Read struct {
	opts component.Options

	mu        sync.Mutex
	args      Arguments
	content   string
	published bool // content was exported at least once
	health    component.Health

	changed chan struct{} // arguments changed: re-read and re-watch
}

var _ component.HealthComponent = (*Read)(nil)

// New reads the file once, so that the content is exported before
// dependants are evaluated, and returns the component.
func New(opts component.Options, args Arguments) (*Read, error) {
	r := &Read{opts: opts, args: args, changed: make(chan struct{}, 1)}
	if err := r.read(); err != nil {
		return nil, err
	}
	return r, nil
}

// Run watches the file until ctx ends.
func (r *Read) Run(ctx context.Context) error {
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		r.opts.Logger.Warn("file notifications unavailable, polling only", "err", err)
	} else {
		defer watcher.Close()
	}
	watched := ""
	rewatch := func() {
		if watcher == nil {
			return
		}
		// Watch the directory: editors replace files by rename, which a
		// watch on the file itself would lose.
		dir := filepath.Dir(r.arguments().Filename)
		if dir == watched {
			return
		}
		if watched != "" {
			_ = watcher.Remove(watched)
		}
		if err := watcher.Add(dir); err != nil {
			r.opts.Logger.Warn("cannot watch directory, polling only", "dir", dir, "err", err)
			watched = ""
			return
		}
		watched = dir
	}
	rewatch()
	// The file was read before the watch was in place: read it again, so
	// that a change in between is not missed (an unchanged content
	// exports nothing).
	r.reread()

	var events <-chan fsnotify.Event
	var errs <-chan error
	if watcher != nil {
		events, errs = watcher.Events, watcher.Errors
	}
	ticker := time.NewTicker(r.arguments().PollFrequency)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.changed:
			rewatch()
			ticker.Reset(r.arguments().PollFrequency)
			r.reread()
		case ev := <-events:
			if filepath.Clean(ev.Name) == filepath.Clean(r.arguments().Filename) {
				r.reread()
			}
		case err := <-errs:
			r.opts.Logger.Warn("file watch error", "err", err)
		case <-ticker.C:
			r.reread()
		}
	}
}

// Update applies new arguments and re-reads the file.
func (r *Read) Update(args component.Arguments) error {
	a := args.(Arguments)
	r.mu.Lock()
	old := r.args
	r.args = a
	r.mu.Unlock()
	if old.Filename != a.Filename || old.MaxSize != a.MaxSize {
		if err := r.read(); err != nil {
			return err
		}
	}
	select {
	case r.changed <- struct{}{}:
	default:
	}
	return nil
}

// CurrentHealth reports whether the last read succeeded.
func (r *Read) CurrentHealth() component.Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.health
}

// IsSecret tells the API whether to hide the exports.
func (r *Read) IsSecret() bool { return r.arguments().IsSecret }

func (r *Read) arguments() Arguments {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.args
}

// reread reads the file, keeping the last content if it fails.
func (r *Read) reread() {
	if err := r.read(); err != nil {
		r.opts.Logger.Warn("reading file failed, keeping the last content", "err", err)
	}
}

// read reads the file and exports its content if it changed.
func (r *Read) read() error {
	args := r.arguments()
	name := args.Filename
	data, err := boundedfile.Read(name, args.MaxSize, "max_size")
	r.mu.Lock()
	if err != nil {
		err = fmt.Errorf("reading %q: %w", name, err)
		r.health = component.Health{Health: component.HealthUnhealthy, Message: err.Error(), UpdateTime: time.Now()}
		r.mu.Unlock()
		return err
	}
	if r.health.Health != component.HealthHealthy {
		r.health = component.Health{Health: component.HealthHealthy, Message: "read " + name, UpdateTime: time.Now()}
	}
	content := string(data)
	if args.TrimSpace {
		content = strings.TrimSpace(content)
	}
	changed := content != r.content || !r.published
	r.content, r.published = content, true
	r.mu.Unlock()
	if changed && r.opts.OnStateChange != nil {
		r.opts.OnStateChange(Exports{Content: content})
	}
	return nil
}
