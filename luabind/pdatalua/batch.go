package pdatalua

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// leafTypesOf names the leaf types of a batch of sig, for errors.
func leafTypesOf(sig dataplane.Signal) string {
	switch sig {
	case dataplane.Traces:
		return "span"
	case dataplane.Logs:
		return "record"
	}
	return "metric, point"
}

// batchMethods are the methods of a batch of any signal, besides the bulk
// helpers and the signal's own.
var batchMethods = map[string]lua.LGFunction{
	"signal": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		L.Push(lua.LString(b.sig.String()))
		return 1
	},
	// methods(name) returns the methods of a bound type ("batch",
	// "resource", "scope", "span", "metric", "point", "record") as a table,
	// so that a script can keep them in locals: a call through a local skips
	// the method lookup. The table is a copy, made once per state.
	"methods": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		L.Push(b.bd.methodTable(L, b.sig, L.CheckString(2)))
		return 1
	},
	// by_index(name) returns the methods of a leaf type ("span", "record",
	// "metric", "point") as functions that take the item's flat index in
	// the batch instead of the item (see byindex.go).
	"by_index": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		name := L.CheckString(2)
		k, ok := leafKindOf(b.sig, name)
		if !ok {
			L.ArgError(2, "leaf type of a "+b.sig.String()+" batch expected ("+leafTypesOf(b.sig)+"), got "+strconv.Quote(name))
		}
		class := [numLeafKinds]*lua.LTable{leafSpan: b.bd.span, leafRecord: b.bd.record, leafMetric: b.bd.metric, leafPoint: b.bd.point}[k]
		L.Push(b.byIndexTable(L, k, class))
		return 1
	},
	"read_only": func(L *lua.LState) int {
		L.Push(lua.LBool(checkBatch(L, anySignal).readOnly))
		return 1
	},
	"resource_count": func(L *lua.LState) int {
		L.Push(lua.LNumber(checkBatch(L, anySignal).resourceCount()))
		return 1
	},
	"resource": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		ri, ok := checkIndex(L, 2, b.resourceCount())
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(b.moveResource(&b.atResource, ri))
		return 1
	},
	"resources": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		_, ud := b.newResource(-1)
		return iterate(L, b.bd.resourcesNext, ud)
	},
	// remove_empty removes, when the callback returns, every scope and
	// resource that holds nothing (and, for metrics, every metric without
	// points), not only those the drops emptied.
	"remove_empty": func(L *lua.LState) int {
		b := checkBatch(L, anySignal)
		b.writable(L)
		b.removeEmpty = true
		return 0
	},
}
