package schema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxValueDepth bounds the nesting of values converted between Lua and Go.
const maxValueDepth = 100

// Valuer is implemented by the Go values a host hands to Lua as userdata
// (a consumer, an output): FromLua turns them back into their Go values.
type Valuer interface {
	ScriptValue() any
}

// FromLua converts a Lua value into a script value (see package
// engine/script): lists (keys 1..n) become []any, tables with string keys
// map[string]any, the empty table an empty map; userdata holding a Valuer
// become its Go value again. Anything else (a function, a table mixing
// list items and fields, a list with holes) is an error.
func FromLua(v lua.LValue) (any, error) { return fromLua(v, 0) }

// Format writes a script value as a script would: "200ms" quoted,
// { "a", "b" } for lists, { k = v } for tables.
func Format(v any) string { return format(v, 0) }

// fromLua is FromLua, depth levels down.
func fromLua(v lua.LValue, depth int) (any, error) {
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
		return tableFromLua(v, depth)
	case *lua.LUserData:
		if x, ok := v.Value.(Valuer); ok {
			return x.ScriptValue(), nil
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

// tableFromLua converts a table: a list or a table with string keys.
func tableFromLua(t *lua.LTable, depth int) (any, error) {
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
			v, err := fromLua(e, depth+1)
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
		v, err := fromLua(t.RawGetString(k), depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		m[k] = v
	}
	return m, nil
}

// format is Format, depth levels down.
func format(v any, depth int) string {
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
			parts[i] = format(e, depth+1)
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
			parts[i] = key + " = " + format(v[k], depth+1)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return fmt.Sprint(v)
}
