package dataplane

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func oneSpanTraces(name string) ptrace.Traces {
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName(name)
	return td
}

// The tap counts the items sent to each consumer, per signal.
func TestTapCountsItemsPerConsumer(t *testing.T) {
	tap := NewTap(nil)
	a, b := &recorder{name: "a"}, &recorder{name: "b"}
	f := FanOut(Output{Traces: []Consumer{a, b}, Logs: []Consumer{b}}.WithTap(tap))
	for range 3 {
		if err := f.ConsumeTraces(context.Background(), benchBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if got := tap.Items(Traces, a); got != 3000 {
		t.Errorf("items to a: got %d, want 3000", got)
	}
	if got := tap.Items(Traces, b); got != 3000 {
		t.Errorf("items to b: got %d, want 3000", got)
	}
	if got := tap.Items(Logs, b); got != 0 {
		t.Errorf("logs to b: got %d, want 0", got)
	}
}

// A viewer gets a read-only copy of sampled batches; the consumer gets
// the original, which it may mutate.
func TestTapViewerGetsCopy(t *testing.T) {
	tap := NewTap(nil)
	sink := &recorder{name: "sink", mutates: true, mutate: true}
	f := FanOut(Output{Traces: []Consumer{sink}}.WithTap(tap))
	v, err := tap.Watch(ViewOptions{Buffer: 4})
	if err != nil {
		t.Fatal(err)
	}
	td := oneSpanTraces("hello")
	if err := f.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	s := <-v.Samples()
	got := s.Data.(ptrace.Traces)
	if s.Signal != Traces || s.Items != 1 || !got.IsReadOnly() {
		t.Fatalf("sample: %+v (read-only %v)", s, got.IsReadOnly())
	}
	if name := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Name(); name != "hello" {
		t.Errorf("sampled span %q", name)
	}
	if _, touched := got.ResourceSpans().At(0).Resource().Attributes().Get("touched_by"); touched {
		t.Error("the viewer's copy saw the consumer's mutation")
	}
	if td.IsReadOnly() {
		t.Error("the original was marked read-only")
	}
}

// The rate cap samples at most one batch per interval and the signal
// filter leaves other signals out.
func TestTapSampling(t *testing.T) {
	tap := NewTap(nil)
	f := FanOut(Output{Traces: []Consumer{&recorder{}}}.WithTap(tap))
	v, _ := tap.Watch(ViewOptions{Interval: time.Hour, Buffer: 10})
	logsOnly, _ := tap.Watch(ViewOptions{Signals: []Signal{Logs}, Buffer: 10})
	for range 5 {
		_ = f.ConsumeTraces(context.Background(), oneSpanTraces("x"))
	}
	if n := len(v.Samples()); n != 1 {
		t.Errorf("samples within one interval: got %d, want 1", n)
	}
	if n := len(logsOnly.Samples()); n != 0 {
		t.Errorf("a logs viewer got %d trace samples", n)
	}
}

// A viewer that does not read never blocks the pipeline: it is dropped
// once its buffer is full, and the data keeps flowing.
func TestTapDropsSlowViewer(t *testing.T) {
	var ended []error
	tap := NewTap(func(_ *Viewer, err error) { ended = append(ended, err) })
	sink := new(consumertest.TracesSink)
	f := OutputTraces(Output{Traces: []Consumer{&Signals{Traces: sink}}}.WithTap(tap))
	v, _ := tap.Watch(ViewOptions{Buffer: 2})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			_ = f.ConsumeTraces(context.Background(), oneSpanTraces("x"))
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pipeline blocked on a viewer that does not read")
	}
	if sink.SpanCount() != 100 {
		t.Errorf("sink got %d spans, want 100", sink.SpanCount())
	}
	<-v.Done()
	if !errors.Is(v.Err(), ErrSlowViewer) || len(ended) != 1 {
		t.Errorf("viewer ended with %v; onEnd saw %v", v.Err(), ended)
	}
	if tap.Watching() != 0 {
		t.Errorf("%d viewers left", tap.Watching())
	}
}

// Closing the tap ends its viewers and refuses new ones.
func TestTapClose(t *testing.T) {
	tap := NewTap(nil)
	v, _ := tap.Watch(ViewOptions{})
	tap.Close()
	<-v.Done()
	if !errors.Is(v.Err(), ErrTapClosed) {
		t.Errorf("err %v", v.Err())
	}
	if _, err := tap.Watch(ViewOptions{}); !errors.Is(err, ErrTapClosed) {
		t.Errorf("watch on a closed tap: %v", err)
	}
	v2 := &Viewer{tap: tap, done: make(chan struct{})}
	v2.Unwatch()
	if !errors.Is(v2.Err(), ErrUnwatched) {
		t.Errorf("unwatch: %v", v2.Err())
	}
}
