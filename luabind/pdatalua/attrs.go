package pdatalua

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// attrsOf returns the live handle that is argument 1 and its attributes.
type attrsOf func(L *lua.LState) (*handle, pcommon.Map)

// attrMethods are the attribute methods of a bound type whose attributes get
// returns: attr, has_attr, set_attr, del_attr, attrs, attr_count.
func attrMethods(get attrsOf) map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"attr": func(L *lua.LState) int {
			_, m := get(L)
			v, ok := m.Get(L.CheckString(2))
			if !ok {
				L.Push(lua.LNil)
				return 1
			}
			L.Push(valueToLua(v))
			return 1
		},
		"has_attr": func(L *lua.LState) int {
			_, m := get(L)
			_, ok := m.Get(L.CheckString(2))
			L.Push(lua.LBool(ok))
			return 1
		},
		"set_attr": func(L *lua.LState) int {
			h, m := get(L)
			h.b.writable(L)
			// The common case, a string key and value, without the
			// conversions of the general one.
			if k, ok := L.Arg(2).(lua.LString); ok && len(k) <= MaxKeyLen {
				if v, ok := L.Arg(3).(lua.LString); ok && len(v) <= MaxStringLen {
					m.PutStr(string(k), string(v))
					return 0
				}
			}
			key := checkKey(L, 2)
			v := checkScalar(L, 3)
			v.put(m, key)
			return 0
		},
		"del_attr": func(L *lua.LState) int {
			h, m := get(L)
			h.b.writable(L)
			// A string key without CheckString's call and conversions.
			k, ok := L.Arg(2).(lua.LString)
			if !ok {
				k = lua.LString(L.CheckString(2))
			}
			L.Push(lua.LBool(m.Remove(string(k))))
			return 1
		},
		"attr_count": func(L *lua.LState) int {
			_, m := get(L)
			L.Push(lua.LNumber(m.Len()))
			return 1
		},
		"attrs": func(L *lua.LState) int {
			h, m := get(L)
			// A snapshot: the loop may change the attributes it iterates.
			kv := make([]lua.LValue, 0, 2*m.Len())
			for k, v := range m.All() {
				kv = append(kv, lua.LString(k), valueToLua(v))
			}
			i, b, gen := 0, h.b, h.b.gen
			L.Push(L.NewFunction(func(L *lua.LState) int {
				if b.gen != gen {
					h.dead(L)
				}
				if i >= len(kv) {
					return 0
				}
				L.Push(kv[i])
				L.Push(kv[i+1])
				i += 2
				return 2
			}))
			return 1
		},
	}
}

// maxExactInt is 2^53: every integer of magnitude up to it is exact in a
// float64, the type of a Lua number.
const maxExactInt = 1 << 53

// intToLua returns i as a number if a float64 holds it exactly, else as a
// string of decimal digits.
func intToLua(i int64) lua.LValue {
	if i >= -maxExactInt && i <= maxExactInt {
		return lua.LNumber(i)
	}
	return lua.LString(strconv.FormatInt(i, 10))
}

// uintToLua is intToLua for unsigned counts.
func uintToLua(u uint64) lua.LValue {
	if u <= maxExactInt {
		return lua.LNumber(u)
	}
	return lua.LString(strconv.FormatUint(u, 10))
}

// valueToLua converts an attribute value or a log body: strings, booleans and
// numbers as themselves (ints beyond 2^53 as strings), bytes as a Lua string
// of the raw bytes, maps and slices as their JSON text, empty as nil.
func valueToLua(v pcommon.Value) lua.LValue {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return lua.LString(v.Str())
	case pcommon.ValueTypeInt:
		return intToLua(v.Int())
	case pcommon.ValueTypeDouble:
		return lua.LNumber(v.Double())
	case pcommon.ValueTypeBool:
		return lua.LBool(v.Bool())
	case pcommon.ValueTypeBytes:
		return lua.LString(v.Bytes().AsRaw())
	case pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
		return lua.LString(v.AsString())
	}
	return lua.LNil
}

// scalar is a value a script writes: a string, an int, a double or a boolean.
type scalar struct {
	typ pcommon.ValueType
	s   string
	i   int64
	f   float64
	b   bool
}

// exactInt returns f as an int64 if it is integral and in range.
func exactInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// checkScalar converts argument n: a string, a number (an integral one is an
// int, any other a double) or a boolean.
func checkScalar(L *lua.LState, n int) scalar {
	s, msg := scalarOf(L.Get(n))
	if msg != "" {
		L.ArgError(n, msg)
	}
	return s
}

// scalarOf converts a value to write into an attribute: a string (at most
// MaxStringLen bytes), a number or a boolean; msg says what is wrong
// otherwise.
func scalarOf(v lua.LValue) (s scalar, msg string) {
	switch v := v.(type) {
	case lua.LString:
		if len(v) > MaxStringLen {
			return scalar{}, "string too long (" + strconv.Itoa(len(v)) + " bytes, limit " + strconv.Itoa(MaxStringLen) + ")"
		}
		return scalar{typ: pcommon.ValueTypeStr, s: string(v)}, ""
	case lua.LNumber:
		if i, ok := exactInt(float64(v)); ok {
			return scalar{typ: pcommon.ValueTypeInt, i: i}, ""
		}
		return scalar{typ: pcommon.ValueTypeDouble, f: float64(v)}, ""
	case lua.LBool:
		return scalar{typ: pcommon.ValueTypeBool, b: bool(v)}, ""
	default:
		return scalar{}, "string, number or boolean expected, got " + v.Type().String()
	}
}

// put sets key to the scalar in m.
func (s *scalar) put(m pcommon.Map, key string) {
	switch s.typ {
	case pcommon.ValueTypeStr:
		m.PutStr(key, s.s)
	case pcommon.ValueTypeInt:
		m.PutInt(key, s.i)
	case pcommon.ValueTypeDouble:
		m.PutDouble(key, s.f)
	case pcommon.ValueTypeBool:
		m.PutBool(key, s.b)
	}
}

// set sets v to the scalar.
func (s *scalar) set(v pcommon.Value) {
	switch s.typ {
	case pcommon.ValueTypeStr:
		v.SetStr(s.s)
	case pcommon.ValueTypeInt:
		v.SetInt(s.i)
	case pcommon.ValueTypeDouble:
		v.SetDouble(s.f)
	case pcommon.ValueTypeBool:
		v.SetBool(s.b)
	}
}

// checkKey returns argument n as an attribute key to write.
func checkKey(L *lua.LState, n int) string {
	return checkLen(L, n, L.CheckString(n), MaxKeyLen)
}

// checkStr returns argument n as a string to write into a field.
func checkStr(L *lua.LState, n int) string {
	return checkLen(L, n, L.CheckString(n), MaxStringLen)
}

func checkLen(L *lua.LState, n int, s string, limit int) string {
	if len(s) > limit {
		L.ArgError(n, "string too long ("+strconv.Itoa(len(s))+" bytes, limit "+strconv.Itoa(limit)+")")
	}
	return s
}
