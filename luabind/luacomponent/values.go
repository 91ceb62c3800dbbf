package luacomponent

import (
	"reflect"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/luabind"
	"github.com/flowlua/flowlua/luabind/schema"
)

// maxValueDepth bounds the nesting of values converted to Lua.
const maxValueDepth = 100

// goValue is a Go value without a Lua form (an export of another
// component, in an argument of type any or table): Lua can pass it on.
type goValue struct{ v any }

func (g *goValue) ScriptValue() any { return g.v }

// consumerRef is a consumer handed to Lua (an argument of type consumer),
// with the fan-outs emit sends through to it.
type consumerRef struct {
	c   dataplane.Consumer
	out *outputRef
}

// consumerRef wraps a consumer for Lua.
func (v *vm) consumerRef(c dataplane.Consumer) lua.LValue {
	return v.newUserData(&consumerRef{c: c, out: consumerOutput(c, v.tap())}, mtConsumer)
}

func (c *consumerRef) ScriptValue() any { return c.c }

// ScriptValue returns the output the script handed to the component.
func (o *outputRef) ScriptValue() any { return o.src }

var (
	_ schema.Valuer = (*goValue)(nil)
	_ schema.Valuer = (*consumerRef)(nil)
	_ schema.Valuer = (*outputRef)(nil)
)

// toLua converts a decoded value of type t to Lua.
func (v *vm) toLua(rv reflect.Value, t *schema.Type, depth int) lua.LValue {
	L := v.L
	if depth > maxValueDepth {
		return lua.LNil
	}
	switch t.Kind {
	case schema.KindString:
		return lua.LString(rv.String())
	case schema.KindNumber:
		return lua.LNumber(rv.Float())
	case schema.KindInteger:
		return lua.LNumber(rv.Int())
	case schema.KindBoolean:
		return lua.LBool(rv.Bool())
	case schema.KindDuration:
		return lua.LNumber(time.Duration(rv.Int()).Seconds())
	case schema.KindAny:
		if rv.IsNil() {
			return lua.LNil
		}
		return v.scriptToLua(rv.Elem().Interface())
	case schema.KindTable:
		return v.scriptToLua(rv.Interface().(schema.Table).Value)
	case schema.KindConsumer:
		if rv.IsNil() {
			return lua.LNil
		}
		return v.consumerRef(rv.Interface().(dataplane.Consumer))
	case schema.KindOutput:
		return v.newUserData(newOutputRef(rv.Interface().(dataplane.Output), v.tap()), mtOutput)
	case schema.KindList:
		tbl := L.CreateTable(rv.Len(), 0)
		for i := range rv.Len() {
			tbl.Append(v.toLua(rv.Index(i), t.Elem, depth+1))
		}
		return tbl
	case schema.KindMap:
		tbl := L.CreateTable(0, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			tbl.RawSetString(it.Key().String(), v.toLua(it.Value(), t.Elem, depth+1))
		}
		return tbl
	case schema.KindObject:
		tbl := L.CreateTable(0, len(t.Fields))
		for i, f := range t.Fields {
			tbl.RawSetString(f.Name, v.toLua(rv.Field(i), f.Type, depth+1))
		}
		return tbl
	}
	return lua.LNil
}

// scriptToLua converts a script value, which may hold Go values, to Lua
// (luabind.ToLua): a consumer becomes a consumer userdata, other Go
// values without a Lua form opaque userdata that Lua can pass on.
func (v *vm) scriptToLua(x any) lua.LValue {
	return luabind.ToLua(v.L, x, func(x any) lua.LValue {
		if c, ok := x.(dataplane.Consumer); ok {
			return v.consumerRef(c)
		}
		return v.newUserData(&goValue{v: x}, mtGoValue)
	})
}
