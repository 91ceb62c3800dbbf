package luacomponent

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// BenchmarkHostRedact measures a whole ConsumeTraces through a Lua
// component (take a state, wrap the batch, call on_traces under a
// deadline, invalidate, forward) that sets and deletes an attribute on
// each of 500 spans, with the bulk helpers or span by span (empty: the
// host's own cost).
// Run: go test -run '^$' -bench HostRedact -benchmem ./luabind/plugin/
func BenchmarkHostRedact(b *testing.B) {
	for _, bm := range []struct{ name, body string }{
		{"empty", ``},
		{"bulk", `
    batch:set_attr("user.email", "redacted")
    batch:del_attr("net.peer.ip")`},
		{"per_span", `
    local m = batch:methods("span")
    local set_attr, del_attr = m.set_attr, m.del_attr
    for s in batch:spans() do
      set_attr(s, "user.email", "redacted")
      del_attr(s, "net.peer.ip")
    end`},
	} {
		b.Run(bm.name, func(b *testing.B) {
			r := mustLoad(b, `
-- p/plugin.lua --
return { name = "p", version = "1", components = { "r" } }
-- p/r.lua --
return {
  signals = { "traces" },
  on_traces = function(batch)`+bm.body+`
    return batch
  end,
}
`, "p", "r", map[string]any{})
			e := newEnv("p.r.a")
			c := build(b, r, e, map[string]any{"output": map[string]any{"traces": []any{&sink{}}}})
			input := e.lastExports()["input"].(dataplane.Consumer)
			td := benchTraces()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := input.ConsumeTraces(ctx, td); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/500, "ns/span")
			if h := c.CurrentHealth(); h.Message != "running" {
				b.Fatal(h.Message)
			}
		})
	}
}

// benchTraces is 5 resources × 2 scopes × 50 spans with 8 attributes.
func benchTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	for range 5 {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "svc")
		for range 2 {
			ss := rs.ScopeSpans().AppendEmpty()
			for range 50 {
				sp := ss.Spans().AppendEmpty()
				sp.SetName("span")
				for _, k := range []string{"user.email", "net.peer.ip", "http.method", "http.url", "a", "b", "c", "d"} {
					sp.Attributes().PutStr(k, "value")
				}
			}
		}
	}
	return td
}
