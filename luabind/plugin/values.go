package plugin

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component/telemetry"
)

// maxValueDepth bounds the nesting of values converted between Lua and Go.
const maxValueDepth = 100

// luaToScript converts a Lua value into a script value (see package
// engine/script): lists (keys 1..n) become []any, tables with string keys
// map[string]any, the empty table an empty map; consumers and outputs
// the script handed to the component become their Go values again.
func luaToScript(v lua.LValue, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("tables are nested too deeply (more than %d levels)", maxValueDepth)
	}
	switch v := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		return float64(v), nil
	case lua.LString:
		return string(v), nil
	case *lua.LTable:
		return tableToScript(v, depth)
	case *lua.LUserData:
		switch x := v.Value.(type) {
		case *consumerRef:
			return x.c, nil
		case *outputRef:
			return x.src, nil
		case *goValue:
			return x.v, nil
		}
		if mt, ok := v.Metatable.(*lua.LTable); ok {
			if name, ok := mt.RawGetString("__metatable").(lua.LString); ok {
				return nil, fmt.Errorf("a %s is not a value", name)
			}
		}
		return nil, fmt.Errorf("a userdata is not a value")
	}
	return nil, fmt.Errorf("a %s is not a value", v.Type())
}

// tableToScript converts a table: a list or a table with string keys.
func tableToScript(t *lua.LTable, depth int) (any, error) {
	var keys []string
	n := 0
	var bad lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		switch k := k.(type) {
		case lua.LString:
			keys = append(keys, string(k))
		case lua.LNumber:
			n++
		default:
			bad = k
		}
	})
	switch {
	case bad != nil:
		return nil, fmt.Errorf("key %s is not a field name: tables are lists (1..n) or have string keys", bad.String())
	case n > 0 && len(keys) > 0:
		return nil, fmt.Errorf("the table mixes list items and named fields")
	case n > 0:
		list := make([]any, n)
		for i := range list {
			e := t.RawGetInt(i + 1)
			if e == lua.LNil {
				return nil, fmt.Errorf("the list has a hole: item %d is nil", i+1)
			}
			v, err := luaToScript(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i+1, err)
			}
			list[i] = v
		}
		return list, nil
	}
	slices.Sort(keys)
	m := make(map[string]any, len(keys))
	for _, k := range keys {
		v, err := luaToScript(t.RawGetString(k), depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		m[k] = v
	}
	return m, nil
}

// goValue is a Go value without a Lua form (an export of another
// component, in an argument of type any or table): Lua can pass it on.
type goValue struct{ v any }

// consumerRef is a consumer handed to Lua (an argument of type consumer).
type consumerRef struct{ c telemetry.Consumer }

// toLua converts a decoded value of type t to Lua.
func (v *vm) toLua(rv reflect.Value, t *typeSpec, depth int) lua.LValue {
	L := v.L
	if depth > maxValueDepth {
		return lua.LNil
	}
	switch t.kind {
	case tString:
		return lua.LString(rv.String())
	case tNumber:
		return lua.LNumber(rv.Float())
	case tInteger:
		return lua.LNumber(rv.Int())
	case tBoolean:
		return lua.LBool(rv.Bool())
	case tDuration:
		return lua.LNumber(time.Duration(rv.Int()).Seconds())
	case tAny:
		if rv.IsNil() {
			return lua.LNil
		}
		return v.scriptToLua(rv.Elem().Interface(), depth)
	case tTable:
		return v.scriptToLua(rv.Interface().(Table).Value, depth)
	case tConsumer:
		if rv.IsNil() {
			return lua.LNil
		}
		return v.newUserData(&consumerRef{c: rv.Interface().(telemetry.Consumer)}, mtConsumer)
	case tOutput:
		return v.newUserData(newOutputRef(rv.Interface().(telemetry.Output)), mtOutput)
	case tList:
		tbl := L.CreateTable(rv.Len(), 0)
		for i := range rv.Len() {
			tbl.Append(v.toLua(rv.Index(i), t.elem, depth+1))
		}
		return tbl
	case tMap:
		tbl := L.CreateTable(0, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			tbl.RawSetString(it.Key().String(), v.toLua(it.Value(), t.elem, depth+1))
		}
		return tbl
	case tObject:
		tbl := L.CreateTable(0, len(t.fields))
		for i, f := range t.fields {
			tbl.RawSetString(f.name, v.toLua(rv.Field(i), f.typ, depth+1))
		}
		return tbl
	}
	return lua.LNil
}

// scriptToLua converts a script value, which may hold Go values, to Lua.
func (v *vm) scriptToLua(x any, depth int) lua.LValue {
	L := v.L
	if depth > maxValueDepth {
		return lua.LNil
	}
	switch x := x.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case []any:
		tbl := L.CreateTable(len(x), 0)
		for _, e := range x {
			tbl.Append(v.scriptToLua(e, depth+1))
		}
		return tbl
	case map[string]any:
		tbl := L.CreateTable(0, len(x))
		for k, e := range x {
			tbl.RawSetString(k, v.scriptToLua(e, depth+1))
		}
		return tbl
	case telemetry.Consumer:
		return v.newUserData(&consumerRef{c: x}, mtConsumer)
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Bool:
		return lua.LBool(rv.Bool())
	case reflect.String:
		return lua.LString(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return lua.LNumber(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(rv.Float())
	}
	return v.newUserData(&goValue{v: x}, mtGoValue)
}

// formatScript writes a script value as a script would: "200ms" quoted,
// { "a", "b" } for lists, { k = v } for tables.
func formatScript(v any, depth int) string {
	if depth > 8 {
		return "..."
	}
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case []any:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = formatScript(e, depth+1)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case map[string]any:
		if len(v) == 0 {
			return "{}"
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			key := k
			if !fieldNameRE.MatchString(k) {
				key = "[" + strconv.Quote(k) + "]"
			}
			parts[i] = key + " = " + formatScript(v[k], depth+1)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return fmt.Sprint(v)
}
