package pdatalua

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestByIndexSpans(t *testing.T) {
	td := genTraces(2, 2, 3) // 12 spans
	mustRun(t, runTraces(t, `
function on_traces(batch)
  local spans = batch:by_index("span")
  local set_attr, del_attr, attr, name = spans.set_attr, spans.del_attr, spans.attr, spans.name
  eq(batch:span_count(), 12)
  for i = 1, batch:span_count() do
    set_attr(i, "user.email", "redacted")
    eq(del_attr(i, "net.peer.ip"), true)
    eq(del_attr(i, "net.peer.ip"), false)
    set_attr(i, "i", i)
  end
  -- any order: backwards, jumps, the same index again
  eq(attr(12, "i"), 12)
  eq(attr(3, "i"), 3)
  eq(attr(3, "user.email"), "redacted")
  eq(name(7), "span-0")
  eq(spans.has_attr(8, "i"), true)
  eq(spans.attr_count(1), 8)
  -- methods besides the attributes', and handles they return
  spans.set_name(2, "renamed")
  eq(spans.name(2), "renamed")
  eq(spans.scope(4):name(), "lib-b")
  eq(spans.resource(7):attr("service.name"), "svc-b")
  spans.drop(1)
  eq(spans.dropped(1), true)
  eq(spans.dropped(2), false)
  -- the table is the same for the whole state
  eq(batch:by_index("span"), spans)
  -- the span handles of index access and iterators do not move
  local s = batch:span(5)
  name(9)
  eq(s:name(), "span-1")
end`, td))
	if td.SpanCount() != 11 {
		t.Fatalf("%d spans, want 11 (one dropped)", td.SpanCount())
	}
	for i := range 11 {
		if v, _ := attrOf(td, i, "user.email"); v != "redacted" {
			t.Errorf("span %d: user.email %q", i, v)
		}
		if _, ok := attrOf(td, i, "net.peer.ip"); ok {
			t.Errorf("span %d: net.peer.ip kept", i)
		}
		if v, _ := attrOf(td, i, "i"); v != itoa(i+2) {
			t.Errorf("span %d: i = %q", i, v)
		}
	}
}

func TestByIndexLogsAndMetrics(t *testing.T) {
	mustRun(t, runLogs(t, `
function on_logs(batch)
  local records = batch:by_index("record")
  for i = 1, batch:record_count() do
    records.set_attr(i, "n", i)
  end
  eq(records.attr(3, "n"), 3)
  eq(records.severity_number(2), 5)
  eq(records.body(1), "request 0 timeout")
end`, genLogs(4)))
	mustRun(t, runMetrics(t, `
function on_metrics(batch)
  local points, metrics = batch:by_index("point"), batch:by_index("metric")
  eq(metrics.name(2), "latency")
  eq(metrics.point_count(1), 3)
  eq(points.value(4), 0.5)
  points.set_attr(6, "k", "v")
  eq(points.attr(6, "k"), "v")
  eq(points.attr(1, "route"), "/0")
  eq(points.metric(5):name(), "latency")
end`, genMetrics()))
}

func TestByIndexErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`batch:by_index("record")`, `leaf type of a traces batch expected (span), got "record"`},
		{`batch:by_index("resource")`, `leaf type of a traces batch expected (span)`},
		{`batch:by_index("span").name(13)`, "span index 13 out of range (the batch has 12)"},
		{`batch:by_index("span").name(0)`, "span index 0 out of range"},
		{`batch:by_index("span").name("1")`, "span index expected, got string"},
		{`batch:by_index("span").set_attr(1, {}, "x")`, "string expected"},
	} {
		err := runTraces(t, "function on_traces(batch) "+c.src+" end", genTraces(2, 2, 3))
		wantErr(t, err, c.want)
	}
	// read-only batches refuse writes through index too
	td := genTraces(1, 1, 2)
	td.MarkReadOnly()
	wantErr(t, runTraces(t, `function on_traces(batch) batch:by_index("span").set_attr(1, "k", "v") end`, td), errReadOnly)
	wantErr(t, runTraces(t, `function on_traces(batch) batch:by_index("span").del_attr(1, "user.email") end`, td), errReadOnly)
	wantErr(t, runTraces(t, `function on_traces(batch) batch:by_index("span").set_name(1, "x") end`, td), errReadOnly)
}

// TestByIndexAfterCallback checks that a by_index table kept past its
// callback is dead, and serves the next callback once it asks again.
func TestByIndexAfterCallback(t *testing.T) {
	L := newState(t, `
function keep(batch) kept = batch:by_index("span") end
function use(batch) return kept.name(1) end
function again(batch) local s = batch:by_index("span"); return kept.name(2) end`)
	td := genTraces(1, 1, 3)
	b := NewTraces(L, td)
	mustRun(t, call(L, "keep", b.Value()))
	b.Invalidate()
	wantErr(t, call(L, "use", b.Value()), errUsedAfter)
	b.ResetTraces(td)
	wantErr(t, call(L, "use", b.Value()), errUsedAfter)
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("again"), NRet: 1, Protect: true}, b.Value()); err != nil {
		t.Fatal(err)
	}
	if got := L.Get(-1); got.String() != "span-1" {
		t.Errorf("again: %v", got)
	}
	L.Pop(1)
	b.Invalidate()
	// a restructured batch (drops applied) moves the index handle anew
	td = genTraces(1, 1, 3)
	b.ResetTraces(td)
	L.SetGlobal("b", b.Value())
	L.SetGlobal("flush", L.NewFunction(func(L *lua.LState) int {
		UnwrapTraces(L.Get(1)) // applies the drops
		return 0
	}))
	mustRun(t, L.DoString(`
local spans = b:by_index("span")
eq(spans.name(2), "span-1")
spans.drop(1)
flush(b)
eq(spans.name(1), "span-1")`))
	b.Invalidate()
	if td.SpanCount() != 2 {
		t.Errorf("%d spans, want 2", td.SpanCount())
	}
}
