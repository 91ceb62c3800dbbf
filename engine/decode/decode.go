package decode

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/flowlua/flowlua/engine/script"
)

// Decode decodes the evaluated script value v into target, a non-nil
// pointer, following the rules of the package comment. It returns nil or
// Errors: every problem found, sorted by path, then message. The value
// target points to is treated as fresh: it gets its defaults before v is
// decoded over it.
//
// Decode panics if target's type has invalid tags (see CheckType).
func Decode(v any, target any) error {
	rv := reflect.ValueOf(target)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("decode: target must be a non-nil pointer, got %T", target)
	}
	dst := rv.Elem()
	ti := mustInfo(dst.Type())
	applyDefaults(dst, ti)
	if v == nil {
		if ti.kind != kindStruct && ti.kind != kindUnmarshaler {
			return nil
		}
		v = map[string]any{} // no arguments: required fields are still checked
	}
	d := decoder{path: make([]segment, 0, 8)}
	d.value(v, dst, ti, nil)
	if len(d.errs) == 0 {
		return nil
	}
	// By path, then message: map keys are visited in random order, and
	// "a" + ".b" and "a.b" are one path.
	slices.SortStableFunc(d.errs, func(a, b *Error) int {
		if c := comparePaths(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return d.errs
}

// decoder is the state of one Decode call.
type decoder struct {
	path []segment // of the value being decoded
	errs Errors    // found so far
}

// fail records an error at the current path.
func (d *decoder) fail(format string, args ...any) {
	d.errs = append(d.errs, &Error{Path: formatPath(d.path), Message: fmt.Sprintf(format, args...)})
}

// typeError records that v is not of the type ti wants.
func (d *decoder) typeError(ti *typeInfo, v any) {
	d.fail("expected %s, got %s", expectName(ti), ValueTypeName(v))
}

// addErr records an error returned by an Unmarshaler or a Validate method
// at the current path: an *Error or Errors has its paths prefixed with
// it, any other error is placed at it.
func (d *decoder) addErr(err error) {
	prefix := formatPath(d.path)
	switch e := err.(type) {
	case *Error:
		if e != nil {
			d.errs = append(d.errs, &Error{Path: joinPaths(prefix, e.Path), Message: e.Message, Key: e.Key})
		}
	case Errors:
		for _, e := range e {
			if e != nil {
				d.errs = append(d.errs, &Error{Path: joinPaths(prefix, e.Path), Message: e.Message, Key: e.Key})
			}
		}
	default:
		d.errs = append(d.errs, &Error{Path: prefix, Message: err.Error()})
	}
}

// value decodes v into dst, a settable value of ti's type, and reports
// whether v held a placeholder (the decoded value is then incomplete and
// must not be validated). enum, when set, restricts the strings in v.
func (d *decoder) value(v any, dst reflect.Value, ti *typeInfo, enum []string) (incomplete bool) {
	switch x := v.(type) {
	case *script.Placeholder:
		d.placeholder(x, ti)
		return true
	case nil:
		if ti.kind == kindAny {
			dst.SetZero()
		} else {
			d.typeError(ti, v)
		}
		return false
	case bool, float64, string, []any, map[string]any:
	default:
		// A Go value a component exported: taken as is when it fits,
		// else decoded like the script value it stands for.
		if ti.accepts(reflect.TypeOf(v)) {
			dst.Set(reflect.ValueOf(v))
			return false
		}
		v = normalize(v)
	}

	nerrs := len(d.errs)
	switch ti.kind {
	case kindAny:
		dst.Set(reflect.ValueOf(v))
		incomplete = ContainsPlaceholder(v)
	case kindUnmarshaler:
		if err := dst.Addr().Interface().(Unmarshaler).UnmarshalScript(v); err != nil {
			d.addErr(err)
		}
		incomplete = ContainsPlaceholder(v)
	case kindPointer:
		nv := reflect.New(ti.elem.t)
		applyDefaults(nv.Elem(), ti.elem)
		incomplete = d.value(v, nv.Elem(), ti.elem, enum)
		dst.Set(nv)
	case kindStruct:
		m, ok := v.(map[string]any)
		if !ok && !isEmptyList(v) {
			d.typeError(ti, v)
			break
		}
		incomplete = d.structFields(m, dst, ti)
	case kindSlice:
		incomplete = d.slice(v, dst, ti, enum)
	case kindMap:
		incomplete = d.mapValues(v, dst, ti, enum)
	case kindString:
		d.string(v, dst, ti, enum)
	case kindBool:
		if b, ok := v.(bool); ok {
			dst.SetBool(b)
		} else {
			d.typeError(ti, v)
		}
	case kindInt:
		d.int(v, dst, ti)
	case kindUint:
		d.uint(v, dst, ti)
	case kindFloat:
		d.float(v, dst, ti)
	case kindDuration:
		d.duration(v, dst, ti)
	default: // kindInterface, kindOther: Go values only, and v did not fit
		d.typeError(ti, v)
	}
	if ti.validate && !incomplete && len(d.errs) == nerrs {
		if err := dst.Addr().Interface().(validator).Validate(); err != nil {
			d.addErr(err)
		}
	}
	return incomplete
}
