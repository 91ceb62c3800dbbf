package decode

import (
	"reflect"

	"github.com/flowlua/flowlua/engine/script"
)

// placeholder type-checks a placeholder against ti: it is accepted when a
// real value of its type could decode into ti, whatever its content.
func (d *decoder) placeholder(ph *script.Placeholder, ti *typeInfo) {
	if ph == nil || ph.Type == nil {
		return // unknown type: anything goes
	}
	want, got, ok := checkType(ph.Type, ti, false)
	if ok {
		return
	}
	from := ""
	if ph.From != "" {
		from = " (from " + ph.From + ")"
	}
	d.fail("expected %s, got %s%s", want, got, from)
}

// checkType reports whether a value of Go type from could decode into ti
// (see normalize for how Go values decode), and else names what ti wants
// and what from is. Inside lists and tables (deep) names are complete:
// "list(boolean)", "list(string)". One difference with real values: an
// empty Go map or slice would pass for an empty list or table (Lua's {}),
// but its type is not taken for the other container.
func checkType(from reflect.Type, ti *typeInfo, deep bool) (want, got string, ok bool) {
	if from.Kind() == reflect.Interface && from.NumMethod() == 0 {
		return "", "", true // any value at all
	}
	if from.AssignableTo(ti.t) {
		return "", "", true
	}
	switch ti.kind {
	case kindAny, kindUnmarshaler:
		return "", "", true // the Unmarshaler will see the real value
	case kindPointer:
		return checkType(from, ti.elem, deep)
	}
	if from.Kind() == reflect.Interface && ti.kind != kindInterface && ti.t.Implements(from) {
		return "", "", true // the value may be of ti's type
	}
	switch c := classOf(from); ti.kind {
	case kindBool:
		ok = c == classBool
	case kindString, kindDuration:
		ok = c == classString // the content (enum, duration) is checked later
	case kindInt, kindUint, kindFloat:
		ok = c == classNumber
	case kindStruct:
		ok = c == classTable // the keys are not known yet
	case kindSlice:
		if c == classList {
			if _, _, ok = checkType(from.Elem(), ti.elem, true); !ok {
				return TypeName(ti.t), goTypeName(from, true), false
			}
		}
	case kindMap:
		if c == classTable {
			if _, _, ok = checkType(from.Elem(), ti.elem, true); !ok {
				return TypeName(ti.t), goTypeName(from, true), false
			}
		}
	}
	if ok {
		return "", "", true
	}
	if deep {
		return TypeName(ti.t), goTypeName(from, true), false
	}
	return expectName(ti), goTypeName(from, false), false
}

// ContainsPlaceholder reports whether v holds a *script.Placeholder,
// looking inside lists and tables. An Unmarshaler may use it: in check
// mode the value it gets can hold placeholders anywhere.
func ContainsPlaceholder(v any) bool {
	switch v := v.(type) {
	case *script.Placeholder:
		return true
	case []any:
		for _, e := range v {
			if ContainsPlaceholder(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if ContainsPlaceholder(e) {
				return true
			}
		}
	}
	return false
}
