package lua

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// sink records what it consumes, of every signal.
type sink struct {
	consumertest.TracesSink
	consumertest.MetricsSink
	consumertest.LogsSink
}

func (s *sink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

// start builds and runs the component name with args and returns its
// input.
func start(t *testing.T, name string, args map[string]any) dataplane.Consumer {
	t.Helper()
	r, ok := component.DefaultRegistry.Get(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	return startReg(t, r, args)
}

// startReg builds and runs the component of r with args until the test
// ends and returns its input.
func startReg(t testing.TB, r component.Registration, args map[string]any) dataplane.Consumer {
	t.Helper()
	name := r.Name
	a, err := r.DecodeArgs(args)
	if err != nil {
		t.Fatalf("arguments: %v", err)
	}
	var input dataplane.Consumer
	c, err := r.Build(component.Options{
		ID:         name + ".test",
		Logger:     slog.New(slog.DiscardHandler),
		Registerer: prometheus.NewRegistry(),
		OnStateChange: func(e component.Exports) {
			input, _ = decode.ExportValues(e)["input"].(dataplane.Consumer)
		},
	}, a)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if h := c.(component.HealthComponent).CurrentHealth(); h.Health != component.HealthHealthy {
			t.Errorf("%s: %s: %s", name, h.Health, h.Message)
		}
	})
	return input
}

func out(s *sink) map[string]any {
	return map[string]any{"traces": []any{s}, "metrics": []any{s}, "logs": []any{s}}
}

// spans returns a batch of one resource (service.name = svc) with a span
// per trace id; span i has the attributes user.email, user.name, env.
func spans(svc string, ids ...pcommon.TraceID) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", svc)
	ss := rs.ScopeSpans().AppendEmpty()
	for i, id := range ids {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(id)
		sp.SetName(fmt.Sprintf("span%d", i))
		sp.Attributes().PutStr("user.email", "a@b.c")
		sp.Attributes().PutStr("user.name", "ann")
		sp.Attributes().PutStr("env", []string{"prod", "dev"}[i%2])
	}
	return td
}

func traceID(i int) pcommon.TraceID {
	return pcommon.TraceID{byte(i >> 8), byte(i), 2, 3, 4, 5, 6, 7, byte(i * 7), byte(i * 13), byte(i * 31), byte(i * 57), 12, 13, 14, 15}
}

func attrs(m pcommon.Map) string {
	var parts []string
	for k, v := range m.All() {
		parts = append(parts, k+"="+v.AsString())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

func TestRedact(t *testing.T) {
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"keys": []any{"user.email"}}, "env=prod,user.email=***,user.name=ann"},
		{map[string]any{"keys": []any{"user.email"}, "mask": "x"}, "env=prod,user.email=x,user.name=ann"},
		{map[string]any{"keys": []any{"user.email", "nope"}, "action": "delete"}, "env=prod,user.name=ann"},
		{map[string]any{"pattern": "^user\\.", "action": "hash"},
			"env=prod,user.email=" + sha("a@b.c") + ",user.name=" + sha("ann")},
		{map[string]any{"rules": []any{
			map[string]any{"keys": []any{"user.email"}, "mask": "redacted"},
			map[string]any{"keys": []any{"user.name"}, "action": "delete"},
			map[string]any{"pattern": "^en", "action": "hash"},
		}}, "env=" + sha("prod") + ",user.email=redacted"},
		{map[string]any{"keys": []any{"user.name"}, "action": "delete", "rules": []any{
			map[string]any{"pattern": "^user\\.", "mask": "x"},
		}}, "env=prod,user.email=x"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			s := &sink{}
			tt.args["output"] = out(s)
			in := start(t, "lua.redact", tt.args)
			td := spans("svc", traceID(1))
			if err := in.ConsumeTraces(context.Background(), td); err != nil {
				t.Fatal(err)
			}
			if got := attrs(td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()); got != tt.want {
				t.Errorf("span attributes %s, want %s", got, tt.want)
			}
			ld := plog.NewLogs()
			rec := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
			rec.Attributes().PutStr("user.email", "a@b.c")
			rec.Attributes().PutStr("user.name", "ann")
			rec.Attributes().PutStr("env", "prod")
			if err := in.ConsumeLogs(context.Background(), ld); err != nil {
				t.Fatal(err)
			}
			if got := attrs(rec.Attributes()); got != tt.want {
				t.Errorf("log attributes %s, want %s", got, tt.want)
			}
			if len(s.AllTraces()) != 1 || len(s.AllLogs()) != 1 {
				t.Error("the batches were not forwarded")
			}
		})
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestRoute(t *testing.T) {
	prod, other, rest := &sink{}, &sink{}, &sink{}
	in := start(t, "lua.route", map[string]any{
		"routes": []any{
			map[string]any{"attr": "env", "equals": "prod", "output": out(prod)},
			map[string]any{"attr": "service.name", "equals": "b", "output": out(other)},
		},
		"default": out(rest),
	})
	// Service a: spans 0, 2 are prod, 1 dev. Service b: span 0 prod, span
	// 1 dev (goes to "other" by its resource).
	td := spans("a", traceID(0), traceID(1), traceID(2))
	spans("b", traceID(3), traceID(4)).ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
	if err := in.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if prod.SpanCount() != 3 || other.SpanCount() != 1 || rest.SpanCount() != 1 {
		t.Errorf("prod %d, other %d, rest %d spans; want 3, 1, 1", prod.SpanCount(), other.SpanCount(), rest.SpanCount())
	}
	if got := rest.AllTraces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Name(); got != "span1" {
		t.Errorf("default got %s", got)
	}

	// A batch that all goes to one route sends nothing to default.
	if err := in.ConsumeTraces(context.Background(), spans("b", traceID(5))); err != nil {
		t.Fatal(err)
	}
	if len(rest.AllTraces()) != 1 {
		t.Error("an empty batch was sent to default")
	}

	// Metrics route by data point attribute.
	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("requests")
	sum := m.SetEmptySum()
	sum.SetIsMonotonic(true)
	for _, env := range []string{"prod", "dev", "prod"} {
		dp := sum.DataPoints().AppendEmpty()
		dp.Attributes().PutStr("env", env)
		dp.SetIntValue(1)
	}
	if err := in.ConsumeMetrics(context.Background(), md); err != nil {
		t.Fatal(err)
	}
	if prod.DataPointCount() != 2 || rest.DataPointCount() != 1 {
		t.Errorf("prod %d, rest %d points; want 2, 1", prod.DataPointCount(), rest.DataPointCount())
	}
	pm := prod.AllMetrics()[0].ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0)
	if pm.Name() != "requests" || !pm.Sum().IsMonotonic() {
		t.Errorf("routed metric %s monotonic=%v", pm.Name(), pm.Sum().IsMonotonic())
	}
}

