package otelcol

import (
	"reflect"
	"sort"
	"strings"
)

// The shape of an upstream config type, read from its mapstructure tags as
// confmap reads them: a field's key is its tag name (or its Go name when
// the tag has none), `squash` inlines a struct's fields, and
// configoptional.Optional[T] holds a T.

// cfgField is one key of a config struct.
type cfgField struct {
	key   string
	typ   reflect.Type
	index []int // the Go field indices from the struct, through squashed ones
}

// cfgStruct is the shape of a config struct type, as confmap sees it.
type cfgStruct struct {
	// fields are its keys, squashed structs inlined, in declaration order.
	fields []cfgField
	// remain is set when a `,remain` field collects unknown keys.
	remain bool
	// squashed are the squashed structs' types by lowercase Go field name,
	// which is how confmap.Validate names them in paths.
	squashed map[string]reflect.Type
}

// shapeOf walks struct type t (after deref) and the structs it squashes:
// the one walk over upstream config structs that decoding, strict checks,
// error paths and descriptions all read. A non-struct has no fields.
func shapeOf(t reflect.Type) cfgStruct {
	var s cfgStruct
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		t = deref(t)
		if t == nil || t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			sf := t.Field(i)
			name, squash := mapstructureName(sf)
			if !sf.IsExported() && !(sf.Anonymous && squash) {
				continue // an embedded unexported struct is squashed all the same (tail_sampling's policies)
			}
			idx := append(index[:len(index):len(index)], i)
			if strings.Contains(sf.Tag.Get("mapstructure"), ",remain") {
				s.remain = true
			}
			switch {
			case name == "-":
			case squash:
				if s.squashed == nil {
					s.squashed = map[string]reflect.Type{}
				}
				s.squashed[strings.ToLower(sf.Name)] = sf.Type
				walk(sf.Type, idx)
			default:
				s.fields = append(s.fields, cfgField{key: name, typ: sf.Type, index: idx})
			}
		}
	}
	walk(t, nil)
	return s
}

// configFields returns the keys of struct type t: see cfgStruct.fields.
func configFields(t reflect.Type) []cfgField { return shapeOf(t).fields }

// fieldValue returns the field f of the struct v holds, through the
// squashed structs on the way (a nil pointer among them gives a zero value).
func fieldValue(v reflect.Value, f cfgField) reflect.Value {
	for i, idx := range f.index {
		if i > 0 {
			v, _ = unwrapValue(v)
		}
		v = v.Field(idx)
	}
	return v
}

// mapstructureName returns a field's key and whether it is squashed.
func mapstructureName(sf reflect.StructField) (name string, squash bool) {
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

// configKeys returns the sorted keys of the struct type t.
func configKeys(t reflect.Type) []string {
	var keys []string
	for _, f := range configFields(t) {
		keys = append(keys, f.key)
	}
	sort.Strings(keys)
	return keys
}

// deref strips pointers and configoptional.Optional wrappers.
func deref(t reflect.Type) reflect.Type {
	for t != nil {
		switch {
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		case isOptional(t):
			f, _ := t.FieldByName("value")
			t = f.Type
		default:
			return t
		}
	}
	return nil
}

// isOptional reports whether t is a configoptional.Optional[T].
func isOptional(t reflect.Type) bool {
	return t.Kind() == reflect.Struct &&
		t.PkgPath() == "go.opentelemetry.io/collector/config/configoptional" &&
		strings.HasPrefix(t.Name(), "Optional[")
}

// childType returns the type a key of a table of type t holds: a struct
// field's, a map's values, a list's elements (key ignored); nil when
// unknown.
func childType(t reflect.Type, key string) reflect.Type {
	t = deref(t)
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, f := range configFields(t) {
			if f.key == key {
				return f.typ
			}
		}
	case reflect.Map, reflect.Slice, reflect.Array:
		return t.Elem()
	}
	return nil
}

// typeAt returns the type at a path of keys below t, or nil.
func typeAt(t reflect.Type, keys []string) reflect.Type {
	for _, k := range keys {
		if t = childType(t, k); t == nil {
			return nil
		}
	}
	return t
}

// isTable reports whether values of t are written as tables with keys
// (structs and maps) rather than lists.
func isTable(t reflect.Type) bool {
	t = deref(t)
	return t != nil && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map)
}
