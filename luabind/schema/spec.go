package schema

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

// Error is a mistake in a declaration, at a path of the table that holds
// it ("args.keys.type").
type Error struct {
	Path    string
	Message string
}

// Error returns "path: message".
func (e *Error) Error() string { return e.Path + ": " + e.Message }

// Errorf builds an Error at path.
func Errorf(path, format string, args ...any) *Error {
	return &Error{Path: path, Message: fmt.Sprintf(format, args...)}
}

// ParseFields reads a table of field declarations, each either a type
// string (`keys = "list(string)"`) or a table (`keys = { type =
// "list(string)", default = {}, doc = "..." }`). Fields are returned
// sorted by name.
func ParseFields(v lua.LValue, path string) ([]*Field, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, Errorf(path, "expected a table of fields, got %s", v.Type())
	}
	var fields []*Field
	var err error
	t.ForEach(func(k, fv lua.LValue) {
		if err != nil {
			return
		}
		name, ok := k.(lua.LString)
		if !ok {
			err = Errorf(path, "field names must be strings, got %s %s", k.Type(), k.String())
			return
		}
		var f *Field
		f, err = parseField(string(name), fv, path+"."+string(name))
		fields = append(fields, f)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(fields, func(a, b *Field) int { return strings.Compare(a.Name, b.Name) })
	return fields, nil
}

// parseField reads one field declaration.
func parseField(name string, v lua.LValue, path string) (*Field, error) {
	if !fieldNameRE.MatchString(name) {
		return nil, Errorf(path, "invalid field name %q: use lowercase letters, digits and _", name)
	}
	f := &Field{Name: name}
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
			return nil, Errorf(path, "unknown key %q%s (a field takes %s)", bad, didYouMean(bad, specKeys), strings.Join(specKeys, ", "))
		}
		tn, ok := v.RawGetString("type").(lua.LString)
		if !ok {
			return nil, Errorf(path, `missing type: write %s = { type = "string", ... }`, name)
		}
		typeName = string(tn)
		if err := readFieldOptions(f, v, path); err != nil {
			return nil, err
		}
		fields = v.RawGetString("fields")
	default:
		return nil, Errorf(path, `expected a type string or a table { type = "...", ... }, got %s`, v.Type())
	}
	typ, err := ParseType(typeName)
	if err != nil {
		return nil, Errorf(path, "%v", err)
	}
	f.Type = typ
	obj := typ.object()
	switch {
	case obj != nil && fields == lua.LNil:
		return nil, Errorf(path, "type %q needs fields = { ... }", typeName)
	case obj == nil && fields != lua.LNil:
		return nil, Errorf(path+".fields", "only an object (or a list or map of objects) has fields")
	case obj != nil:
		if obj.Fields, err = ParseFields(fields, path+".fields"); err != nil {
			return nil, err
		}
	}
	if f.Enum != nil && !holdsStrings(typ) {
		return nil, Errorf(path+".enum", "an enum needs a string type (or a list or map of strings), not %q", typeName)
	}
	if inner := innermost(typ); (f.Min != nil || f.Max != nil) && inner.Kind != KindNumber && inner.Kind != KindInteger {
		return nil, Errorf(path, "min and max apply to numbers and integers, not %q", typeName)
	}
	if f.Required && f.Default != nil {
		return nil, Errorf(path, "a required field cannot have a default")
	}
	typ.resolve()
	if f.Default != nil {
		if err := CheckValue(f, f.Default); err != nil {
			return nil, Errorf(path+".default", "%v", err)
		}
	}
	return f, nil
}

// readFieldOptions reads required, default, enum and doc.
func readFieldOptions(f *Field, t *lua.LTable, path string) error {
	switch r := t.RawGetString("required").(type) {
	case *lua.LNilType:
	case lua.LBool:
		f.Required = bool(r)
	default:
		return Errorf(path+".required", "expected boolean, got %s", r.Type())
	}
	switch d := t.RawGetString("doc").(type) {
	case *lua.LNilType:
	case lua.LString:
		f.Doc = string(d)
	default:
		return Errorf(path+".doc", "expected string, got %s", d.Type())
	}
	if e := t.RawGetString("enum"); e != lua.LNil {
		list, ok := e.(*lua.LTable)
		if !ok {
			return Errorf(path+".enum", "expected a list of strings, got %s", e.Type())
		}
		for i := 1; i <= list.Len(); i++ {
			s, ok := list.RawGetInt(i).(lua.LString)
			if !ok || strings.ContainsAny(string(s), ",\"`") || string(s) == "" {
				return Errorf(path+".enum", "item %d: expected a non-empty string without commas or quotes", i)
			}
			f.Enum = append(f.Enum, string(s))
		}
		if len(f.Enum) == 0 {
			return Errorf(path+".enum", "expected a non-empty list of strings")
		}
	}
	for _, b := range []struct {
		key string
		dst **float64
	}{{"min", &f.Min}, {"max", &f.Max}} {
		switch n := t.RawGetString(b.key).(type) {
		case *lua.LNilType:
		case lua.LNumber:
			v := float64(n)
			*b.dst = &v
		default:
			return Errorf(path+"."+b.key, "expected number, got %s", n.Type())
		}
	}
	if d := t.RawGetString("default"); d != lua.LNil {
		v, err := fromLua(d, 0)
		if err != nil {
			return Errorf(path+".default", "%v", err)
		}
		f.Default = v
	}
	return nil
}

// innermost returns the element type of lists and maps, or t.
func innermost(t *Type) *Type {
	for t.Kind == KindList || t.Kind == KindMap {
		t = t.Elem
	}
	return t
}

// holdsStrings reports whether a type is a string, or a list or map of
// strings: the types an enum applies to.
func holdsStrings(t *Type) bool {
	return innermost(t).Kind == KindString
}

// CheckValue decodes v as a value of f's type (with its enum and
// bounds), as arguments are decoded: defaults are checked with the rules
// that apply to the values a script gives.
func CheckValue(f *Field, v any) error {
	one := &Field{Name: "value", Type: f.Type, Enum: f.Enum, Min: f.Min, Max: f.Max}
	target := reflect.New(structOf([]*Field{one}))
	v = WithDefaults(map[string]any{"value": v}, []*Field{one})
	err := decode.Decode(v, target.Interface())
	if err == nil {
		err = CheckBounds(target.Elem(), []*Field{one}, "")
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
