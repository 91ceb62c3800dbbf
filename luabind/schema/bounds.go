package schema

import (
	"reflect"

	"github.com/flowlua/flowlua/engine/decode"
)

// CheckBounds checks the min and max of the fields of a decoded object,
// recursively into objects and lists and maps of objects, and returns
// the violations as decode.Errors at their paths (prefix is the object's).
func CheckBounds(obj reflect.Value, fields []*Field, prefix string) error {
	var errs decode.Errors
	boundsInto(&errs, obj, fields, prefix)
	if len(errs) == 0 {
		return nil
	}
	return errs
}

func boundsInto(errs *decode.Errors, obj reflect.Value, fields []*Field, prefix string) {
	for i, f := range fields {
		path := f.Name
		if prefix != "" {
			path = decode.JoinPath(prefix, f.Name)
		}
		boundsValue(errs, obj.Field(i), f, f.Type, path)
	}
}

func boundsValue(errs *decode.Errors, v reflect.Value, f *Field, t *Type, path string) {
	switch t.Kind {
	case KindNumber, KindInteger:
		var n float64
		if t.Kind == KindNumber {
			n = v.Float()
		} else {
			n = float64(v.Int())
		}
		switch {
		case f.Min != nil && n < *f.Min:
			*errs = append(*errs, decode.Errorf(path, "must be at least %s, got %s", format(*f.Min, 0), format(n, 0)))
		case f.Max != nil && n > *f.Max:
			*errs = append(*errs, decode.Errorf(path, "must be at most %s, got %s", format(*f.Max, 0), format(n, 0)))
		}
	case KindObject:
		boundsInto(errs, v, t.Fields, path)
	case KindList:
		for i := range v.Len() {
			boundsValue(errs, v.Index(i), f, t.Elem, decode.JoinPath(path, i))
		}
	case KindMap:
		for it := v.MapRange(); it.Next(); {
			boundsValue(errs, it.Value(), f, t.Elem, decode.JoinPath(path, it.Key().String()))
		}
	}
}
