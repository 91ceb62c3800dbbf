package telemetry

import (
	"context"
	"errors"
	"sync/atomic"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ErrNoConsumer is returned by an Indirect that has no target yet.
var ErrNoConsumer = errors.New("consumer not running yet")

// Indirect is a Consumer that forwards to a target which can be swapped at
// any time. A component exports an Indirect as its `input` once, at Build,
// and points it at whatever currently does the work: upstream components
// keep the same value across rebuilds while the component swaps what is
// behind it.
//
// Set is atomic: a call that already loaded the old target completes on it,
// the next call goes to the new one. Draining the old target (so that
// nothing in flight is lost) is the owner's job: swap first, then stop the
// old target once its in-flight calls have returned.
type Indirect struct {
	p atomic.Pointer[target]
}

type target struct{ c Consumer }

var _ Consumer = (*Indirect)(nil)

// NewIndirect returns an Indirect without a target: until Set is called,
// every call fails with ErrNoConsumer.
func NewIndirect() *Indirect { return &Indirect{} }

// Set makes c the target; nil removes the target. Safe for concurrent use.
func (i *Indirect) Set(c Consumer) {
	if c == nil {
		i.p.Store(nil)
		return
	}
	i.p.Store(&target{c: c})
}

// Get returns the current target, or nil.
func (i *Indirect) Get() Consumer {
	if t := i.p.Load(); t != nil {
		return t.c
	}
	return nil
}

// Capabilities returns the current target's; without a target, the data
// is not mutated (it is rejected).
func (i *Indirect) Capabilities() consumer.Capabilities {
	if t := i.p.Load(); t != nil {
		return t.c.Capabilities()
	}
	return consumer.Capabilities{}
}

// ConsumeTraces forwards td to the current target.
func (i *Indirect) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	t := i.p.Load()
	if t == nil {
		return ErrNoConsumer
	}
	return t.c.ConsumeTraces(ctx, td)
}

// ConsumeMetrics forwards md to the current target.
func (i *Indirect) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	t := i.p.Load()
	if t == nil {
		return ErrNoConsumer
	}
	return t.c.ConsumeMetrics(ctx, md)
}

// ConsumeLogs forwards ld to the current target.
func (i *Indirect) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	t := i.p.Load()
	if t == nil {
		return ErrNoConsumer
	}
	return t.c.ConsumeLogs(ctx, ld)
}
