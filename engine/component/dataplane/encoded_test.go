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
