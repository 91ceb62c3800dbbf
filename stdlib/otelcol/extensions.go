package otelcol

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/component"
)

// runningExtensions is the process-wide registry of the extensions flowlua
// runs, keyed by collector id (type file_storage, name the flowlua label):
// what hosts return from GetExtensions.
var runningExtensions = newExtensionRegistry()

// extensionRegistry tracks extensions from Build (declared, not yet
// running) to Run's end.
type extensionRegistry struct {
	mu      sync.Mutex
	byID    map[component.ID]*extensionEntry
	changed chan struct{} // closed and replaced on every change
}

type extensionEntry struct {
	owner any                 // the adapter that declared it
	ext   component.Component // nil until started
}

func newExtensionRegistry() *extensionRegistry {
	return &extensionRegistry{byID: map[component.ID]*extensionEntry{}, changed: make(chan struct{})}
}

// declare records that owner will run the extension id. A later owner
// takes the id over (a reload may build the new component before the old
// one stops): the old owner's calls are then ignored.
func (r *extensionRegistry) declare(id component.ID, owner any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byID[id]; !ok || e.owner != owner {
		r.byID[id] = &extensionEntry{owner: owner}
		r.notifyLocked()
	}
}

// set makes ext (nil: not running) the extension id of owner.
func (r *extensionRegistry) set(id component.ID, owner any, ext component.Component) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byID[id]; ok && e.owner == owner {
		e.ext = ext
		r.notifyLocked()
	}
}

// remove forgets owner's extension id.
func (r *extensionRegistry) remove(id component.ID, owner any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byID[id]; ok && e.owner == owner {
		delete(r.byID, id)
		r.notifyLocked()
	}
}

func (r *extensionRegistry) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// snapshot returns the running extensions.
func (r *extensionRegistry) snapshot() map[component.ID]component.Component {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[component.ID]component.Component, len(r.byID))
	for id, e := range r.byID {
		if e.ext != nil {
			m[id] = e.ext
		}
	}
	return m
}

// pending returns those of names that name a declared extension not
// running yet.
func (r *extensionRegistry) pending(names []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range names {
		var id component.ID
		if id.UnmarshalText([]byte(n)) != nil {
			continue
		}
		if e, ok := r.byID[id]; ok && e.ext == nil {
			out = append(out, n)
		}
	}
	return out
}

// wait returns once none of names is a declared extension that is not
// running, or when ctx ends. Strings that name no declared extension are
// not waited for (the upstream component reports them at Start).
func (r *extensionRegistry) wait(ctx context.Context, names []string) []string {
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		p := r.pending(names)
		if len(p) == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return p
		}
	}
}

// stringsIn returns every string in a plain value: the candidates for
// extension ids a config names.
func stringsIn(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}
