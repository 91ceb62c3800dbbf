package pdatalua

import (
	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// resourceHandle is a resource of the batch: its attributes and its scopes.
type resourceHandle struct {
	handle
	ri  int
	res pcommon.Resource
	// atScope is the handle rs:scope(i) returns, made on first use.
	atScope *lua.LUserData
}

func (b *Batch) resourceCount() int {
	switch b.sig {
	case dataplane.Traces:
		return b.traces.ResourceSpans().Len()
	case dataplane.Metrics:
		return b.metrics.ResourceMetrics().Len()
	default:
		return b.logs.ResourceLogs().Len()
	}
}

func (b *Batch) resourceAt(ri int) pcommon.Resource {
	switch b.sig {
	case dataplane.Traces:
		return b.traces.ResourceSpans().At(ri).Resource()
	case dataplane.Metrics:
		return b.metrics.ResourceMetrics().At(ri).Resource()
	default:
		return b.logs.ResourceLogs().At(ri).Resource()
	}
}

// newResource returns a resource handle, positioned at ri if ri >= 0.
func (b *Batch) newResource(ri int) (*resourceHandle, *lua.LUserData) {
	h := &resourceHandle{handle: b.handle(), ri: ri}
	if ri >= 0 {
		h.res = b.resourceAt(ri)
	} else {
		h.gen = 0
	}
	return h, newUD(h, b.bd.resource)
}

// moveResource points the handle in *ud (made if nil) at resource ri.
func (b *Batch) moveResource(ud **lua.LUserData, ri int) *lua.LUserData {
	if *ud == nil {
		_, *ud = b.newResource(ri)
		return *ud
	}
	h := (*ud).Value.(*resourceHandle)
	h.ri, h.res = ri, b.resourceAt(ri)
	return *ud
}

// checkResource returns the live resource that is argument 1, or raises an
// error.
func checkResource(L *lua.LState) *resourceHandle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*resourceHandle); ok && h.gen == h.b.gen {
			return h
		}
	}
	return check[*resourceHandle](L, "resource")
}

func resourceAttrs(L *lua.LState) (*handle, pcommon.Map) {
	h := checkResource(L)
	return &h.handle, h.res.Attributes()
}

func resourcesNext(L *lua.LState) int {
	h := checkIter[*resourceHandle](L, "resource")
	b := h.b
	if h.ri+1 >= b.resourceCount() {
		h.ri, h.gen = b.resourceCount(), 0
		return 0
	}
	h.ri++
	h.res = b.resourceAt(h.ri)
	h.gen = h.born
	L.Push(L.Get(1))
	return 1
}

var resourceMethods = map[string]lua.LGFunction{
	"scope_count": func(L *lua.LState) int {
		h := checkResource(L)
		L.Push(lua.LNumber(h.b.scopeCount(h.ri)))
		return 1
	},
	"scope": func(L *lua.LState) int {
		h := checkResource(L)
		si, ok := checkIndex(L, 2, h.b.scopeCount(h.ri))
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(h.b.moveScope(&h.atScope, h.ri, si))
		return 1
	},
	"scopes": func(L *lua.LState) int {
		h := checkResource(L)
		_, ud := h.b.newScope(h.ri, -1)
		return iterate(L, h.b.bd.scopesNext, ud)
	},
	"drop": func(L *lua.LState) int {
		h := checkResource(L)
		markDrop(L, &h.handle, resourcesKey, h.ri)
		return 0
	},
	"dropped": func(L *lua.LState) int {
		h := checkResource(L)
		L.Push(lua.LBool(h.b.drops.has(resourcesKey, h.ri)))
		return 1
	},
}
