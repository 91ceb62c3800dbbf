package pdatalua

import (
	"sort"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestNoGoPanics calls every bound method with every argument list from a
// set of wrong, odd and valid ones, on handles of every type, live and dead,
// on writable and read-only batches: each call must succeed or raise a Lua
// error, never panic in Go.
func TestNoGoPanics(t *testing.T) {
	const grab = `
function grab(batch)
  local h = { batch = batch, resource = batch:resource(1) }
  h.scope = h.resource:scope(1)
  local s = batch:signal()
  if s == "traces" then h.leaf = batch:span(1); h.leaf2 = h.scope:span(1) end
  if s == "logs" then h.leaf = batch:record(1); h.leaf2 = h.scope:record(1) end
  if s == "metrics" then h.leaf = batch:metric(1); h.leaf2 = batch:point(1); h.point = h.leaf:point(1) end
  local iter = h.scope.metrics or h.scope.spans or h.scope.records
  local f, state = iter(h.scope)
  h.unpositioned = state
  return h
end`
	for _, readOnly := range []bool{false, true} {
		for _, sig := range []string{"traces", "metrics", "logs"} {
			L := newState(t, grab)
			var b *Batch
			switch sig {
			case "traces":
				td := genTraces(2, 2, 2)
				if readOnly {
					td.MarkReadOnly()
				}
				b = NewTraces(L, td)
			case "metrics":
				md := genMetrics()
				if readOnly {
					md.MarkReadOnly()
				}
				b = NewMetrics(L, md)
			case "logs":
				ld := genLogs(3)
				if readOnly {
					ld.MarkReadOnly()
				}
				b = NewLogs(L, ld)
			}
			if err := L.CallByParam(lua.P{Fn: L.GetGlobal("grab"), NRet: 1, Protect: true}, b.Value()); err != nil {
				t.Fatal(err)
			}
			handles := L.Get(-1).(*lua.LTable)
			L.Pop(1)
			fuzzHandles(t, L, sig, readOnly, handles)
			if !readOnly {
				b.Invalidate()
				fuzzHandles(t, L, sig+"/dead", readOnly, handles)
			}
		}
	}
}

func fuzzHandles(t *testing.T, L *lua.LState, label string, readOnly bool, handles *lua.LTable) {
	t.Helper()
	var selves []lua.LValue
	handles.ForEach(func(_, v lua.LValue) { selves = append(selves, v) })
	selves = append(selves, lua.LNil, &lua.LUserData{Value: 3})
	args := [][]lua.LValue{
		{},
		{lua.LNil},
		{lua.LString("user.email")},
		{lua.LString("user.email"), lua.LString("v")},
		{lua.LString("user.email"), lua.LNumber(1)},
		{lua.LString("user.email"), lua.LNumber(1.5)},
		{lua.LString("user.email"), lua.LTrue},
		{lua.LString("user.email"), L.NewTable()},
		{lua.LString("user.email"), lua.LString("v"), L.NewTable()},
		{lua.LNil, lua.LString("v"), L.NewTable()},
		{lua.LNumber(0)}, {lua.LNumber(1)}, {lua.LNumber(2)}, {lua.LNumber(-1)}, {lua.LNumber(1e300)}, {lua.LNumber(3)},
		{lua.LString("")},
		{lua.LString("zz")},
		{lua.LString("0102030405060708")},
		{lua.LString("0102030405060708090a0b0c0d0e0f10")},
		{lua.LString("server")}, {lua.LString("error"), lua.LString("msg")},
		{lua.LString(strings.Repeat("k", MaxKeyLen+1)), lua.LString("v")},
		{lua.LString("k"), lua.LString(strings.Repeat("v", MaxStringLen+1))},
		{L.NewFunction(func(L *lua.LState) int { return 0 })},
		{L.NewFunction(func(L *lua.LState) int { L.RaiseError("inner"); return 0 })},
		{tableOf(L, map[string]lua.LValue{"attr": lua.LString("user.email"), "equals": lua.LString("x")})},
		{lua.LString("user.email"), tableOf(L, map[string]lua.LValue{"name": lua.LString("x")})},
		{lua.LNil, tableOf(L, map[string]lua.LValue{"key_pattern": lua.LString("^user")})},
		{lua.LString("span")}, {lua.LString("point")}, {lua.LString("nope")},
		{handles.RawGetString("leaf")},
	}
	for _, self := range selves {
		for _, m := range allMethods(L) {
			name, fn := m.name, m.fn
			args := args
			if ud, ok := self.(*lua.LUserData); !ok || ud.Metatable != m.mt {
				args = args[:2] // a wrong self fails first, whatever follows
			}
			for _, a := range args {
				L.Push(fn)
				L.Push(self)
				for _, v := range a {
					L.Push(v)
				}
				err := L.PCall(1+len(a), lua.MultRet, nil)
				L.SetTop(0)
				if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
					t.Fatalf("%s (read-only %v): %s(%v, %v) panicked in Go: %v", label, readOnly, name, self, a, err)
				}
			}
		}
	}
}

func tableOf(L *lua.LState, m map[string]lua.LValue) *lua.LTable {
	t := L.NewTable()
	for k, v := range m {
		t.RawSetString(k, v)
	}
	return t
}

type method struct {
	name string // type.method
	fn   lua.LValue
	mt   lua.LValue // of the type
}

// allMethods lists every method of every bound type.
func allMethods(L *lua.LState) []method {
	bd := open(L)
	var out []method
	for _, mt := range []*lua.LTable{bd.tracesBatch, bd.metricsBatch, bd.logsBatch, bd.resource, bd.traceScope,
		bd.metricScope, bd.logScope, bd.span, bd.metric, bd.point, bd.record} {
		typ := string(mt.RawGetString("__metatable").(lua.LString))
		mt.RawGetString("__index").(*lua.LTable).ForEach(func(k, v lua.LValue) {
			out = append(out, method{typ + "." + k.String(), v, mt})
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
