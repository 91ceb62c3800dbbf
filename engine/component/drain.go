package component

import (
	"context"
	"time"
)

// Why items are dropped, the reason label of
// flowlua_component_dropped_items_total. Every item a component drops is
// counted under one of them (Options.CountDropped): nothing is dropped
// silently.
const (
	// DropDrainTimeout: still queued or being retried when the drain
	// bound of a replaced or stopped component passed.
	DropDrainTimeout = "drain_timeout"
	// DropExportFailed: an exporter gave up on items it had queued
	// (retries exhausted, or an error that retrying cannot fix).
	DropExportFailed = "export_failed"
	// DropUnsupportedSignal: sent to a component that does not take the
	// signal (or has no output for it).
	DropUnsupportedSignal = "unsupported_signal"
	// DropOnError: a batch whose callback failed, dropped because the
	// component says on_error = "drop".
	DropOnError = "on_error"
)

type drainKey struct{}

// WithDrainDeadline returns a context for a component's Run that carries
// the drain bound: deadline is called, once the context has ended, to
// learn by when the component must have drained (see DrainDeadline).
func WithDrainDeadline(ctx context.Context, deadline func() time.Time) context.Context {
	return context.WithValue(ctx, drainKey{}, deadline)
}

// DrainDeadline returns by when a component whose Run context has ended
// must have handed on or drained what it holds; after it, what is left is
// dropped (and counted). ok is false when the context carries no bound
// (the component then uses Options.DrainTimeout from the moment it
// stops).
func DrainDeadline(ctx context.Context) (deadline time.Time, ok bool) {
	f, _ := ctx.Value(drainKey{}).(func() time.Time)
	if f == nil {
		return time.Time{}, false
	}
	d := f()
	return d, !d.IsZero()
}
