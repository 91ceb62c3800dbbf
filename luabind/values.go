package luabind

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// The values the language binds, each a userdata with its own metatable:
//
//   - *nsNode: a namespace or a component name (`otelcol.receiver`),
//   - *instance: `<component name>.<label>`, a reference without its export,
//   - *script.Ref and *script.Expr: lazy values,
//   - *service: a service's block function (`http`),
//   - *unknownRef: what an unknown name yields,
//   - *opaque: a Go value handed to a compute function.

// instance is `<component name>.<label>`: indexing it with an export makes
// a reference. Used as a value it is an error.
type instance struct {
	name, label string
	pos         script.Pos
	scope       string // the id prefix of the module instance it was named in
}

func (i *instance) id() string { return i.scope + i.name + "." + i.label }

// service is the global of a service: `http { ... }` configures it.
type service struct{ name string }

// opaque is a Go value passed to a compute function that has no Lua form
// (a consumer, ...): it comes back unchanged if the function returns it.
type opaque struct{ v any }

// metatables holds one metatable per bound type.
type metatables struct {
	ns, instance, lazy, unknown, service, opaque *lua.LTable
}

// newMetatables builds the metatables. Every language value supports `..`
// and arithmetic, which build lazy expressions or report why they cannot.
func (ld *loader) newMetatables() metatables {
	L := ld.L
	shared := map[string]*lua.LFunction{
		"__concat":   L.NewFunction(ld.binaryOp("..")),
		"__add":      L.NewFunction(ld.binaryOp("+")),
		"__sub":      L.NewFunction(ld.binaryOp("-")),
		"__mul":      L.NewFunction(ld.binaryOp("*")),
		"__div":      L.NewFunction(ld.binaryOp("/")),
		"__mod":      L.NewFunction(ld.binaryOp("%")),
		"__pow":      L.NewFunction(ld.binaryOp("^")),
		"__unm":      L.NewFunction(ld.negate),
		"__lt":       L.NewFunction(ld.compare),
		"__le":       L.NewFunction(ld.compare),
		"__len":      L.NewFunction(ld.length),
		"__newindex": L.NewFunction(ld.assign),
		"__tostring": L.NewFunction(ld.tostring),
	}
	mk := func(index, call lua.LGFunction) *lua.LTable {
		t := L.NewTable()
		for name, fn := range shared {
			t.RawSetString(name, fn)
		}
		t.RawSetString("__metatable", lua.LString("locked"))
		t.RawSetString("__index", L.NewFunction(index))
		t.RawSetString("__call", L.NewFunction(call))
		return t
	}
	op := L.NewTable()
	op.RawSetString("__tostring", shared["__tostring"])
	op.RawSetString("__metatable", lua.LString("locked"))
	return metatables{
		ns:       mk(ld.nsIndex, ld.nsCall),
		instance: mk(ld.instanceIndex, ld.notCallable),
		lazy:     mk(ld.lazyIndex, ld.notCallable),
		unknown:  mk(ld.unknownIndex, ld.unknownCall),
		service:  mk(ld.serviceIndex, ld.serviceCall),
		opaque:   op,
	}
}

// newUserData wraps a Go value with a metatable.
func (ld *loader) newUserData(v any, mt *lua.LTable) *lua.LUserData {
	ud := ld.L.NewUserData()
	ud.Value = v
	ud.Metatable = mt
	return ud
}

// lazyValue wraps a *script.Ref or *script.Expr.
func (ld *loader) lazyValue(v any) *lua.LUserData { return ld.newUserData(v, ld.mt.lazy) }

// nodeValue returns the Lua value of a name node, made once.
func (ld *loader) nodeValue(n *nsNode) *lua.LUserData {
	if n.ud == nil {
		n.ud = ld.newUserData(n, ld.mt.ns)
	}
	return n.ud
}

