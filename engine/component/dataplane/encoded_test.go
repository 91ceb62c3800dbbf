package dataplane

import (
	"bytes"
	"context"
	"testing"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// encodedProbe records whether it was given the batch's encoding, and,
// when it mutates, mutates in place and sends the batch on with the same
// context, as an upstream processor does.
type encodedProbe struct {
	mutates bool
	next    consumer.Traces
	got     []byte
	had     bool
}

func (p *encodedProbe) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: p.mutates}
}

func (p *encodedProbe) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	p.got, p.had = Encoded(ctx, td)
	if p.mutates {
		td.ResourceSpans().At(0).Resource().Attributes().PutStr("changed", "yes")
	}
	if p.next != nil {
		return p.next.ConsumeTraces(ctx, td)
	}
	return nil
}

func (p *encodedProbe) ConsumeMetrics(context.Context, pmetric.Metrics) error { return nil }
func (p *encodedProbe) ConsumeLogs(context.Context, plog.Logs) error          { return nil }

func oneSpan() ptrace.Traces {
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("s")
	return td
}

// TestEncodedReachesDirectConsumersOnly: an encoding attached to a batch
// reaches the read-only consumers of the first fan-out with that batch;
// not a mutator's copy, not the consumers of a later fan-out (which a
// component that may have changed the batch in place reaches), not
// another batch, and not after the call that attached it returned.
func TestEncodedReachesDirectConsumersOnly(t *testing.T) {
	td := oneSpan()
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}

	behind := &encodedProbe{}
	mutator := &encodedProbe{mutates: true, next: NewTraces([]Consumer{behind})}
	reader := &encodedProbe{}
	ctx, done := WithEncoded(context.Background(), td, b)
	if err := NewTraces([]Consumer{mutator, reader}).ConsumeTraces(ctx, td); err != nil {
		t.Fatal(err)
	}
	if !reader.had || !bytes.Equal(reader.got, b) {
		t.Errorf("the read-only consumer of the first fan-out was not given the encoding")
	}
	if mutator.had {
		t.Errorf("the mutator, given a copy, was given the encoding of the original")
	}
	if behind.had {
		t.Errorf("a consumer behind a mutator was given the encoding")
	}

	// A mutator that is the only consumer gets the original and the
	// encoding; what it sends on after changing it does not carry it.
	td2 := oneSpan()
	behind2 := &encodedProbe{}
	sole := &encodedProbe{mutates: true, next: NewTraces([]Consumer{behind2})}
	ctx2, done2 := WithEncoded(context.Background(), td2, b)
	if err := NewTraces([]Consumer{sole}).ConsumeTraces(ctx2, td2); err != nil {
		t.Fatal(err)
	}
	if behind2.had {
		t.Errorf("the consumer behind a sole mutator was given the stale encoding")
	}

	// Another batch in the same context, and the same batch once the
	// call returned, carry nothing.
	other := &encodedProbe{}
	if err := NewTraces([]Consumer{other}).ConsumeTraces(ctx, oneSpan()); err != nil {
		t.Fatal(err)
	}
	if other.had {
		t.Errorf("another batch was given the encoding")
	}
	done()
	done2()
	if _, ok := Encoded(ctx, td); ok {
		t.Errorf("the encoding outlived the call that attached it")
	}
}

// encodedSink takes traces encoded and records what it got.
type encodedSink struct {
	encodedProbe
	bytes [][]byte
	items int
}

func (e *encodedSink) TakesEncoded(s Signal) bool { return s == Traces }

func (e *encodedSink) ConsumeEncoded(_ context.Context, _ Signal, b []byte, items int) error {
	e.bytes = append(e.bytes, b)
	e.items += items
	return nil
}

// TestConsumeEncoded: a batch given encoded reaches consumers that all
// take it so as its bytes, through an Indirect and a fan-out; with one
// consumer that does not, every consumer gets it decoded (and the one
// that takes bytes gets the same bytes through the context).
func TestConsumeEncoded(t *testing.T) {
	td := oneSpan()
	b, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)

	a, c := &encodedSink{}, &encodedSink{}
	ind := NewIndirect()
	ind.Set(&Signals{Traces: NewTraces([]Consumer{a, c})})
	if !TakesEncoded(ind, Traces) || TakesEncoded(ind, Metrics) {
		t.Fatal("the Indirect does not say what its fan-out takes")
	}
	if err := ConsumeEncoded(context.Background(), Entry(ind), Traces, b, 1); err != nil {
		t.Fatal(err)
	}
	if len(a.bytes) != 1 || len(c.bytes) != 1 || a.items != 1 || !bytes.Equal(a.bytes[0], b) {
		t.Fatalf("the consumers got %d and %d encoded batches", len(a.bytes), len(c.bytes))
	}

	plain := &encodedProbe{}
	ind.Set(&Signals{Traces: NewTraces([]Consumer{a, plain})})
	if TakesEncoded(ind, Traces) {
		t.Fatal("a fan-out with a consumer of decoded batches takes encoded ones")
	}
	if err := ConsumeEncoded(context.Background(), ind, Traces, b, 1); err != nil {
		t.Fatal(err)
	}
	if len(a.bytes) != 1 {
		t.Errorf("the consumer of bytes got %d encoded batches, want the first only", len(a.bytes))
	}
	if !a.had || !bytes.Equal(a.got, b) || !plain.had {
		t.Errorf("the consumers, called decoded, were not given the encoding in their context")
	}
}
