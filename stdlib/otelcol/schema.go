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
	key string
	typ reflect.Type
}

// configFields returns the keys of struct type t (after deref), squashed
// structs inlined, in declaration order.
func configFields(t reflect.Type) []cfgField {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []cfgField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, squash := mapstructureName(sf)
		if name == "-" {
			continue
		}
		if squash {
			out = append(out, configFields(sf.Type)...)
			continue
		}
		out = append(out, cfgField{key: name, typ: sf.Type})
	}
	return out
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
