// Package confshape reads the shape of the collector's config types as
// confmap decodes them: a field's key is its mapstructure tag name (or
// its Go name when the tag has none), `squash` inlines a struct's fields,
// `,remain` collects unknown keys, and configoptional.Optional[T] holds a
// T. It is the one walk over upstream config structs that flowlua's
// built-in adapter (decoding, strict checks, error paths, descriptions)
// and the native plugins' SDK (shaping script values for confmap) both
// read, so that a component decodes alike in and out of process. It
// depends on nothing but reflect.
package confshape

import (
	"reflect"
	"strings"
)

// Field is one key of a config struct.
type Field struct {
	Key  string
	Type reflect.Type
	// Index is the Go field indices from the struct, through squashed
	// ones.
	Index []int
}

// Struct is the shape of a config struct type, as confmap sees it.
type Struct struct {
	// Fields are its keys, squashed structs inlined, in declaration order.
	Fields []Field
	// Remain is set when a `,remain` field collects unknown keys.
	Remain bool
	// Squashed are the squashed structs' types by lowercase Go field
	// name, which is how confmap.Validate names them in paths.
	Squashed map[string]reflect.Type
}

// Of walks struct type t (after Deref) and the structs it squashes. A
// non-struct has no fields.
func Of(t reflect.Type) Struct {
	var s Struct
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		t = Deref(t)
		if t == nil || t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			sf := t.Field(i)
			name, squash := MapstructureName(sf)
			if !sf.IsExported() && !(sf.Anonymous && squash) {
				continue // an embedded unexported struct is squashed all the same (tail_sampling's policies)
			}
			idx := append(index[:len(index):len(index)], i)
			if strings.Contains(sf.Tag.Get("mapstructure"), ",remain") {
				s.Remain = true
			}
			switch {
			case name == "-":
			case squash:
				if s.Squashed == nil {
					s.Squashed = map[string]reflect.Type{}
				}
				s.Squashed[strings.ToLower(sf.Name)] = sf.Type
				walk(sf.Type, idx)
			default:
				s.Fields = append(s.Fields, Field{Key: name, Type: sf.Type, Index: idx})
			}
		}
	}
	walk(t, nil)
	return s
}

// MapstructureName returns a field's key and whether it is squashed.
func MapstructureName(sf reflect.StructField) (name string, squash bool) {
	tag := sf.Tag.Get("mapstructure")
	parts := strings.Split(tag, ",")
	for _, p := range parts[1:] {
		if p == "squash" {
			squash = true
		}
	}
	name = parts[0]
	if name == "" {
		name = sf.Name
	}
	return name, squash
}

// Deref strips pointers and configoptional.Optional wrappers; nil stays
// nil.
func Deref(t reflect.Type) reflect.Type {
	for t != nil {
		switch {
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		case IsOptional(t):
			f, _ := t.FieldByName("value")
			t = f.Type
		default:
			return t
		}
	}
	return nil
}

// IsOptional reports whether t is a configoptional.Optional[T].
func IsOptional(t reflect.Type) bool {
	return t.Kind() == reflect.Struct &&
		t.PkgPath() == "go.opentelemetry.io/collector/config/configoptional" &&
		strings.HasPrefix(t.Name(), "Optional[")
}

// Child returns the type a key of a table of type t holds: a struct
// field's, a map's values, a list's elements (key ignored); nil when
// unknown.
func Child(t reflect.Type, key string) reflect.Type {
	t = Deref(t)
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, f := range Of(t).Fields {
			if f.Key == key {
				return f.Type
			}
		}
	case reflect.Map, reflect.Slice, reflect.Array:
		return t.Elem()
	}
	return nil
}

// At returns the type at a path of keys below t, or nil.
func At(t reflect.Type, keys []string) reflect.Type {
	for _, k := range keys {
		if t = Child(t, k); t == nil {
			return nil
		}
	}
	return t
}

// IsTable reports whether values of t are written as tables with keys
// (structs and maps) rather than lists.
func IsTable(t reflect.Type) bool {
	t = Deref(t)
	return t != nil && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map)
}

// IsMapList reports whether t is configopaque.MapList, a list of
// name/value pairs that a config may also write as a table.
func IsMapList(t reflect.Type) bool {
	return t != nil && t.PkgPath() == "go.opentelemetry.io/collector/config/configopaque" && t.Name() == "MapList"
}

// IsList reports whether values of t are written as lists.
func IsList(t reflect.Type) bool {
	t = Deref(t)
	return t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && !IsMapList(t)
}

// Shape returns v, a plain value bound for a field of type t (nil when
// unknown), with what a script cannot tell apart made what t takes: an
// empty table is an empty list where t is a list, and an empty list an
// empty table where t is a table (Lua's {} is both).
func Shape(v any, t reflect.Type) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 && IsList(t) {
			return []any{}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Shape(e, Child(t, k))
		}
		return out
	case []any:
		if len(x) == 0 && IsTable(t) {
			return map[string]any{}
		}
		var elem reflect.Type
		if d := Deref(t); d != nil && (d.Kind() == reflect.Slice || d.Kind() == reflect.Array) {
			elem = d.Elem()
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Shape(e, elem)
		}
		return out
	}
	return v
}
