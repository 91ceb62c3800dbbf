package decode

import (
	"encoding"
	"encoding/json"
	"reflect"
	"time"
)

// Redacted is what Encode shows in place of a secret.
const Redacted = "(secret)"

// EncodeOptions adjust Encode.
type EncodeOptions struct {
	// Describe names a value that is not data (a consumer, a function, a
	// pointer to a struct without lua tags), e.g. as the reference a
	// script would write for it. It is not called for data. When it is
	// nil or returns false, the value is shown by its Go type: "<*pkg.T>".
	Describe func(v any) (string, bool)
	// Secret reports whether a string must be shown as Redacted, e.g.
	// because it holds the exports of a secret component.
	Secret func(s string) bool
}

// Encode turns a Go value (arguments, exports) into the script value it
// stands for, ready for encoding/json: the inverse of Decode, for showing
// values in the API.
//
//   - nil, booleans and strings are themselves; numbers of every Go type
//     are float64, as in scripts; time.Duration is its string ("200ms").
//   - structs with lua-tagged fields are tables by lua name (squashed
//     fields inlined); a field tagged `secret:"true"` shows Redacted
//     unless it holds its zero value.
//   - slices and arrays are lists ([]byte is a string); maps with string
//     keys are tables.
//   - pointers and interfaces are what they point to or hold.
//   - a json.Marshaler is what its JSON decodes to; an
//     encoding.TextMarshaler (time.Time, net.IP, ...) is its text.
//   - anything else is not data: see EncodeOptions.Describe.
//
// A struct type with invalid lua tags (see CheckType) is not data here:
// Encode never panics on a value.
func Encode(v any, opts EncodeOptions) any {
	e := encoder{opts: opts}
	return e.value(reflect.ValueOf(v), 0)
}

// maxEncodeDepth bounds the nesting Encode follows: a pointer cycle ends
// there instead of looping.
const maxEncodeDepth = 32

type encoder struct {
	opts EncodeOptions
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func (e *encoder) value(rv reflect.Value, depth int) any {
	if !rv.IsValid() {
		return nil
	}
	if depth > maxEncodeDepth {
		return "<...>"
	}
	switch rv.Kind() {
	case reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return e.value(rv.Elem(), depth+1)
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		elem := rv.Elem()
		switch {
		case !isData(elem.Type()):
			return e.describe(rv)
		case hasLuaFields(elem.Type()):
			return e.structValue(elem, depth+1)
		case rv.CanInterface() && rv.Type().Implements(jsonMarshalerType):
			return e.marshaler(rv)
		case rv.CanInterface() && rv.Type().Implements(textMarshalerType):
			return e.text(rv)
		}
		return e.value(elem, depth+1)
	}
	t := rv.Type()
	switch {
	case t == durationType:
		return e.str(time.Duration(rv.Int()).String())
	case hasLuaFields(t):
		return e.structValue(rv, depth)
	case rv.CanInterface() && t.Implements(jsonMarshalerType):
		return e.marshaler(rv)
	case rv.CanInterface() && t.Implements(textMarshalerType):
		return e.text(rv)
	}
	switch t.Kind() {
	case reflect.Bool:
		return rv.Bool()
	case reflect.String:
		return e.str(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			if t.Kind() == reflect.Slice {
				return e.str(string(rv.Bytes()))
			}
		}
		if t.Kind() == reflect.Slice && rv.IsNil() {
			return []any{}
		}
		list := make([]any, rv.Len())
		for i := range list {
			list[i] = e.value(rv.Index(i), depth+1)
		}
		return list
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return e.describe(rv)
		}
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[it.Key().String()] = e.value(it.Value(), depth+1)
		}
		return m
	}
	return e.describe(rv)
}

// structValue encodes a struct with lua-tagged fields as a table.
func (e *encoder) structValue(rv reflect.Value, depth int) map[string]any {
	ti := infoOf(rv.Type())
	m := make(map[string]any, len(ti.fields))
	for _, f := range ti.fields {
		fv, ok := fieldByIndex(rv, f.index)
		if !ok {
			m[f.name] = nil
			continue
		}
		if rv.Type().FieldByIndex(f.index).Tag.Get("secret") == "true" && !fv.IsZero() {
			m[f.name] = Redacted
			continue
		}
		m[f.name] = e.value(fv, depth+1)
	}
	return m
}

// fieldByIndex is reflect.Value.FieldByIndex that reports a nil embedded
// pointer on the way instead of panicking.
func fieldByIndex(rv reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return reflect.Value{}, false
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv, true
}

// text encodes an encoding.TextMarshaler as its text.
func (e *encoder) text(rv reflect.Value) any {
	b, err := rv.Interface().(encoding.TextMarshaler).MarshalText()
	if err != nil {
		return e.describe(rv)
	}
	return e.str(string(b))
}

// marshaler encodes a json.Marshaler as the script value of its JSON.
func (e *encoder) marshaler(rv reflect.Value) any {
	data, err := rv.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return e.describe(rv)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return e.describe(rv)
	}
	return e.redactAll(v)
}

// redactAll applies Secret to every string of a decoded JSON value.
func (e *encoder) redactAll(v any) any {
	switch v := v.(type) {
	case string:
		return e.str(v)
	case []any:
		for i := range v {
			v[i] = e.redactAll(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = e.redactAll(v[k])
		}
	}
	return v
}

// str is a string, redacted when Secret says so.
func (e *encoder) str(s string) any {
	if e.opts.Secret != nil && e.opts.Secret(s) {
		return Redacted
	}
	return s
}

// describe names a value that is not data.
func (e *encoder) describe(rv reflect.Value) any {
	if e.opts.Describe != nil && rv.CanInterface() {
		if s, ok := e.opts.Describe(rv.Interface()); ok {
			return s
		}
	}
	return "<" + rv.Type().String() + ">"
}

// isData reports whether a pointer to t is followed by Encode rather than
// described: what it points to is a value with a script form.
func isData(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		pt := reflect.PointerTo(t)
		return t == durationType || hasLuaFields(t) ||
			pt.Implements(jsonMarshalerType) || pt.Implements(textMarshalerType)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Interface:
		return false
	case reflect.Pointer:
		return isData(t.Elem())
	}
	return true
}

// hasLuaFields reports whether t is a struct with lua-tagged fields. A
// type with invalid tags has none here: showing a value must not panic.
func hasLuaFields(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	ti := infoOf(t)
	return ti.err == nil && len(ti.fields) > 0
}
