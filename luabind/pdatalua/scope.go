package pdatalua

import (
	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// scopeHandle is an instrumentation scope of a resource: its name, version,
// attributes and items (the signal's own slice is set, the others are zero).
type scopeHandle struct {
	handle
	ri, si  int
	scope   pcommon.InstrumentationScope
	spans   ptrace.SpanSlice
	metrics pmetric.MetricSlice
	records plog.LogRecordSlice
	// atLeaf is the handle ss:span(i) (record(i), metric(i)) returns, and
	// atResource the one ss:resource() returns, made on first use.
	atLeaf, atResource *lua.LUserData
}

func (b *Batch) scopeCount(ri int) int {
	switch b.sig {
	case dataplane.Traces:
		return b.traces.ResourceSpans().At(ri).ScopeSpans().Len()
	case dataplane.Metrics:
		return b.metrics.ResourceMetrics().At(ri).ScopeMetrics().Len()
	default:
		return b.logs.ResourceLogs().At(ri).ScopeLogs().Len()
	}
}

// setScope points h at scope si of resource ri.
func (b *Batch) setScope(h *scopeHandle, ri, si int) {
	h.ri, h.si = ri, si
	switch b.sig {
	case dataplane.Traces:
		ss := b.traces.ResourceSpans().At(ri).ScopeSpans().At(si)
		h.scope, h.spans = ss.Scope(), ss.Spans()
	case dataplane.Metrics:
		sm := b.metrics.ResourceMetrics().At(ri).ScopeMetrics().At(si)
		h.scope, h.metrics = sm.Scope(), sm.Metrics()
	default:
		sl := b.logs.ResourceLogs().At(ri).ScopeLogs().At(si)
		h.scope, h.records = sl.Scope(), sl.LogRecords()
	}
}

func (b *Batch) scopeMT() *lua.LTable {
	switch b.sig {
	case dataplane.Traces:
		return b.bd.traceScope
	case dataplane.Metrics:
		return b.bd.metricScope
	default:
		return b.bd.logScope
	}
}

// newScope returns a scope handle of resource ri, positioned at si if si >= 0.
func (b *Batch) newScope(ri, si int) (*scopeHandle, *lua.LUserData) {
	h := &scopeHandle{handle: b.handle(), ri: ri, si: si}
	if si >= 0 {
		b.setScope(h, ri, si)
	} else {
		h.gen = 0
	}
	return h, newUD(h, b.scopeMT())
}

// moveScope points the handle in *ud (made if nil) at scope si of resource ri.
func (b *Batch) moveScope(ud **lua.LUserData, ri, si int) *lua.LUserData {
	if *ud == nil {
		_, *ud = b.newScope(ri, si)
		return *ud
	}
	b.setScope((*ud).Value.(*scopeHandle), ri, si)
	return *ud
}

// checkScope returns the live scope that is argument 1, or raises an error.
func checkScope(L *lua.LState) *scopeHandle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*scopeHandle); ok && h.gen == h.b.gen {
			return h
		}
	}
	return check[*scopeHandle](L, "scope")
}

func scopeAttrs(L *lua.LState) (*handle, pcommon.Map) {
	h := checkScope(L)
	return &h.handle, h.scope.Attributes()
}

// checkScopeOf returns the live scope handle that is argument 1, of a batch
// of the given signal.
func checkScopeOf(L *lua.LState, sig dataplane.Signal) *scopeHandle {
	h := checkScope(L)
	if h.b.sig != sig {
		badSelf(L, "scope of "+[...]string{dataplane.Traces: "traces", dataplane.Metrics: "metrics", dataplane.Logs: "logs"}[sig])
	}
	return h
}

func scopesNext(L *lua.LState) int {
	h := checkIter[*scopeHandle](L, "scope")
	b := h.b
	if n := b.scopeCount(h.ri); h.si+1 >= n {
		h.si, h.gen = n, 0
		return 0
	}
	b.setScope(h, h.ri, h.si+1)
	h.gen = h.born
	L.Push(L.Get(1))
	return 1
}

var scopeMethods = map[string]lua.LGFunction{
	"name": func(L *lua.LState) int {
		h := checkScope(L)
		L.Push(lua.LString(h.scope.Name()))
		return 1
	},
	"version": func(L *lua.LState) int {
		h := checkScope(L)
		L.Push(lua.LString(h.scope.Version()))
		return 1
	},
	"resource": func(L *lua.LState) int {
		h := checkScope(L)
		L.Push(h.b.moveResource(&h.atResource, h.ri))
		return 1
	},
	"drop": func(L *lua.LState) int {
		h := checkScope(L)
		markDrop(L, &h.handle, scopesKey(h.ri), h.si)
		return 0
	},
	"dropped": func(L *lua.LState) int {
		h := checkScope(L)
		L.Push(lua.LBool(h.b.drops.dropped(h.ri, h.si, -1, -1)))
		return 1
	},
}
