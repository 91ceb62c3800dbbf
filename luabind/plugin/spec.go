package plugin

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// fieldNameRE is what argument, export and object field names match.
var fieldNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// specKeys are the keys of a field's table form.
var specKeys = []string{"default", "doc", "enum", "fields", "max", "min", "required", "type"}

// specError is a mistake in a component's schema, at a path of its
// definition table ("args.keys.type").
type specError struct {
	path string
	msg  string
}

func (e *specError) Error() string { return e.path + ": " + e.msg }

func specErrorf(path, format string, args ...any) *specError {
	return &specError{path: path, msg: fmt.Sprintf(format, args...)}
}

// parseFields reads a table of field declarations, each either a type
// string (`keys = "list(string)"`) or a table (`keys = { type =
// "list(string)", default = {}, doc = "..." }`). Fields are returned
// sorted by name.
func parseFields(v lua.LValue, path string) ([]*fieldSpec, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, specErrorf(path, "expected a table of fields, got %s", v.Type())
	}
	var fields []*fieldSpec
	var err error
	t.ForEach(func(k, fv lua.LValue) {
		if err != nil {
			return
		}
		name, ok := k.(lua.LString)
		if !ok {
			err = specErrorf(path, "field names must be strings, got %s %s", k.Type(), k.String())
			return
		}
		var f *fieldSpec
		f, err = parseField(string(name), fv, path+"."+string(name))
		fields = append(fields, f)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(fields, func(a, b *fieldSpec) int { return strings.Compare(a.name, b.name) })
	return fields, nil
}

// parseField reads one field declaration.
func parseField(name string, v lua.LValue, path string) (*fieldSpec, error) {
	if !fieldNameRE.MatchString(name) {
		return nil, specErrorf(path, "invalid field name %q: use lowercase letters, digits and _", name)
	}
	f := &fieldSpec{name: name}
	var typeName string
	var fields lua.LValue = lua.LNil
	switch v := v.(type) {
	case lua.LString:
		typeName = string(v)
	case *lua.LTable:
		var bad string
		v.ForEach(func(k, _ lua.LValue) {
			if s, ok := k.(lua.LString); !ok || !slices.Contains(specKeys, string(s)) {
				if bad == "" || k.String() < bad {
					bad = k.String()
				}
			}
		})
		if bad != "" {
			return nil, specErrorf(path, "unknown key %q%s (a field takes %s)", bad, didYouMean(bad, specKeys), strings.Join(specKeys, ", "))
		}
		tn, ok := v.RawGetString("type").(lua.LString)
		if !ok {
			return nil, specErrorf(path, `missing type: write %s = { type = "string", ... }`, name)
		}
		typeName = string(tn)
		if err := readFieldOptions(f, v, path); err != nil {
			return nil, err
		}
		fields = v.RawGetString("fields")
	default:
		return nil, specErrorf(path, `expected a type string or a table { type = "...", ... }, got %s`, v.Type())
	}
	typ, err := parseType(typeName)
	if err != nil {
		return nil, specErrorf(path, "%v", err)
	}
	f.typ = typ
	obj := typ.object()
	switch {
	case obj != nil && fields == lua.LNil:
		return nil, specErrorf(path, "type %q needs fields = { ... }", typeName)
	case obj == nil && fields != lua.LNil:
		return nil, specErrorf(path+".fields", "only an object (or a list or map of objects) has fields")
	case obj != nil:
		if obj.fields, err = parseFields(fields, path+".fields"); err != nil {
			return nil, err
		}
	}
	if f.enum != nil && !holdsStrings(typ) {
		return nil, specErrorf(path+".enum", "an enum needs a string type (or a list or map of strings), not %q", typeName)
	}
	if inner := innermost(typ); (f.min != nil || f.max != nil) && inner.kind != tNumber && inner.kind != tInteger {
		return nil, specErrorf(path, "min and max apply to numbers and integers, not %q", typeName)
	}
	if f.required && f.def != nil {
		return nil, specErrorf(path, "a required field cannot have a default")
	}
	typ.resolve()
	if f.def != nil {
		if err := checkValue(f, f.def); err != nil {
			return nil, specErrorf(path+".default", "%v", err)
		}
	}
	return f, nil
}

// readFieldOptions reads required, default, enum and doc.
func readFieldOptions(f *fieldSpec, t *lua.LTable, path string) error {
	switch r := t.RawGetString("required").(type) {
	case *lua.LNilType:
	case lua.LBool:
		f.required = bool(r)
	default:
		return specErrorf(path+".required", "expected boolean, got %s", r.Type())
	}
	switch d := t.RawGetString("doc").(type) {
	case *lua.LNilType:
	case lua.LString:
		f.doc = string(d)
	default:
		return specErrorf(path+".doc", "expected string, got %s", d.Type())
	}
	if e := t.RawGetString("enum"); e != lua.LNil {
		list, ok := e.(*lua.LTable)
		if !ok {
			return specErrorf(path+".enum", "expected a list of strings, got %s", e.Type())
		}
		for i := 1; i <= list.Len(); i++ {
			s, ok := list.RawGetInt(i).(lua.LString)
			if !ok || strings.ContainsAny(string(s), ",\"`") || string(s) == "" {
				return specErrorf(path+".enum", "item %d: expected a non-empty string without commas or quotes", i)
			}
			f.enum = append(f.enum, string(s))
		}
		if len(f.enum) == 0 {
			return specErrorf(path+".enum", "expected a non-empty list of strings")
		}
	}
	for _, b := range []struct {
		key string
		dst **float64
	}{{"min", &f.min}, {"max", &f.max}} {
		switch n := t.RawGetString(b.key).(type) {
		case *lua.LNilType:
		case lua.LNumber:
			v := float64(n)
			*b.dst = &v
		default:
			return specErrorf(path+"."+b.key, "expected number, got %s", n.Type())
		}
	}
	if d := t.RawGetString("default"); d != lua.LNil {
		v, err := luaToScript(d, 0)
		if err != nil {
			return specErrorf(path+".default", "%v", err)
		}
		f.def = v
	}
	return nil
}

// innermost returns the element type of lists and maps, or t.
func innermost(t *typeSpec) *typeSpec {
	for t.kind == tList || t.kind == tMap {
		t = t.elem
	}
	return t
}

// holdsStrings reports whether a type is a string, or a list or map of
// strings: the types an enum applies to.
func holdsStrings(t *typeSpec) bool {
	return innermost(t).kind == tString
}

// checkValue decodes v as a value of f's type (with its enum), as
// arguments are decoded: defaults are checked with the rules that apply
// to the values a script gives.
func checkValue(f *fieldSpec, v any) error {
	one := &fieldSpec{name: "value", typ: f.typ, enum: f.enum, min: f.min, max: f.max}
	target := reflect.New(structOf([]*fieldSpec{one}))
	v = withDefaults(map[string]any{"value": v}, []*fieldSpec{one})
	err := decode.Decode(v, target.Interface())
	if err == nil {
		err = checkBounds(target.Elem(), []*fieldSpec{one}, "")
	}
	if err == nil {
		return nil
	}
	var msgs []string
	for _, e := range err.(decode.Errors) {
		p := strings.TrimPrefix(strings.TrimPrefix(e.Path, "value"), ".")
		if p == "" {
			msgs = append(msgs, e.Message)
		} else {
			msgs = append(msgs, p+": "+e.Message)
		}
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// didYouMean is script.DidYouMean.
func didYouMean(name string, candidates []string) string {
	return script.DidYouMean(name, candidates)
}
