package luabind

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// instanceIndex is __index of `<name>.<label>`: the export completes a
// lazy reference, positioned where it was written. Whether the component
// and the export exist is for the engine to check, once every declaration
// is known.
func (ld *loader) instanceIndex(L *lua.LState) int {
	in := udArg(L, 1).(*instance)
	pos := ld.callerPos(L)
	export, ok := L.Get(2).(lua.LString)
	if !ok {
		L.Push(ld.fail(L, pos, "%s: expected an export name after the dot, got %s", in.id(), describe(L.Get(2))))
		return 1
	}
	L.Push(ld.lazyValue(&script.Ref{Component: in.id(), Export: string(export), Pos: pos, Scope: in.scope}))
	return 1
}

// lazyIndex is __index of lazy values: a reference names one export.
func (ld *loader) lazyIndex(L *lua.LState) int {
	L.Push(ld.fail(L, ld.callerPos(L), "cannot index %s with %q: a reference is <component>.<label>.<export>", describe(L.Get(1)), lua.LVAsString(L.Get(2))))
	return 1
}

// unknownIndex is __index of an unknown name: it extends the path.
func (ld *loader) unknownIndex(L *lua.LState) int {
	u := udArg(L, 1).(*unknownRef)
	key, ok := L.Get(2).(lua.LString)
	if u.rec.reported || !ok {
		L.Push(ld.sink)
		return 1
	}
	path := append(append([]string(nil), u.path...), string(key))
	L.Push(ld.newUserData(&unknownRef{rec: u.rec, path: path}, ld.mt.unknown))
	return 1
}

// unknownCall is __call of an unknown name: with a label it is the
// declaration of an unknown component.
func (ld *loader) unknownCall(L *lua.LState) int {
	u := udArg(L, 1).(*unknownRef)
	if u.rec.reported {
		L.Push(ld.sink)
		return 1
	}
	u.rec.reported = true
	if _, ok := L.Get(2).(lua.LString); ok {
		name := strings.Join(u.path, ".")
		hint := nameHint(name, ld.comps)
		if hint == "" {
			hint = didYouMean(name, ld.comps)
		}
		L.Push(ld.fail(L, u.rec.pos, "unknown component %q%s", name, hint))
		return 1
	}
	L.Push(ld.fail(L, u.rec.pos, "unknown name %q%s", u.rec.name(), ld.didYouMeanChild(u.rec)))
	return 1
}

// reportUnknown reports an unknown name used as a value (a reference
// through a misspelt namespace), once.
func (ld *loader) reportUnknown(L *lua.LState, u *unknownRef) {
	if u.rec.reported {
		return
	}
	u.rec.reported = true
	in := ""
	if len(u.path) > len(u.rec.parts) {
		in = " in " + strings.Join(u.path, ".")
	}
	hint := nameHint(strings.Join(u.path, "."), ld.comps)
	if hint == "" {
		hint = ld.didYouMeanChild(u.rec)
	}
	ld.fail(L, u.rec.pos, "unknown name %q%s%s", u.rec.name(), in, hint)
}

// binaryOp returns the metamethod of a binary operator: operands that are
// strings, numbers or lazy values make a lazy *script.Expr.
func (ld *loader) binaryOp(op string) lua.LGFunction {
	return func(L *lua.LState) int {
		pos := ld.callerPos(L)
		a, okA := ld.operand(L, pos, op, L.Get(1))
		b, okB := ld.operand(L, pos, op, L.Get(2))
		if !okA || !okB {
			L.Push(ld.sink)
			return 1
		}
		var args []any
		if op == ".." {
			// A fresh slice: the operands' own Args are shared.
			ca, cb := concatArgs(a), concatArgs(b)
			args = append(append(make([]any, 0, len(ca)+len(cb)), ca...), cb...)
		} else {
			args = []any{a, b}
		}
		L.Push(ld.lazyValue(&script.Expr{Op: op, Args: args, Pos: pos}))
		return 1
	}
}

// concatArgs flattens nested concatenations: a .. (b .. c) has the
// operands a, b, c.
func concatArgs(v any) []any {
	if e, ok := v.(*script.Expr); ok && e.Op == ".." {
		return e.Args
	}
	return []any{v}
}

// negate is __unm.
func (ld *loader) negate(L *lua.LState) int {
	pos := ld.callerPos(L)
	a, ok := ld.operand(L, pos, "-", L.Get(1))
	if !ok {
		L.Push(ld.sink)
		return 1
	}
	L.Push(ld.lazyValue(&script.Expr{Op: "neg", Args: []any{a}, Pos: pos}))
	return 1
}

// operand converts one operand of an operator to a script value.
func (ld *loader) operand(L *lua.LState, pos script.Pos, op string, v lua.LValue) (any, bool) {
	switch v := v.(type) {
	case lua.LString:
		if op == ".." {
			return string(v), true
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64); err == nil {
			return f, true
		}
	case lua.LNumber:
		return float64(v), true
	case *lua.LUserData:
		switch x := v.Value.(type) {
		case *script.Ref, *script.Expr:
			return x, true
		case *instance:
			ld.fail(L, x.pos, "%s", incompleteMessage(x))
			return nil, false
		case *unknownRef:
			ld.reportUnknown(L, x)
			return nil, false
		}
	}
	ld.fail(L, pos, "cannot use %s in %s: only strings, numbers and references combine into expressions; use compute(fn, ...) for more", describe(v), opName(op))
	return nil, false
}

// opName names an operator for messages.
func opName(op string) string {
	if op == ".." {
		return "a concatenation (..)"
	}
	return "arithmetic (" + op + ")"
}

// incompleteMessage explains a reference without its export.
func incompleteMessage(in *instance) string {
	return "incomplete reference " + in.id() + ": name the export to use, e.g. " + in.id() + ".<export>"
}
