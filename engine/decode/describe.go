package decode

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Field documents one field of an arguments or config type, for
// `flowlua components NAME`.
type Field struct {
	// Path is the dotted field path: "tls.insecure". Fields of the
	// elements of a list of tables are under "name[]" ("rules[].name"),
	// those of the values of a map of tables under "name.<key>".
	Path string
	// Type is the field's type in script terms (see TypeName), or
	// `one of "a", "b"` for an enum.
	Type string
	// Required is set for fields tagged required.
	Required bool
	// Default is the value SetToDefault gives the field, as written in a
	// script ("200ms" quoted, { "a", "b" } for lists); "" when zero.
	Default string
	// Doc is the field's `doc` tag.
	Doc string
}

// Describer is implemented by types that describe their own fields, such
// as Unmarshalers, which Describe otherwise shows as a single table.
// DescribeFields is called on a fresh value with its defaults applied;
// paths are relative to the value.
type Describer interface {
	DescribeFields() []Field
}

// Describe lists the fields of t (a struct, or a pointer to one) in
// declaration order, nested fields after their parent, squashed fields in
// place. A nil t (no exports) has no fields. It panics if t's tags are
// invalid (see CheckType).
func Describe(t reflect.Type) []Field {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil
	}
	ti := mustInfo(t)
	var out []Field
	describeInner(&out, "", ti, fresh(ti), map[reflect.Type]bool{})
	return out
}

// fresh returns a new addressable value of ti's type with its defaults.
func fresh(ti *typeInfo) reflect.Value {
	v := reflect.New(ti.t).Elem()
	applyDefaults(v, ti)
	return v
}

// describeInner appends the fields inside v, a value of ti's type, to out:
// a Describer's own fields, or a struct's.
func describeInner(out *[]Field, prefix string, ti *typeInfo, v reflect.Value, active map[reflect.Type]bool) {
	if ti.kind != kindInterface && ti.kind != kindAny && reflect.PointerTo(ti.t).Implements(describerType) {
		for _, f := range v.Addr().Interface().(Describer).DescribeFields() {
			f.Path = joinPaths(prefix, f.Path)
			*out = append(*out, f)
		}
		return
	}
	if ti.kind != kindStruct || active[ti.t] {
		return // a recursive type is described once
	}
	active[ti.t] = true
	defer delete(active, ti.t)
	for i := range ti.fields {
		f := &ti.fields[i]
		fv := v.FieldByIndex(f.index)
		p := joinPaths(prefix, f.name)
		*out = append(*out, Field{
			Path:     p,
			Type:     fieldTypeName(f.info.t, f.enum),
			Required: f.required,
			Default:  formatDefault(fv),
			Doc:      f.doc,
		})
		describeNested(out, p, f.info, fv, active)
	}
}

// describeNested appends the fields of the tables a field of ti's type
// holds: a struct's, a pointed-to struct's, or the elements' of a list
// or map of structs.
func describeNested(out *[]Field, p string, ti *typeInfo, v reflect.Value, active map[reflect.Type]bool) {
	switch ti.kind {
	case kindPointer:
		if v.IsNil() {
			describeNested(out, p, ti.elem, fresh(ti.elem), active)
		} else {
			describeNested(out, p, ti.elem, v.Elem(), active)
		}
	case kindStruct, kindUnmarshaler:
		describeInner(out, p, ti, v, active)
	case kindSlice:
		describeElem(out, p+"[]", ti.elem, active)
	case kindMap:
		describeElem(out, p+".<key>", ti.elem, active)
	}
}

// describeElem describes the fields of a fresh list or map element.
func describeElem(out *[]Field, p string, ti *typeInfo, active map[reflect.Type]bool) {
	for ti.kind == kindPointer {
		ti = ti.elem
	}
	if ti.kind == kindStruct || ti.kind == kindUnmarshaler {
		describeInner(out, p, ti, fresh(ti), active)
	}
}

// fieldTypeName is TypeName with the strings of an enum field named by
// their values: `one of "a", "b"`, `list(one of "a", "b")`.
func fieldTypeName(t reflect.Type, enum []string) string {
	if enum == nil {
		return TypeName(t)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return fieldTypeName(t.Elem(), enum)
	case reflect.Slice:
		return "list(" + fieldTypeName(t.Elem(), enum) + ")"
	case reflect.Map:
		return "map(" + fieldTypeName(t.Elem(), enum) + ")"
	}
	return oneOf(enum)
}

// formatDefault formats a default value as a script would write it, or
// returns "" for a zero value and for tables (their fields are listed).
func formatDefault(v reflect.Value) string {
	if v.IsZero() || v.Kind() == reflect.Struct {
		return ""
	}
	return formatValue(v, 0)
}

func formatValue(v reflect.Value, depth int) string {
	if depth > 8 {
		return "..."
	}
	if s, ok := FormatScalar(v); ok {
		return s
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return formatValue(v.Elem(), depth+1)
	case reflect.Slice:
		if v.Len() == 0 {
			return "{}"
		}
		elems := make([]string, v.Len())
		for i := range elems {
			elems[i] = formatValue(v.Index(i), depth+1)
		}
		return "{ " + strings.Join(elems, ", ") + " }"
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			break
		}
		if v.Len() == 0 {
			return "{}"
		}
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		elems := make([]string, len(keys))
		for i, k := range keys {
			kv := reflect.New(v.Type().Key()).Elem()
			kv.SetString(k)
			elems[i] = luaKey(k) + " = " + formatValue(v.MapIndex(kv), depth+1)
		}
		return "{ " + strings.Join(elems, ", ") + " }"
	case reflect.Struct:
		return "{...}"
	}
	if v.CanInterface() {
		return fmt.Sprint(v.Interface())
	}
	return v.Type().String()
}

// FormatScalar writes a string, boolean, number or duration as a script
// would ("200ms" quoted); ok is false for values of any other kind.
func FormatScalar(v reflect.Value) (s string, ok bool) {
	if v.Type() == durationType {
		return strconv.Quote(time.Duration(v.Int()).String()), true
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String()), true
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return formatNumber(v.Float()), true
	}
	return "", false
}

// luaKey writes a table key: name, or ["a.b"] when it is no identifier.
func luaKey(k string) string {
	for i, r := range k {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return k
}
