package lua

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"testing/fstest"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/luabind/plugin"
	// otelcol.processor.transform and otelcol.processor.attributes
	_ "github.com/flowlua/flowlua/stdlib/otelcol"
)

// iterate is a plugin whose components redact in a Lua loop over every
// span: redact is the bench plugin of bench/pipelines/plugins/iterate (the
// idiom the docs teach: a numeric for with the span methods of
// batch:by_index), redact_iter the same edit with the generic for over
// batch:spans() and the methods of batch:methods("span").
var iterate = fstest.MapFS{
	"plugin.lua": {Data: []byte(`return { name = "iterate", version = "1.0.0", components = { "redact", "redact_iter" } }`)},
	"redact.lua": {Data: []byte(`
return {
  signals = { "traces" },
  on_traces = function(batch)
    local spans = batch:by_index("span")
    local set_attr, del_attr = spans.set_attr, spans.del_attr
    for i = 1, batch:span_count() do
      set_attr(i, "user.email", "redacted")
      del_attr(i, "net.peer.ip")
    end
    return batch
  end,
}`)},
	"redact_iter.lua": {Data: []byte(`
return {
  signals = { "traces" },
  on_traces = function(batch)
    local m = batch:methods("span")
    local set_attr, del_attr = m.set_attr, m.del_attr
    for span in batch:spans() do
      set_attr(span, "user.email", "redacted")
      del_attr(span, "net.peer.ip")
    end
    return batch
  end,
}`)},
}

// BenchmarkRedactEdit measures the cost per span of one redaction
// (user.email := "redacted", delete net.peer.ip) done by each way flowlua
// offers, on a realistic batch of 500 spans (10 attributes a span, 100
// spans a resource of 10 attributes), as one ConsumeTraces of the
// component into a consumer that drops the batch:
//
//   - ottl: the collector's transform processor (OTTL), hosted by flowlua;
//   - attributes: the collector's attributes processor;
//   - lua-loop: a Lua component iterating every span (no bulk helper),
//     as the docs teach: a numeric for with batch:by_index("span");
//   - lua-loop-iter: the same with the generic for over batch:spans()
//     (the idiom taught before by_index);
//   - lua-redact: the lua.redact component (bulk helpers), one component
//     with a rule per key;
//   - lua-redact-chain: two lua.redact components, one per key;
//   - go: a Go loop over pdata, for reference.
//
// Between iterations the two attributes are put back, outside the timer;
// the benchmark fails if an edit did not happen.
// The end-to-end figures (the whole pipeline against the collector) are
// bench/'s; this isolates the edit, which the pipeline's decoding and
// encoding dilute.
// Run: go test -run '^$' -bench RedactEdit -benchtime 2000x ./stdlib/lua/
func BenchmarkRedactEdit(b *testing.B) {
	template := realisticSpans(500)
	for _, c := range editCases(b) {
		b.Run(c.name, func(b *testing.B) {
			measureEdit(b, template, c.build(b))
		})
	}
}

// editCase is one way to redact: build returns the edit, which redacts
// the batch it is given in place.
type editCase struct {
	name  string
	build func(tb testing.TB) func(ptrace.Traces)
}

