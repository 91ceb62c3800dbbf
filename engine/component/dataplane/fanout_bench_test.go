package dataplane

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// nop is a Consumer that does nothing, declaring the given capability.
type nop struct{ mutates bool }

func (n nop) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: n.mutates}
}
func (nop) ConsumeTraces(context.Context, ptrace.Traces) error    { return nil }
func (nop) ConsumeMetrics(context.Context, pmetric.Metrics) error { return nil }
func (nop) ConsumeLogs(context.Context, plog.Logs) error          { return nil }

// benchBatch is 10 resources × 100 spans with a few attributes each.
func benchBatch() ptrace.Traces {
	td := ptrace.NewTraces()
	for r := range 10 {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutInt("r", int64(r))
		ss := rs.ScopeSpans().AppendEmpty()
		for s := range 100 {
			sp := ss.Spans().AppendEmpty()
			sp.SetName("span")
			sp.Attributes().PutInt("i", int64(s))
			sp.Attributes().PutStr("http.method", "GET")
		}
	}
	return td
}

func benchFanOut(b *testing.B, cs ...Consumer) {
	f := NewTraces(cs)
	td := benchBatch()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := f.ConsumeTraces(ctx, td); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFanOut1(b *testing.B) { benchFanOut(b, nop{}) }

func BenchmarkFanOut3ReadOnly(b *testing.B) { benchFanOut(b, nop{}, nop{}, nop{}) }

// BenchmarkFanOut3OneMutator pays for one copy of a 1000-span batch.
func BenchmarkFanOut3OneMutator(b *testing.B) { benchFanOut(b, nop{mutates: true}, nop{}, nop{}) }

// BenchmarkFanOut3ThroughIndirect is three read-only consumers each behind
// an Indirect, as components' inputs are.
func BenchmarkFanOut3ThroughIndirect(b *testing.B) {
	var cs []Consumer
	for range 3 {
		in := NewIndirect()
		in.Set(nop{})
		cs = append(cs, in)
	}
	benchFanOut(b, cs...)
}

// The cost of live debugging while nobody watches: the same fan-out to
// one consumer without a tap, with a tap and no viewer (the per-consumer
// item counter and one atomic load), and with one viewer sampling at its
// default rate (10 batches a second: almost every batch is not sampled).

func benchOutput(b *testing.B, o Output) {
	f := OutputTraces(o)
	td := benchBatch()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := f.ConsumeTraces(ctx, td); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTapNone(b *testing.B) { benchOutput(b, Output{Traces: []Consumer{nop{}}}) }

func BenchmarkTapNoViewer(b *testing.B) {
	benchOutput(b, Output{Traces: []Consumer{nop{}}}.WithTap(NewTap(nil)))
}

func BenchmarkTapOneViewer(b *testing.B) {
	tap := NewTap(nil)
	v, _ := tap.Watch(ViewOptions{Interval: 100 * time.Millisecond, Buffer: 1 << 20})
	done := make(chan struct{})
	go func() { // a viewer that keeps up
		for {
			select {
			case <-v.Samples():
			case <-done:
				return
			}
		}
	}()
	defer close(done)
	benchOutput(b, Output{Traces: []Consumer{nop{}}}.WithTap(tap))
}

// BenchmarkTapEveryBatch samples every batch: the copy it costs.
func BenchmarkTapEveryBatch(b *testing.B) {
	tap := NewTap(nil)
	v, _ := tap.Watch(ViewOptions{Buffer: 1 << 20})
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-v.Samples():
			case <-done:
				return
			}
		}
	}()
	defer close(done)
	benchOutput(b, Output{Traces: []Consumer{nop{}}}.WithTap(tap))
}
