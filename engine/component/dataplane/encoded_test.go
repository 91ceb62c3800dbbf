package dataplane

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pipeline"
)

// encodedRecorder is a recorder that takes encoded requests while accept
// is set.
type encodedRecorder struct {
	recorder
	mu       sync.Mutex
	accept   bool
	payloads [][]byte
}

func (r *encodedRecorder) AcceptsEncoded(signal pipeline.Signal) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accept && signal == pipeline.SignalTraces
}

func (r *encodedRecorder) ConsumeEncoded(_ context.Context, _ pipeline.Signal, payload []byte, _ int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.payloads = append(r.payloads, payload)
	return nil
}

func encodedSpans(t *testing.T, n int) (ptrace.Traces, []byte) {
	t.Helper()
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for range n {
		ss.Spans().AppendEmpty().SetName("s")
	}
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return td, b
}

// A fan-out of one consumer that takes encoded requests passes them on as
// they are, counts their items on the edge and decodes one for a viewer
// due a sample.
func TestFanOutPassesEncoded(t *testing.T) {
	tap := NewTap(nil)
	r := &encodedRecorder{accept: true}
	f := FanOut(Output{Traces: []Consumer{r}}.WithTap(tap))
	if !AcceptsEncoded(f, pipeline.SignalTraces) || AcceptsEncoded(f, pipeline.SignalLogs) {
		t.Fatal("the fan-out should take encoded traces, and only traces")
	}
	v, err := tap.Watch(ViewOptions{Buffer: 4})
	if err != nil {
		t.Fatal(err)
	}
	td, b := encodedSpans(t, 3)
	if err := f.(EncodedConsumer).ConsumeEncoded(context.Background(), pipeline.SignalTraces, b, 3); err != nil {
		t.Fatal(err)
	}
	if len(r.payloads) != 1 || !bytes.Equal(r.payloads[0], b) || r.traces.SpanCount() != 0 {
		t.Fatalf("the consumer got %d payloads and %d decoded spans, want the payload as it was", len(r.payloads), r.traces.SpanCount())
	}
	if got := tap.Items(Traces, r); got != 3 {
		t.Errorf("edge count %d, want 3", got)
	}
	select {
	case s := <-v.Samples():
		got, ok := s.Data.(ptrace.Traces)
		if !ok || s.Items != 3 || !got.IsReadOnly() {
			t.Fatalf("sample %+v: want 3 read-only decoded spans", s)
		}
		want := ptrace.NewTraces()
		td.CopyTo(want)
		if got.SpanCount() != want.SpanCount() || got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(2).Name() != "s" {
			t.Errorf("the sample differs from what was sent")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no sample")
	}
}

// Whoever does not take encoded requests gets them decoded: a fan-out of
// two consumers, an Indirect whose target stopped accepting.
func TestEncodedDecodedForPdataConsumers(t *testing.T) {
	a, b := &encodedRecorder{accept: true}, &recorder{}
	f := FanOut(Output{Traces: []Consumer{a, b}})
	if AcceptsEncoded(f, pipeline.SignalTraces) {
		t.Fatal("a fan-out of two consumers takes no encoded requests")
	}
	_, payload := encodedSpans(t, 2)
	if err := ForwardEncoded(context.Background(), f, pipeline.SignalTraces, payload, 2); err != nil {
		t.Fatal(err)
	}
	if a.traces.SpanCount() != 2 || b.traces.SpanCount() != 2 || len(a.payloads) != 0 {
		t.Errorf("spans: %d and %d, payloads %d; want both consumers to get 2 decoded spans", a.traces.SpanCount(), b.traces.SpanCount(), len(a.payloads))
	}

	target := &encodedRecorder{accept: true}
	in := NewIndirect()
	in.Set(target)
	if !in.AcceptsEncoded(pipeline.SignalTraces) {
		t.Fatal("the Indirect should take what its target takes")
	}
	target.mu.Lock()
	target.accept = false
	target.mu.Unlock()
	if err := in.ConsumeEncoded(context.Background(), pipeline.SignalTraces, payload, 2); err != nil {
		t.Fatal(err)
	}
	if target.traces.SpanCount() != 2 || len(target.payloads) != 0 {
		t.Errorf("a target that stopped taking encoded requests got %d payloads and %d spans, want 2 decoded spans", len(target.payloads), target.traces.SpanCount())
	}
	if err := ForwardEncoded(context.Background(), target, pipeline.SignalTraces, []byte{0xff}, 1); err == nil {
		t.Error("bytes that do not decode were accepted")
	}
}
