package dataplane

import (
	"context"
	"errors"
	"sync/atomic"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The fan-out follows the collector's ownership rules (its fanoutconsumer is
// internal, so this is flowlua's own):
//
//  1. No consumer: batches are dropped.
//  2. One consumer: the batch passes through untouched.
//  3. Several: every consumer whose Capabilities().MutatesData is true is
//     called first, each with its own copy of the batch, except the last
//     mutator when no read-only consumer follows, which gets the original.
//     The read-only consumers are then called in order with the original,
//     marked read-only when more than one of them shares it, so that a
//     consumer lying about its capabilities panics where it mutates.
//
// flowlua departs from the collector in one point. The collector aggregates
// the capabilities of a whole pipeline before its fan-out; flowlua's graph
// has no pipelines, and a read-only batch can reach a component that mutates
// (receiver → two read-only processors → one of them → a mutating processor).
// So a mutating consumer never receives a batch that arrived read-only: it
// gets a copy, even when it is the only or the last consumer.
//
// Capabilities are read on every call rather than once at construction,
// because a consumer behind an Indirect may be swapped for one with other
// capabilities. The fan-out itself does not mutate data.

// NewTraces returns a consumer of traces that sends every batch to each of
// consumers by the rules above. Nil entries are skipped. Errors of the
// consumers are joined; every consumer is called even when one fails.
func NewTraces(consumers []Consumer) consumer.Traces {
	return &tracesFanOut{newFanOut(consumers, nil, Traces)}
}

// NewMetrics is NewTraces for metrics.
func NewMetrics(consumers []Consumer) consumer.Metrics {
	return &metricsFanOut{newFanOut(consumers, nil, Metrics)}
}

// NewLogs is NewTraces for logs.
func NewLogs(consumers []Consumer) consumer.Logs {
	return &logsFanOut{newFanOut(consumers, nil, Logs)}
}

// OutputTraces is NewTraces for o's traces, observed by o's tap if it has
// one (see Tap).
func OutputTraces(o Output) consumer.Traces {
	return &tracesFanOut{newFanOut(o.Traces, o.tap, Traces)}
}

// OutputMetrics is NewMetrics for o's metrics, observed by o's tap.
func OutputMetrics(o Output) consumer.Metrics {
	return &metricsFanOut{newFanOut(o.Metrics, o.tap, Metrics)}
}

// OutputLogs is NewLogs for o's logs, observed by o's tap.
func OutputLogs(o Output) consumer.Logs {
	return &logsFanOut{newFanOut(o.Logs, o.tap, Logs)}
}

// FanOut returns a Consumer that sends each signal to its list in o, by the
// rules of NewTraces, observed by o's tap if it has one. A signal with an
// empty list is dropped.
func FanOut(o Output) Consumer {
	return &Signals{
		Traces:  OutputTraces(o),
		Metrics: OutputMetrics(o),
		Logs:    OutputLogs(o),
	}
}

// fanOut is what the fan-outs of every signal share.
type fanOut struct {
	cs  []Consumer
	tap *Tap // nil: not observed
	// counters count the items sent to each of cs, when tap is set.
	counters []*atomic.Uint64
}

func newFanOut(consumers []Consumer, tap *Tap, s Signal) fanOut {
	f := fanOut{cs: compact(consumers), tap: tap}
	if tap != nil {
		f.counters = make([]*atomic.Uint64, len(f.cs))
		for i, c := range f.cs {
			f.counters[i] = tap.counter(s, c)
		}
	}
	return f
}

type tracesFanOut struct{ fanOut }

func (f *tracesFanOut) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (f *tracesFanOut) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if f.tap != nil {
		observe(&f.fanOut, Traces, td, spanCount, cloneTraces)
	}
	ctx = hop(ctx, td) // encoded.go
	return send(ctx, f.cs, td, cloneTraces, Consumer.ConsumeTraces)
}

type metricsFanOut struct{ fanOut }

func (f *metricsFanOut) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (f *metricsFanOut) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	if f.tap != nil {
		observe(&f.fanOut, Metrics, md, pointCount, cloneMetrics)
	}
	ctx = hop(ctx, md) // encoded.go
	return send(ctx, f.cs, md, cloneMetrics, Consumer.ConsumeMetrics)
}

type logsFanOut struct{ fanOut }

func (f *logsFanOut) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (f *logsFanOut) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	if f.tap != nil {
		observe(&f.fanOut, Logs, ld, recordCount, cloneLogs)
	}
	ctx = hop(ctx, ld) // encoded.go
	return send(ctx, f.cs, ld, cloneLogs, Consumer.ConsumeLogs)
}

// batch is what the fan-out needs of a pdata batch.
type batch interface {
	IsReadOnly() bool
	MarkReadOnly()
}

// observe applies the rules of Tap to data before any consumer gets it.
func observe[T batch](f *fanOut, s Signal, data T, count func(T) int, clone func(T) T) {
	vs := f.tap.viewers.Load()
	if len(f.counters) == 0 && vs == nil {
		return
	}
	n := count(data)
	for _, c := range f.counters {
		c.Add(uint64(n))
	}
	if vs != nil {
		offer(*vs, s, data, n, clone)
	}
}

// send sends data to every consumer in cs by the package's rules.
func send[T batch](ctx context.Context, cs []Consumer, data T, clone func(T) T, consume func(Consumer, context.Context, T) error) error {
	switch len(cs) {
	case 0:
		return nil
	case 1:
		c := cs[0]
		if data.IsReadOnly() && c.Capabilities().MutatesData {
			data = clone(data)
		}
		return consume(c, ctx, data)
	}

	// Read every consumer's capabilities once, so that a consumer swapped
	// mid-call cannot be counted one way and called the other.
	var buf [8]bool
	mutates := buf[:0]
	nMut := 0
	for _, c := range cs {
		m := c.Capabilities().MutatesData
		mutates = append(mutates, m)
		if m {
			nMut++
		}
	}
	nReadOnly := len(cs) - nMut
	shared := data.IsReadOnly()

	var errs []error
	seen := 0
	for i, c := range cs {
		if !mutates[i] {
			continue
		}
		seen++
		d := data
		if seen < nMut || nReadOnly > 0 || shared {
			d = clone(data)
		}
		if err := consume(c, ctx, d); err != nil {
			errs = append(errs, err)
		}
	}
	if nReadOnly > 1 && !shared {
		data.MarkReadOnly()
	}
	for i, c := range cs {
		if mutates[i] {
			continue
		}
		if err := consume(c, ctx, data); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func compact(cs []Consumer) []Consumer {
	out := make([]Consumer, 0, len(cs))
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

func cloneTraces(td ptrace.Traces) ptrace.Traces {
	c := ptrace.NewTraces()
	td.CopyTo(c)
	return c
}

func cloneMetrics(md pmetric.Metrics) pmetric.Metrics {
	c := pmetric.NewMetrics()
	md.CopyTo(c)
	return c
}

func cloneLogs(ld plog.Logs) plog.Logs {
	c := plog.NewLogs()
	ld.CopyTo(c)
	return c
}
