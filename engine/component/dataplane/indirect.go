package dataplane

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ErrNoConsumer is returned by an Indirect that has no target.
var ErrNoConsumer = errors.New("consumer not running yet")

// StartWait bounds how long a call waits for an Indirect that never had a
// target: components start concurrently, so a receiver may pass data on
// before the component behind it has started.
const StartWait = 5 * time.Second

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
//
// A new Indirect holds calls (up to StartWait, or the caller's context)
// until its first target is set, so that data sent while the pipeline
// starts waits instead of being refused. Once Set(nil) removed the target,
// calls fail at once with ErrNoConsumer.
type Indirect struct {
	p       atomic.Pointer[target]
	started chan struct{} // closed by the first Set
	once    sync.Once
}

type target struct{ c Consumer }

var _ Consumer = (*Indirect)(nil)

// NewIndirect returns an Indirect without a target: until Set is called,
// every call fails with ErrNoConsumer.
func NewIndirect() *Indirect { return &Indirect{started: make(chan struct{})} }

// Set makes c the target; nil removes the target. Safe for concurrent use.
func (i *Indirect) Set(c Consumer) {
	if c == nil {
		i.p.Store(nil)
	} else {
		i.p.Store(&target{c: c})
	}
	i.once.Do(func() { close(i.started) })
}

// current returns the target, waiting for the first one if none was ever
// set.
func (i *Indirect) current(ctx context.Context) (Consumer, error) {
	if t := i.p.Load(); t != nil {
		return t.c, nil
	}
	if i.started == nil {
		return nil, ErrNoConsumer // a zero Indirect
	}
	select {
	case <-i.started:
	default:
		timer := time.NewTimer(StartWait)
		defer timer.Stop()
		select {
		case <-i.started:
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	if t := i.p.Load(); t != nil {
		return t.c, nil
	}
	return nil, ErrNoConsumer
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
	c, err := i.current(ctx)
	if err != nil {
		return err
	}
	return c.ConsumeTraces(ctx, td)
}

// ConsumeMetrics forwards md to the current target.
func (i *Indirect) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	c, err := i.current(ctx)
	if err != nil {
		return err
	}
	return c.ConsumeMetrics(ctx, md)
}

// ConsumeLogs forwards ld to the current target.
func (i *Indirect) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	c, err := i.current(ctx)
	if err != nil {
		return err
	}
	return c.ConsumeLogs(ctx, ld)
}
