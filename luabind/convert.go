package luabind

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// Bounds of a conversion, against tables built in loops.
const (
	maxTableDepth = 100
	maxValues     = 1 << 20 // values in one argument table
)

// converter turns Lua values into script values (see package
// engine/script): array-like tables become []any, tables with string keys
// map[string]any, the empty table map[string]any{}, numbers float64, lazy
// values *script.Ref and *script.Expr. Anything else is a problem recorded
// with its field path.
type converter struct {
	ld       *loader
	prefix   string // prepended to messages: "compute: "
	pos      script.Pos
	fieldPos map[string]script.Pos
	visiting map[*lua.LTable]bool
	budget   int
	diags    script.Diagnostics
	// plainOnly refuses lazy values: a compute result must be a value.
	plainOnly bool
}

func (ld *loader) newConverter(prefix string, pos script.Pos, fieldPos map[string]script.Pos) *converter {
	return &converter{ld: ld, prefix: prefix, pos: pos, fieldPos: fieldPos, budget: maxValues}
}

// errorf records a problem at a field path.
func (c *converter) errorf(pos script.Pos, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	c.diags = append(c.diags, script.Diagnostic{Pos: pos, Message: c.prefix + msg})
}

// posOf returns the line of a field path, as script.Block.PosOf does.
func (c *converter) posOf(path string) script.Pos {
	b := script.Block{Pos: c.pos, FieldPos: c.fieldPos}
	return b.PosOf(path)
}

// topLevel converts an argument table, which must have named fields.
func (c *converter) topLevel(t *lua.LTable) (map[string]any, bool) {
	v := c.value("", t, 0)
	if m, ok := v.(map[string]any); ok {
		return m, len(c.diags) == 0
	}
	if len(c.diags) == 0 {
		c.errorf(c.pos, "", "the argument table must have named fields (name = value), not list items")
	}
	return map[string]any{}, false
}

// value converts one value at path; on a problem it records it and
// returns nil.
func (c *converter) value(path string, v lua.LValue, depth int) any {
	c.budget--
	if c.budget == 0 {
		c.errorf(c.posOf(path), path, "too many values (more than %d)", maxValues)
	}
	if c.budget <= 0 {
		return nil
	}
	switch v := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return bool(v)
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		return string(v)
	case *lua.LTable:
		return c.table(path, v, depth+1)
	case *lua.LFunction:
		c.errorf(c.posOf(path), path, "a function is not a value: use compute(fn, ...) to compute a value from references")
	case *lua.LUserData:
		return c.userData(path, v)
	default:
		c.errorf(c.posOf(path), path, "a %s is not a value", v.Type().String())
	}
	return nil
}

// userData converts the language's values.
func (c *converter) userData(path string, ud *lua.LUserData) any {
	switch x := ud.Value.(type) {
	case *script.Ref, *script.Expr:
		if !c.plainOnly {
			return x
		}
		c.errorf(c.posOf(path), path, "%s is not a value yet: return a plain value", describe(ud))
	case *opaque:
		return x.v
	case *instance:
		c.errorf(x.pos, path, "%s", incompleteMessage(x))
	case *unknownRef:
		if !x.rec.reported {
			x.rec.reported = true
			in := ""
			if len(x.path) > len(x.rec.parts) {
				in = " in " + strings.Join(x.path, ".")
			}
			hint := nameHint(strings.Join(x.path, "."), c.ld.comps)
			if hint == "" {
				hint = c.ld.didYouMeanChild(x.rec)
			}
			c.diags = append(c.diags, script.Errorf(x.rec.pos, "unknown name %q%s%s", x.rec.name(), in, hint))
		}
	case *nsNode, *service:
		c.errorf(c.posOf(path), path, "%s is not a value", describe(ud))
	default:
		c.errorf(c.posOf(path), path, "a userdata is not a value")
	}
	return nil
}

