package otelcol

import (
	"context"
	"sync"

	"go.opentelemetry.io/collector/component"
)

// Extension is what an otelcol.extension.* component exports as `id`: a
// handle on one instance of the upstream extension, with the collector id
// that config keys naming an extension take (sending_queue.storage,
// auth.authenticator). A config references it
// (`storage = otelcol.extension.file_storage.q.id`), which makes the
// extension a dependency in the graph; the adapter writes its id into the
// upstream config and serves exactly the extensions a config referenced
// to the component through its host.
//
// A handle follows one instance: when the extension's instance is
// replaced, the component exports a new handle, so that the components
// referencing it are updated and start against the new one.
type Extension struct {
	id      component.ID
	ready   chan struct{} // closed once the instance started
	mu      sync.Mutex
	running component.Component // the started instance; nil before, and after it stopped
}

func newExtension(id component.ID) *Extension {
	return &Extension{id: id, ready: make(chan struct{})}
}

// ID returns the extension's collector id.
func (e *Extension) ID() component.ID { return e.id }

// String returns the collector id ("file_storage/queue").
func (e *Extension) String() string { return e.id.String() }

// MarshalText writes the collector id, for the API.
func (e *Extension) MarshalText() ([]byte, error) { return []byte(e.id.String()), nil }

// started records that the instance runs.
func (e *Extension) started(c component.Component) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running == nil && c != nil {
		e.running = c
		close(e.ready)
	}
}

// stopped records that the instance no longer runs; the handle stays
// stopped (a new instance gets a new handle).
func (e *Extension) stopped() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.running = nil
}

// component returns the running extension, or nil.
func (e *Extension) component() component.Component {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.running
}

// isReady reports whether the instance has started.
func (e *Extension) isReady() bool {
	select {
	case <-e.ready:
		return true
	default:
		return false
	}
}

// waitExtensions waits until every extension of exts has started; it
// returns false if ctx ended first.
func waitExtensions(ctx context.Context, exts []*Extension) bool {
	for _, e := range exts {
		select {
		case <-e.ready:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// extensionsReady reports whether every extension of exts has started.
func extensionsReady(exts []*Extension) bool {
	for _, e := range exts {
		if !e.isReady() {
			return false
		}
	}
	return true
}
