package otelcol

import (
	"reflect"
	"sort"

	"github.com/flowlua/flowlua/pluginsdk/confshape"
)

// The shape of an upstream config type is read by confshape, the one
// walk over upstream config structs that decoding, strict checks, error
// paths and descriptions here, and the native plugins' SDK, all read.

// cfgField is one key of a config struct.
type cfgField = confshape.Field

// shapeOf walks struct type t (after deref) and the structs it squashes.
func shapeOf(t reflect.Type) confshape.Struct { return confshape.Of(t) }

// configFields returns the keys of struct type t.
func configFields(t reflect.Type) []cfgField { return confshape.Of(t).Fields }

// fieldValue returns the field f of the struct v holds, through the
// squashed structs on the way (a nil pointer among them gives a zero value).
func fieldValue(v reflect.Value, f cfgField) reflect.Value {
	for i, idx := range f.Index {
		if i > 0 {
			v, _ = unwrapValue(v)
		}
		v = v.Field(idx)
	}
	return v
}

// configKeys returns the sorted keys of the struct type t.
func configKeys(t reflect.Type) []string {
	var keys []string
	for _, f := range configFields(t) {
		keys = append(keys, f.Key)
	}
	sort.Strings(keys)
	return keys
}

// deref strips pointers and configoptional.Optional wrappers.
func deref(t reflect.Type) reflect.Type { return confshape.Deref(t) }

// isOptional reports whether t is a configoptional.Optional[T].
func isOptional(t reflect.Type) bool { return confshape.IsOptional(t) }

// childType returns the type a key of a table of type t holds, or nil.
func childType(t reflect.Type, key string) reflect.Type { return confshape.Child(t, key) }

// typeAt returns the type at a path of keys below t, or nil.
func typeAt(t reflect.Type, keys []string) reflect.Type { return confshape.At(t, keys) }

// isTable reports whether values of t are written as tables with keys.
func isTable(t reflect.Type) bool { return confshape.IsTable(t) }
