package pdatalua_test

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/luabind/pdatalua"
)

// The host side of a Lua component's on_traces callback.
func ExampleNewTraces() {
	L := lua.NewState()
	defer L.Close()
	pdatalua.Open(L)
	if err := L.DoString(`
function on_traces(batch)
  -- in Go, for every span: no Lua loop
  batch:set_attr("user.email", "redacted", { resource_attr = "service.name", equals = "checkout" })
  -- in Lua, with the methods kept in locals
  local m = batch:methods("span")
  local name, drop = m.name, m.drop
  for span in batch:spans() do
    if name(span) == "GET /health" then drop(span) end
  end
end`); err != nil {
		panic(err)
	}

	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	for _, n := range []string{"GET /health", "POST /pay"} {
		s := spans.AppendEmpty()
		s.SetName(n)
		s.Attributes().PutStr("user.email", "someone@example.com")
	}

	b := pdatalua.NewTraces(L, td)
	err := L.CallByParam(lua.P{Fn: L.GetGlobal("on_traces"), NRet: 0, Protect: true}, b.Value())
	b.Invalidate() // applies the drops; the batch is dead for Lua from now on
	if err != nil {
		panic(err)
	}
	s := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	email, _ := s.Attributes().Get("user.email")
	fmt.Println(td.SpanCount(), s.Name(), email.Str())
	// Output: 1 POST /pay redacted
}
