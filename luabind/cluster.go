package luabind

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// clusterService is the service whose global offers cluster.shard.
const clusterService = "cluster"

// serviceFunction returns a function a service's global offers besides
// its block (`cluster.shard`), or nil.
func (ld *loader) serviceFunction(L *lua.LState, svc, name string) lua.LValue {
	if svc == clusterService && name == "shard" {
		return L.NewFunction(ld.shard)
	}
	return nil
}

// shard is `cluster.shard(list, key_fn)`: a lazy expression whose value is
// the part of list this node owns, re-evaluated when the cluster's
// membership changes. key_fn, optional, returns an item's key (a string);
// without it the key is the item itself.
func (ld *loader) shard(L *lua.LState) int {
	pos := ld.callerPos(L)
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if _, isSvc := ud.Value.(*service); isSvc {
			L.Push(ld.fail(L, pos, "cluster.shard: call it with a dot: cluster.shard(list, key_fn)"))
			return 1
		}
	}
	if L.GetTop() < 1 || L.GetTop() > 2 {
		L.Push(ld.fail(L, pos, "cluster.shard: expected a list and an optional key function, got %d arguments", L.GetTop()))
		return 1
	}
	conv := ld.newConverter("cluster.shard: ", pos, nil)
	list := conv.value("list", L.Get(1), 0)
	if len(conv.diags) > 0 {
		ld.addDiagnostics(L, conv.diags)
		L.Push(ld.sink)
		return 1
	}
	if m, ok := list.(map[string]any); ok && len(m) > 0 {
		L.Push(ld.fail(L, pos, "cluster.shard: expected a list, got a table with named fields"))
		return 1
	}
	if m, ok := list.(map[string]any); ok && len(m) == 0 {
		list = []any{}
	}
	x := &script.Expr{Op: "shard", Service: clusterService, Args: []any{list}, Pos: pos}
	switch fn := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LFunction:
		ld.usesFunc = true
		x.Func = &luaFunc{rt: ld.rt, fn: fn, pos: pos}
	default:
		L.Push(ld.fail(L, pos, "cluster.shard: expected a key function as the second argument, got %s", describe(fn)))
		return 1
	}
	L.Push(ld.lazyValue(x))
	return 1
}