func TestSample(t *testing.T) {
	const n = 2000
	ids := make([]pcommon.TraceID, n)
	for i := range ids {
		ids[i] = traceID(i)
	}
	decisions := func(percentage, seed float64) map[pcommon.TraceID]bool {
		s := &sink{}
		in := start(t, "lua.sample", map[string]any{"percentage": percentage, "seed": seed, "output": out(s)})
		// The same ids in two batches, and as log records.
		for range 2 {
			if err := in.ConsumeTraces(context.Background(), spans("svc", ids...)); err != nil {
				t.Fatal(err)
			}
		}
		ld := plog.NewLogs()
		recs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
		for _, id := range ids {
			recs.AppendEmpty().SetTraceID(id)
		}
		recs.AppendEmpty() // no trace id: kept
		if err := in.ConsumeLogs(context.Background(), ld); err != nil {
			t.Fatal(err)
		}
		kept := map[pcommon.TraceID]bool{}
		counts := map[pcommon.TraceID]int{}
		if percentage == 0 && len(s.AllTraces()) > 0 {
			t.Fatal("empty batches were forwarded")
		}
		for _, td := range s.AllTraces() {
			for _, sp := range td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().All() {
				kept[sp.TraceID()] = true
				counts[sp.TraceID()]++
			}
		}
		for id, c := range counts {
			if c != 2 {
				t.Fatalf("trace %s kept in %d of 2 batches", id, c)
			}
		}
		logs := 0
		for _, rec := range s.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().All() {
			if rec.TraceID().IsEmpty() {
				continue
			}
			logs++
			if !kept[rec.TraceID()] {
				t.Fatalf("a log record of trace %s was kept, its spans were not", rec.TraceID())
			}
		}
		if logs != len(kept) {
			t.Fatalf("%d log records kept for %d traces", logs, len(kept))
		}
		if s.LogRecordCount() != logs+1 {
			t.Fatal("a log record without a trace id was dropped")
		}
		return kept
	}
	if got := len(decisions(0, 0)); got != 0 {
		t.Errorf("percentage 0 kept %d traces", got)
	}
	if got := len(decisions(100, 0)); got != n {
		t.Errorf("percentage 100 kept %d of %d traces", got, n)
	}
	a, b := decisions(25, 0), decisions(25, 0)
	if len(a) < n*20/100 || len(a) > n*30/100 {
		t.Errorf("percentage 25 kept %d of %d traces", len(a), n)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("two instances with the same seed disagree")
	}
	if c := decisions(25, 7); fmt.Sprint(c) == fmt.Sprint(a) {
		t.Error("another seed keeps the same traces")
	}
}
