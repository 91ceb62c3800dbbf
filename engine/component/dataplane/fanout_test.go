package dataplane

import (
	"context"
	"errors"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// recorder is a Consumer that records what it receives, in which order, and
// optionally mutates it (declaring so truthfully, or lying).
type recorder struct {
	name    string
	mutates bool // declared
	mutate  bool // actually mutates
	err     error
	order   *[]string
	mu      sync.Mutex

	traces  consumertest.TracesSink
	metrics consumertest.MetricsSink
	logs    consumertest.LogsSink
}

func (r *recorder) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: r.mutates}
}

func (r *recorder) note() {
	if r.order != nil {
		r.mu.Lock()
		*r.order = append(*r.order, r.name)
		r.mu.Unlock()
	}
}

func (r *recorder) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	r.note()
	if r.mutate {
		td.ResourceSpans().At(0).Resource().Attributes().PutStr("touched_by", r.name)
	}
	_ = r.traces.ConsumeTraces(ctx, td)
	return r.err
}

func (r *recorder) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	r.note()
	if r.mutate {
		md.ResourceMetrics().At(0).Resource().Attributes().PutStr("touched_by", r.name)
	}
	_ = r.metrics.ConsumeMetrics(ctx, md)
	return r.err
}

func (r *recorder) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	r.note()
	if r.mutate {
		ld.ResourceLogs().At(0).Resource().Attributes().PutStr("touched_by", r.name)
	}
	_ = r.logs.ConsumeLogs(ctx, ld)
	return r.err
}

func (r *recorder) last() ptrace.Traces {
	all := r.traces.AllTraces()
	return all[len(all)-1]
}

func newTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "svc")
	rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("span")
	return td
}

func TestFanOutOneConsumerPassesThrough(t *testing.T) {
	for _, mutates := range []bool{false, true} {
		r := &recorder{mutates: mutates}
		td := newTraces()
		if err := NewTraces([]Consumer{r}).ConsumeTraces(context.Background(), td); err != nil {
			t.Fatal(err)
		}
		if got := r.last(); got != td {
			t.Errorf("mutates=%v: consumer got a copy, want the batch itself", mutates)
		}
		if td.IsReadOnly() {
			t.Errorf("mutates=%v: a batch given to one consumer was marked read-only", mutates)
		}
	}
}

func TestFanOutSharesReadOnlyBatch(t *testing.T) {
	a, b, c := &recorder{}, &recorder{}, &recorder{}
	td := newTraces()
	if err := NewTraces([]Consumer{a, b, c}).ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	for i, r := range []*recorder{a, b, c} {
		if r.last() != td {
			t.Errorf("consumer %d got a copy; read-only consumers share the batch", i)
		}
	}
	if !td.IsReadOnly() {
		t.Error("a batch shared by three read-only consumers is not marked read-only")
	}
}

func TestFanOutClonesOnlyForMutators(t *testing.T) {
	var order []string
	ro1 := &recorder{name: "ro1", order: &order}
	mut1 := &recorder{name: "mut1", mutates: true, mutate: true, order: &order}
	ro2 := &recorder{name: "ro2", order: &order}
	mut2 := &recorder{name: "mut2", mutates: true, mutate: true, order: &order}
	td := newTraces()
	if err := NewTraces([]Consumer{ro1, mut1, ro2, mut2}).ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if want := []string{"mut1", "mut2", "ro1", "ro2"}; !equal(order, want) {
		t.Errorf("call order %v, want mutators first %v", order, want)
	}
	if mut1.last() == td || mut2.last() == td {
		t.Error("a mutator shared the batch with read-only consumers")
	}
	if ro1.last() != td || ro2.last() != td {
		t.Error("read-only consumers did not get the original batch")
	}
	if !td.IsReadOnly() {
		t.Error("batch shared by two read-only consumers not marked read-only")
	}
	// The read-only consumers see nothing of the mutators' writes.
	if _, ok := td.ResourceSpans().At(0).Resource().Attributes().Get("touched_by"); ok {
		t.Error("a mutator's write reached the read-only consumers' batch")
	}
	for _, m := range []*recorder{mut1, mut2} {
		v, _ := m.last().ResourceSpans().At(0).Resource().Attributes().Get("touched_by")
		if v.Str() != m.name {
			t.Errorf("%s's copy has touched_by=%q", m.name, v.Str())
		}
	}
}

func TestFanOutMutatorNextToReadOnly(t *testing.T) {
	ro := &recorder{name: "ro"}
	mut := &recorder{name: "mut", mutates: true, mutate: true}
	td := newTraces()
	want, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err := NewTraces([]Consumer{ro, mut}).ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	got, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(ro.last())
	if string(got) != string(want) {
		t.Errorf("read-only consumer saw the mutator's change:\n got %s\nwant %s", got, want)
	}
	if td.IsReadOnly() {
		t.Error("batch given to a single read-only consumer was marked read-only")
	}
}

