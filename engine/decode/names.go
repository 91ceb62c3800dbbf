package decode

import (
	"reflect"
)

// TypeName is the script-language name of a Go type, as messages and
// Describe show it: "string", "number" (floats), "integer" (ints and
// uints), "boolean", "duration", "list(T)", "map(T)" (maps with string
// keys), "table" (structs, and types that decode themselves), "any",
// and the short Go name of an interface ("dataplane.Consumer") or of
// any other type. Pointers are named after what they point to.
func TypeName(t reflect.Type) string {
	return typeName(t, 0)
}

func typeName(t reflect.Type, depth int) string {
	if t == nil {
		return "nil"
	}
	if depth > 8 { // a recursive type such as `type L []L`
		return "..."
	}
	switch {
	case t == durationType:
		return "duration"
	case t.Kind() == reflect.Pointer:
		return typeName(t.Elem(), depth+1)
	case t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(unmarshalerType):
		return "table"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return "list(" + typeName(t.Elem(), depth+1) + ")"
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return "map(" + typeName(t.Elem(), depth+1) + ")"
		}
	case reflect.Struct:
		return "table"
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any"
		}
		if t.Name() == "" {
			return "value"
		}
	}
	return t.String()
}

// expectName names what a field of ti's type expects, in messages:
// containers by their script kind ("list", "table"), their elements being
// checked one by one; everything else by TypeName.
func expectName(ti *typeInfo) string {
	switch ti.kind {
	case kindSlice:
		return "list"
	case kindMap, kindStruct:
		return "table"
	case kindDuration:
		return `duration string like "200ms"`
	case kindPointer:
		return expectName(ti.elem)
	}
	return TypeName(ti.t)
}

// ValueTypeName names the type of a value in messages: its script type,
// or for a Go value its Go type.
func ValueTypeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case bool:
		return "boolean"
	case float64, int64, uint64: // int64, uint64: Go integers beyond 2^53
		return "number"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "table"
	default:
		return reflect.TypeOf(v).String()
	}
}