// describe names a value for messages.
func describe(v lua.LValue) string {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return "a " + v.Type().String() + " value"
	}
	switch x := ud.Value.(type) {
	case *nsNode:
		if x.component {
			return "component name " + x.path
		}
		return "namespace " + x.path
	case *instance:
		return x.id()
	case *script.Ref:
		return "reference " + x.String()
	case *script.Expr:
		return "expression (" + x.Op + ")"
	case *service:
		return "service " + x.name
	case *unknownRef:
		if len(x.path) == 0 {
			return "an erroneous value"
		}
		return strings.Join(x.path, ".")
	case *opaque:
		return fmt.Sprintf("a Go %T value", x.v)
	}
	return "a userdata value"
}

// fail records a problem at pos and returns the sink, which absorbs
// whatever the script does next with the result, so that the load goes on
// and finds more problems. After the load (in a compute call) it raises
// the problem as a Lua error instead.
func (ld *loader) fail(L *lua.LState, pos script.Pos, format string, args ...any) lua.LValue {
	d := script.Errorf(pos, format, args...)
	if len(ld.scope) > 0 { // in a module's body: name the instance chain
		d.Message = strings.Join(ld.scope, " → ") + ": " + d.Message
	}
	if ld.done {
		ld.raise(L, d)
	}
	for _, seen := range ld.diags {
		if seen == d {
			return ld.sink
		}
	}
	ld.diags = append(ld.diags, d)
	if len(ld.diags) >= maxDiagnostics {
		ld.raise(L, script.Errorf(pos, "too many errors, giving up"))
	}
	return ld.sink
}

// raise stops the script with a Diagnostic as the Lua error value.
func (ld *loader) raise(L *lua.LState, d script.Diagnostic) {
	L.Error(ld.newUserData(&d, nil), 0)
}

// diagnosticOf extracts the Diagnostic raised by raise.
func diagnosticOf(v lua.LValue) (script.Diagnostic, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if d, ok := ud.Value.(*script.Diagnostic); ok {
			return *d, true
		}
	}
	return script.Diagnostic{}, false
}

// callerPos returns the position of the innermost Lua code running in a
// file of the script: the line that called the Go function (or triggered
// the metamethod) running now.
func (ld *loader) callerPos(L *lua.LState) script.Pos {
	return ld.luaPos(L, 1)
}

// luaPos walks the call stack from level up and returns the first
// position in a script file, or else the first Lua position at all.
func (ld *loader) luaPos(L *lua.LState, level int) script.Pos {
	var first script.Pos
	for ; level < 200; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.Source == "" {
			continue
		}
		pos := script.Pos{File: dbg.Source, Line: dbg.CurrentLine}
		if _, ok := ld.chunks[dbg.Source]; ok {
			return pos
		}
		if first.File == "" {
			first = pos
		}
	}
	return first
}

// udArg returns the Go value of the userdata at stack index n, or nil.
func udArg(L *lua.LState, n int) any {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		return ud.Value
	}
	return nil
}

// notCallable is __call of values that are not functions.
func (ld *loader) notCallable(L *lua.LState) int {
	L.Push(ld.fail(L, ld.callerPos(L), "%s is not a function", describe(L.Get(1))))
	return 1
}

// assign is __newindex: the language's values are read-only.
func (ld *loader) assign(L *lua.LState) int {
	if u, ok := udArg(L, 1).(*unknownRef); ok {
		ld.reportUnknown(L, u)
		return 0
	}
	ld.fail(L, ld.callerPos(L), "cannot assign to a field of %s", describe(L.Get(1)))
	return 0
}

// compare is __lt and __le: lazy values have no value to compare yet.
func (ld *loader) compare(L *lua.LState) int {
	L.Push(ld.fail(L, ld.callerPos(L), "cannot compare %s and %s before evaluation: use compute(fn, ...)", describe(L.Get(1)), describe(L.Get(2))))
	return 1
}

// length is __len.
func (ld *loader) length(L *lua.LState) int {
	L.Push(ld.fail(L, ld.callerPos(L), "cannot take the length of %s before evaluation: use compute(fn, ...)", describe(L.Get(1))))
	return 1
}

// tostring is __tostring, for print debugging: `<reference a.b.c>`.
func (ld *loader) tostring(L *lua.LState) int {
	L.Push(lua.LString("<" + describe(L.Get(1)) + ">"))
	return 1
}