func TestFanOutLastMutatorGetsOriginal(t *testing.T) {
	m1 := &recorder{name: "m1", mutates: true, mutate: true}
	m2 := &recorder{name: "m2", mutates: true, mutate: true}
	td := newTraces()
	if err := NewTraces([]Consumer{m1, m2}).ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if m1.last() == td {
		t.Error("first mutator got the original")
	}
	if m2.last() != td {
		t.Error("last mutator (no read-only consumer) got a copy")
	}
	if td.IsReadOnly() {
		t.Error("batch was marked read-only without read-only consumers")
	}
}

func TestFanOutReadOnlyInputIsClonedForMutator(t *testing.T) {
	td := newTraces()
	td.MarkReadOnly()
	m := &recorder{name: "m", mutates: true, mutate: true}
	if err := NewTraces([]Consumer{m}).ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if m.last() == td || m.last().IsReadOnly() {
		t.Error("a mutator got a read-only batch")
	}
	ro := &recorder{name: "ro"}
	m2 := &recorder{name: "m2", mutates: true, mutate: true}
	if err := NewTraces([]Consumer{m2, m, ro}).ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if m.last() == td || m2.last() == td {
		t.Error("a mutator got a read-only batch")
	}
}

func TestFanOutLyingConsumerPanics(t *testing.T) {
	honest := &recorder{name: "honest"}
	liar := &recorder{name: "liar", mutate: true} // declares read-only
	defer func() {
		if recover() == nil {
			t.Error("mutating a shared read-only batch did not panic")
		}
	}()
	_ = NewTraces([]Consumer{honest, liar}).ConsumeTraces(context.Background(), newTraces())
}

func TestFanOutJoinsErrors(t *testing.T) {
	e1, e2 := errors.New("one"), errors.New("two")
	a := &recorder{err: e1}
	b := &recorder{}
	c := &recorder{err: e2, mutates: true}
	err := NewTraces([]Consumer{a, b, c}).ConsumeTraces(context.Background(), newTraces())
	if !errors.Is(err, e1) || !errors.Is(err, e2) {
		t.Fatalf("err = %v, want both consumer errors", err)
	}
	for i, r := range []*recorder{a, b, c} {
		if r.traces.SpanCount() != 1 {
			t.Errorf("consumer %d was not called after an error", i)
		}
	}
}

func TestFanOutNoConsumerDrops(t *testing.T) {
	if err := NewTraces(nil).ConsumeTraces(context.Background(), newTraces()); err != nil {
		t.Fatal(err)
	}
	if NewTraces([]Consumer{&recorder{mutates: true}}).Capabilities().MutatesData {
		t.Error("a fan-out declares that it mutates data")
	}
}

func TestFanOutAllSignals(t *testing.T) {
	ro1, ro2 := &recorder{}, &recorder{}
	mut := &recorder{name: "m", mutates: true, mutate: true}
	out := FanOut(Output{
		Traces:  []Consumer{ro1, mut},
		Metrics: []Consumer{ro1, ro2, mut},
		Logs:    []Consumer{mut, ro2},
	})
	ctx := context.Background()

	md := pmetric.NewMetrics()
	md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty().SetName("m")
	if err := out.ConsumeMetrics(ctx, md); err != nil {
		t.Fatal(err)
	}
	if !md.IsReadOnly() || ro1.metrics.AllMetrics()[0] != md || mut.metrics.AllMetrics()[0] == md {
		t.Error("metrics fan-out broke the rules")
	}

	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	if err := out.ConsumeLogs(ctx, ld); err != nil {
		t.Fatal(err)
	}
	if ld.IsReadOnly() || ro2.logs.AllLogs()[0] != ld || mut.logs.AllLogs()[0] == ld {
		t.Error("logs fan-out broke the rules")
	}
	if _, ok := ld.ResourceLogs().At(0).Resource().Attributes().Get("touched_by"); ok {
		t.Error("the mutator's write reached the read-only consumer")
	}
	if err := out.ConsumeTraces(ctx, newTraces()); err != nil {
		t.Fatal(err)
	}
	if ro1.traces.SpanCount() != 1 || mut.traces.SpanCount() != 1 {
		t.Error("traces not delivered")
	}
}

// TestFanOutConcurrent is for -race: many goroutines through one fan-out
// with mutators and read-only consumers.
func TestFanOutConcurrent(t *testing.T) {
	cs := []Consumer{
		&recorder{name: "m1", mutates: true, mutate: true},
		&recorder{name: "r1"},
		&recorder{name: "m2", mutates: true, mutate: true},
		&recorder{name: "r2"},
	}
	f := NewTraces(cs)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if err := f.ConsumeTraces(context.Background(), newTraces()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, c := range cs {
		if n := c.(*recorder).traces.SpanCount(); n != 800 {
			t.Errorf("%s got %d spans, want 800", c.(*recorder).name, n)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