// table converts a table: a list (keys 1..n) or a map (string keys).
func (c *converter) table(path string, t *lua.LTable, depth int) any {
	if depth > maxTableDepth {
		c.errorf(c.posOf(path), path, "tables are nested too deeply (more than %d levels)", maxTableDepth)
		return nil
	}
	if c.visiting == nil {
		c.visiting = map[*lua.LTable]bool{}
	}
	if c.visiting[t] {
		c.errorf(c.posOf(path), path, "the table contains itself")
		return nil
	}
	c.visiting[t] = true
	defer delete(c.visiting, t)

	var (
		fields []field
		items  []int
		badKey string // the first bad key in sorted order, for stable messages
	)
	t.ForEach(func(k, v lua.LValue) {
		switch k := k.(type) {
		case lua.LString:
			fields = append(fields, field{string(k), v})
		case lua.LNumber:
			if f := float64(k); f >= 1 && f <= math.MaxInt32 && f == math.Trunc(f) {
				items = append(items, int(f))
				return
			}
			if ks := keyString(k); badKey == "" || ks < badKey {
				badKey = ks
			}
		default:
			if ks := keyString(k); badKey == "" || ks < badKey {
				badKey = ks
			}
		}
	})
	switch {
	case badKey != "":
		c.errorf(c.posOf(path), path, "key %s is not a field name: tables are lists (1..n) or have string keys", badKey)
		return nil
	case len(fields) > 0 && len(items) > 0:
		c.errorf(c.posOf(path), path, "the table mixes list items and named fields")
		return nil
	case len(items) > 0:
		sort.Ints(items)
		list := make([]any, len(items))
		for i, k := range items {
			if k != i+1 {
				p := decode.JoinIndex(path, i)
				c.errorf(c.posOf(p), p, "the list has a hole: item %d is nil", i+1)
				return nil
			}
			list[i] = c.value(decode.JoinIndex(path, i), t.RawGetInt(k), depth)
		}
		return list
	}
	slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
	m := make(map[string]any, len(fields))
	for _, f := range fields {
		m[f.name] = c.value(decode.JoinField(path, f.name), f.value, depth)
	}
	return m
}

// field is a named field of a table.
type field struct {
	name  string
	value lua.LValue
}

// keyString writes a table key for messages.
func keyString(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return fmt.Sprintf("%q", string(s))
	}
	if k.Type() == lua.LTNumber || k.Type() == lua.LTBool {
		return k.String()
	}
	return "of type " + k.Type().String()
}

// toLua converts an evaluated script value to Lua for a compute function;
// Go values without a Lua form pass through as opaque userdata.
func (ld *loader) toLua(v any) lua.LValue {
	return ToLua(ld.L, v, func(x any) lua.LValue { return ld.newUserData(&opaque{v: x}, ld.mt.opaque) })
}

// ToLua converts a script value (see package engine/script), which may
// hold Go values, to Lua: lists and maps become tables, numbers LNumber;
// Go booleans, strings, numbers, slices ([]byte as a string) and maps
// with string keys their Lua forms. wrap turns any other Go value (an
// export without a Lua form) into a Lua value, usually a userdata that
// hands it back. Tables nested deeper than 100 levels end in nil.
func ToLua(L *lua.LState, v any, wrap func(any) lua.LValue) lua.LValue {
	return toLua(L, v, wrap, 0)
}

func toLua(L *lua.LState, v any, wrap func(any) lua.LValue, depth int) lua.LValue {
	if depth > maxTableDepth {
		return lua.LNil
	}
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(toLua(L, e, wrap, depth+1))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetString(k, toLua(L, e, wrap, depth+1))
		}
		return t
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return lua.LBool(rv.Bool())
	case reflect.String:
		return lua.LString(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return lua.LNumber(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(rv.Float())
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			return lua.LString(rv.Bytes())
		}
		t := L.CreateTable(rv.Len(), 0)
		for i := 0; i < rv.Len(); i++ {
			t.Append(toLua(L, rv.Index(i).Interface(), wrap, depth+1))
		}
		return t
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			t := L.CreateTable(0, rv.Len())
			iter := rv.MapRange()
			for iter.Next() {
				t.RawSetString(iter.Key().String(), toLua(L, iter.Value().Interface(), wrap, depth+1))
			}
			return t
		}
	}
	return wrap(v)
}
