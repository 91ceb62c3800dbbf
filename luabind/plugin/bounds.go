package plugin

import (
	"reflect"

	"github.com/flowlua/flowlua/engine/decode"
)

// checkBounds checks the min and max of the fields of a decoded object,
// recursively into objects and lists and maps of objects, and returns
// the violations as decode.Errors at their paths (prefix is the object's).
func checkBounds(obj reflect.Value, fields []*fieldSpec, prefix string) error {
	var errs decode.Errors
	boundsInto(&errs, obj, fields, prefix)
	if len(errs) == 0 {
		return nil
	}
	return errs
}

func boundsInto(errs *decode.Errors, obj reflect.Value, fields []*fieldSpec, prefix string) {
	for i, f := range fields {
		path := f.name
		if prefix != "" {
			path = decode.JoinPath(prefix, f.name)
		}
		boundsValue(errs, obj.Field(i), f, f.typ, path)
	}
}

func boundsValue(errs *decode.Errors, v reflect.Value, f *fieldSpec, t *typeSpec, path string) {
	switch t.kind {
	case tNumber, tInteger:
		var n float64
		if t.kind == tNumber {
			n = v.Float()
		} else {
			n = float64(v.Int())
		}
		switch {
		case f.min != nil && n < *f.min:
			*errs = append(*errs, decode.Errorf(path, "must be at least %s, got %s", formatScript(*f.min, 0), formatScript(n, 0)))
		case f.max != nil && n > *f.max:
			*errs = append(*errs, decode.Errorf(path, "must be at most %s, got %s", formatScript(*f.max, 0), formatScript(n, 0)))
		}
	case tObject:
		boundsInto(errs, v, t.fields, path)
	case tList:
		for i := range v.Len() {
			boundsValue(errs, v.Index(i), f, t.elem, decode.JoinPath(path, i))
		}
	case tMap:
		for it := v.MapRange(); it.Next(); {
			boundsValue(errs, it.Value(), f, t.elem, decode.JoinPath(path, it.Key().String()))
		}
	}
}
