package pdatalua

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func TestReadOnlyRefusesWrites(t *testing.T) {
	writes := []string{
		`batch:span(1):set_name("x")`,
		`batch:span(1):set_kind("client")`,
		`batch:span(1):set_status("ok")`,
		`batch:span(1):set_trace_id("")`,
		`batch:span(1):set_start_time("1")`,
		`batch:span(1):set_attr("a", 1)`,
		`batch:span(1):del_attr("user.email")`,
		`batch:span(1):drop()`,
		`batch:resource(1):set_attr("a", 1)`,
		`batch:resource(1):drop()`,
		`batch:resource(1):scope(1):set_attr("a", 1)`,
		`batch:resource(1):scope(1):drop()`,
		`batch:set_attr("a", 1)`,
		`batch:del_attr("user.email")`,
		`batch:hash_attr("user.email")`,
		`batch:mask_attr("user.email", "x")`,
		`batch:drop({ name = "span-0" })`,
		`batch:remove_empty()`,
	}
	for _, w := range writes {
		t.Run(w, func(t *testing.T) {
			td := genTraces(1, 1, 2)
			want := ptrace.NewTraces()
			td.CopyTo(want)
			td.MarkReadOnly()
			err := runTraces(t, `function on_traces(batch)
  eq(batch:read_only(), true)
  eq(batch:span(1):attr("user.email"), "someone@example.com") -- reads work
  `+w+`
end`, td)
			wantErr(t, err, "batch is read-only: declare the component as mutating")
			if !equalTraces(td, want) {
				t.Error("a read-only batch changed")
			}
		})
	}
	md := genMetrics()
	md.MarkReadOnly()
	wantErr(t, runMetrics(t, `function on_metrics(batch) batch:point(1):set_value(3) end`, md), "batch is read-only")
	wantErr(t, runMetrics(t, `function on_metrics(batch) batch:metric(1):set_name("x") end`, md), "batch is read-only")
	ld := genLogs(2)
	ld.MarkReadOnly()
	wantErr(t, runLogs(t, `function on_logs(batch) batch:record(1):set_body("x") end`, ld), "batch is read-only")
	wantErr(t, runLogs(t, `function on_logs(batch) batch:record(2):drop() end`, ld), "batch is read-only")
}

func equalTraces(a, b ptrace.Traces) bool {
	ma, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(a)
	mb, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(b)
	return string(ma) == string(mb)
}

func TestUseAfterCallback(t *testing.T) {
	const src = `
local kept = {}
function on_traces(batch)
  kept.batch = batch
  kept.span = batch:span(1)
  kept.resource = batch:resource(1)
  kept.scope = kept.resource:scope(1)
  kept.iter = batch:spans()
  for a, b in batch:span(1):attrs() do kept.attrs = batch:span(1):attrs() break end
  kept.name = batch:span(1):name()
end
function use(what)
  if what == "batch" then return kept.batch:span_count() end
  if what == "span" then return kept.span:name() end
  if what == "resource" then return kept.resource:attr("x") end
  if what == "scope" then return kept.scope:name() end
  if what == "iter" then return kept.iter(kept.batch) end
  if what == "attrs" then return kept.attrs() end
  if what == "bulk" then return kept.batch:set_attr("a", 1) end
end`
	L := newState(t, src)
	td := genTraces(1, 1, 2)
	b := NewTraces(L, td)
	mustRun(t, call(L, "on_traces", b.Value()))
	b.Invalidate()
	for _, what := range []string{"batch", "span", "resource", "scope", "attrs", "bulk"} {
		wantErr(t, call(L, "use", lua.LString(what)), "batch used after its callback returned")
	}
	if _, ok := UnwrapTraces(b.Value()); ok {
		t.Error("unwrapped an invalidated batch")
	}

	// Reusing the Batch: what the script kept from the first callback stays
	// dead while the second runs.
	td2 := genTraces(1, 1, 3)
	b.ResetTraces(td2)
	L.SetGlobal("current", b.Value())
	for _, what := range []string{"batch", "span", "resource", "scope", "bulk"} {
		wantErr(t, call(L, "use", lua.LString(what)), "batch used after its callback returned")
	}
	mustRun(t, call(L, "on_traces", b.Value()))
	if b.Value() != L.GetGlobal("current") {
		t.Error("Value changed within a callback")
	}
	b.Invalidate()
	b.Invalidate() // idempotent
}

func TestUnwrap(t *testing.T) {
	L := newState(t, `
function on_traces(batch)
  keep = batch:span(1)
  batch:span(2):drop()
  return batch
end
function after() return keep:name() end`)
	td := genTraces(1, 1, 3)
	b := NewTraces(L, td)
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("on_traces"), NRet: 1, Protect: true}, b.Value()); err != nil {
		t.Fatal(err)
	}
	ret := L.Get(-1)
	L.Pop(1)
	got, ok := UnwrapTraces(ret)
	if !ok {
		t.Fatal("UnwrapTraces of the returned batch failed")
	}
	if got.SpanCount() != 2 || td.SpanCount() != 2 {
		t.Errorf("drops not applied on unwrap: %d spans", got.SpanCount())
	}
	// the same batch, by reference
	got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SetName("via unwrap")
	if td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Name() != "via unwrap" {
		t.Error("Unwrap returned a copy")
	}
	// handles die when the drops are applied, with their own message
	wantErr(t, call(L, "after"), "handle used after the batch was restructured")
	if _, ok := UnwrapMetrics(ret); ok {
		t.Error("unwrapped traces as metrics")
	}
	if _, ok := UnwrapLogs(ret); ok {
		t.Error("unwrapped traces as logs")
	}
	for _, v := range []lua.LValue{lua.LNil, lua.LString("x"), &lua.LUserData{Value: 1}, L.NewTable()} {
		if _, ok := UnwrapTraces(v); ok {
			t.Errorf("unwrapped %v", v)
		}
	}
	b.Invalidate()
	if _, ok := UnwrapTraces(ret); ok {
		t.Error("unwrapped after Invalidate")
	}

	mb := NewMetrics(L, genMetrics())
	if md, ok := UnwrapMetrics(mb.Value()); !ok || md.MetricCount() != 3 {
		t.Error("UnwrapMetrics")
	}
	mb.Invalidate()
	lb := NewLogs(L, genLogs(2))
	if ld, ok := UnwrapLogs(lb.Value()); !ok || ld.LogRecordCount() != 2 {
		t.Error("UnwrapLogs")
	}
	lb.ResetMetrics(pmetric.NewMetrics())
	if _, ok := UnwrapLogs(lb.Value()); ok {
		t.Error("a reset Batch still unwraps as logs")
	}
	lb.ResetLogs(plog.NewLogs())
	lb.Invalidate()
}

func TestOpenTwice(t *testing.T) {
	L := newState(t, "")
	bd := open(L)
	Open(L)
	if open(L) != bd {
		t.Error("Open rebuilt the bindings")
	}
}
