package decode

import (
	"reflect"
)

// ExportTypes returns the Go type of each lua-tagged field of a struct
// type t (or a pointer to one) by its lua name, squashed fields included:
// what the engine type-checks references to exports against. It returns
// an empty map for other types and panics on invalid tags.
func ExportTypes(t reflect.Type) map[string]reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return map[string]reflect.Type{}
	}
	ti := mustInfo(t)
	types := make(map[string]reflect.Type, len(ti.fields))
	for _, f := range ti.fields {
		types[f.name] = f.info.t
	}
	return types
}

// ExportValues returns the lua-tagged fields of a struct value v (or a
// pointer to one) by their lua names, squashed fields included. Values
// are the fields' Go values as they are (an interface field holding
// nothing gives nil). A nil v, or one that is no struct, gives an empty
// map.
func ExportValues(v any) map[string]any {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return map[string]any{}
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return map[string]any{}
	}
	ti := mustInfo(rv.Type())
	values := make(map[string]any, len(ti.fields))
	for _, f := range ti.fields {
		values[f.name] = rv.FieldByIndex(f.index).Interface()
	}
	return values
}
