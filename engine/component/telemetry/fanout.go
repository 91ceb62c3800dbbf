package telemetry

import (
	"context"
	"errors"

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
	return &tracesFanOut{cs: compact(consumers)}
}

// NewMetrics is NewTraces for metrics.
func NewMetrics(consumers []Consumer) consumer.Metrics {
	return &metricsFanOut{cs: compact(consumers)}
}

// NewLogs is NewTraces for logs.
func NewLogs(consumers []Consumer) consumer.Logs {
	return &logsFanOut{cs: compact(consumers)}
}

// FanOut returns a Consumer that sends each signal to its list in o, by the
// rules of NewTraces. A signal with an empty list is dropped.
func FanOut(o Output) Consumer {
	return &Signals{
		Traces:  NewTraces(o.Traces),
		Metrics: NewMetrics(o.Metrics),
		Logs:    NewLogs(o.Logs),
	}
}

type tracesFanOut struct{ cs []Consumer }

func (f *tracesFanOut) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (f *tracesFanOut) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	return fanOut(ctx, f.cs, td, cloneTraces, Consumer.ConsumeTraces)
}

type metricsFanOut struct{ cs []Consumer }

func (f *metricsFanOut) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (f *metricsFanOut) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	return fanOut(ctx, f.cs, md, cloneMetrics, Consumer.ConsumeMetrics)
}

type logsFanOut struct{ cs []Consumer }

func (f *logsFanOut) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (f *logsFanOut) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	return fanOut(ctx, f.cs, ld, cloneLogs, Consumer.ConsumeLogs)
}

// batch is what the fan-out needs of a pdata batch.
type batch interface {
	IsReadOnly() bool
	MarkReadOnly()
}

// fanOut sends data to every consumer in cs by the package's rules.
func fanOut[T batch](ctx context.Context, cs []Consumer, data T, clone func(T) T, consume func(Consumer, context.Context, T) error) error {
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