// editCases are the ways BenchmarkRedactEdit times, in its order.
func editCases(tb testing.TB) []editCase {
	regs, err := plugin.LoadFS(iterate, "iterate")
	if err != nil {
		tb.Fatal(err)
	}
	loop, loopIter := regs[0], regs[1]
	if loop.Name != "iterate.redact" || loopIter.Name != "iterate.redact_iter" {
		tb.Fatalf("plugin components: %s, %s", loop.Name, loopIter.Name)
	}
	drop := map[string]any{"traces": []any{consumertest.NewNop()}}
	// consume makes the edit of a component: one ConsumeTraces.
	consume := func(tb testing.TB, input dataplane.Consumer) func(ptrace.Traces) {
		return func(td ptrace.Traces) {
			if err := input.ConsumeTraces(context.Background(), td); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return []editCase{
		{"ottl", func(tb testing.TB) func(ptrace.Traces) {
			return consume(tb, startReg(tb, registered(tb, "otelcol.processor.transform"), map[string]any{
				"error_mode": "ignore",
				"trace_statements": []any{map[string]any{"context": "span", "statements": []any{
					`set(attributes["user.email"], "redacted")`,
					`delete_key(attributes, "net.peer.ip")`,
				}}},
				"output": drop,
			}))
		}},
		{"attributes", func(tb testing.TB) func(ptrace.Traces) {
			return consume(tb, startReg(tb, registered(tb, "otelcol.processor.attributes"), map[string]any{
				"actions": []any{
					map[string]any{"key": "user.email", "action": "update", "value": "redacted"},
					map[string]any{"key": "net.peer.ip", "action": "delete"},
				},
				"output": drop,
			}))
		}},
		{"lua-loop", func(tb testing.TB) func(ptrace.Traces) {
			return consume(tb, startReg(tb, loop, map[string]any{"output": drop}))
		}},
		{"lua-loop-iter", func(tb testing.TB) func(ptrace.Traces) {
			return consume(tb, startReg(tb, loopIter, map[string]any{"output": drop}))
		}},
		// one lua.redact component with two rules, as
		// bench/pipelines/redact-bulk.lua: one walk over the batch
		{"lua-redact", func(tb testing.TB) func(ptrace.Traces) {
			return consume(tb, startReg(tb, registered(tb, "lua.redact"), map[string]any{
				"rules": []any{
					map[string]any{"keys": []any{"user.email"}, "action": "mask", "mask": "redacted"},
					map[string]any{"keys": []any{"net.peer.ip"}, "action": "delete"},
				},
				"output": drop,
			}))
		}},
		// two lua.redact components, one per key: two walks
		{"lua-redact-chain", func(tb testing.TB) func(ptrace.Traces) {
			r := registered(tb, "lua.redact")
			ip := startReg(tb, r, map[string]any{"keys": []any{"net.peer.ip"}, "action": "delete", "output": drop})
			return consume(tb, startReg(tb, r, map[string]any{"keys": []any{"user.email"}, "action": "mask", "mask": "redacted",
				"output": map[string]any{"traces": []any{ip}}}))
		}},
		{"go", func(testing.TB) func(ptrace.Traces) {
			return func(td ptrace.Traces) {
				eachSpan(td, func(_ int, sp ptrace.Span) {
					a := sp.Attributes()
					if v, ok := a.Get("user.email"); ok {
						v.SetStr("redacted")
					}
					a.Remove("net.peer.ip")
				})
			}
		}},
	}
}

// TestEditInstructions makes the edit of one way (EDIT_CASE, a name of
// editCases) on the benchmark's batch EDIT_N times (default 200), for a
// count of instructions that the load of a shared machine does not
// disturb, e.g.:
//
//	go test -c -o edit.test ./stdlib/lua/
//	GOGC=off GODEBUG=asyncpreemptoff=1 EDIT_CASE=lua-loop valgrind --tool=callgrind \
//	  '--toggle-collect=*stdlib/lua.editOnce' ./edit.test -test.run TestEditInstructions
//
// Instructions per span are the total over EDIT_N × 500. (asyncpreemptoff:
// callgrind does not survive Go's preemption signals.) Under callgrind a
// batch takes milliseconds, so the Lua cases also count what the
// scheduler runs in between on the same thread (the guard's timer,
// sysmon's preemptions): compare a case with itself, before and after a
// change, and check the spread of a few runs.
func TestEditInstructions(t *testing.T) {
	name := os.Getenv("EDIT_CASE")
	if name == "" {
		t.Skip("EDIT_CASE not set")
	}
	n := 200
	if s := os.Getenv("EDIT_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	template := realisticSpans(500)
	td := ptrace.NewTraces()
	template.CopyTo(td)
	for _, c := range editCases(t) {
		if c.name != name {
			continue
		}
		edit := c.build(t)
		for range n {
			restore(td)
			editOnce(edit, td)
		}
		return
	}
	t.Fatalf("no edit case %q", name)
}

// editOnce is the function the instructions are counted in.
//
//go:noinline
func editOnce(edit func(ptrace.Traces), td ptrace.Traces) { edit(td) }

// measureEdit times edit on template, putting back the two attributes
// every edit changes (outside the timer), so that the garbage collector
// does not bill copies of the batch to the edit.
func measureEdit(b *testing.B, template ptrace.Traces, edit func(ptrace.Traces)) {
	td := ptrace.NewTraces()
	template.CopyTo(td)
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		restore(td)
		b.StartTimer()
		edit(td)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(template.SpanCount()), "ns/span")
	eachSpan(td, func(i int, sp ptrace.Span) {
		a := sp.Attributes()
		if v, ok := a.Get("user.email"); !ok || v.Str() != "redacted" {
			b.Fatalf("span %d: user.email is %q", i, v.Str())
		}
		if _, ok := a.Get("net.peer.ip"); ok {
			b.Fatalf("span %d: net.peer.ip was not deleted", i)
		}
	})
}

// restore puts user.email and net.peer.ip back on every span.
func restore(td ptrace.Traces) {
	eachSpan(td, func(_ int, sp ptrace.Span) {
		sp.Attributes().PutStr("net.peer.ip", "10.0.0.1")
		sp.Attributes().PutStr("user.email", "someone@example.com")
	})
}

// eachSpan calls fn with every span of td and its index in the batch.
func eachSpan(td ptrace.Traces, fn func(int, ptrace.Span)) {
	n := 0
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				fn(n, spans.At(k))
				n++
			}
		}
	}
}

// registered returns the registration of name.
func registered(tb testing.TB, name string) component.Registration {
	r, ok := component.DefaultRegistry.Get(name)
	if !ok {
		tb.Fatalf("%s is not registered", name)
	}
	return r
}

// realisticSpans is n spans shaped like the benchmark's realistic load:
// 10 attributes a span (net.peer.ip and user.email among them), 100 spans
// a resource of 10 attributes.
func realisticSpans(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	var spans ptrace.SpanSlice
	for i := range n {
		if i%100 == 0 {
			rs := td.ResourceSpans().AppendEmpty()
			for k, key := range []string{"service.name", "service.version", "service.namespace", "service.instance.id",
				"host.name", "host.arch", "os.type", "deployment.environment.name", "k8s.namespace.name", "k8s.pod.name"} {
				rs.Resource().Attributes().PutStr(key, fmt.Sprintf("resource-value-%d-%d", i, k))
			}
			spans = rs.ScopeSpans().AppendEmpty().Spans()
		}
		sp := spans.AppendEmpty()
		sp.SetName("GET /api/v1/users/{id}")
		a := sp.Attributes()
		a.PutStr("http.request.method", "GET")
		a.PutStr("http.route", "/api/v1/users/{id}")
		a.PutInt("http.response.status_code", 200)
		a.PutStr("url.path", fmt.Sprintf("/api/v1/users/%d", i))
		a.PutStr("url.scheme", "https")
		a.PutStr("server.address", "checkout.shop.svc.cluster.local")
		a.PutStr("net.peer.ip", fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		a.PutStr("user.email", fmt.Sprintf("user%d@example.com", i))
		a.PutInt("user.id", int64(i))
		a.PutStr("user_agent.original", "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0")
	}
	return td
}
