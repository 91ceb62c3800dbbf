package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// Kind is the kind of a Type.
type Kind int

// The kinds of types, named in Lua as their lowercase names; list(T) and
// map(T) take the type of their elements.
const (
	KindString   Kind = iota // "string"
	KindNumber               // "number": float64
	KindInteger              // "integer": int64
	KindBoolean              // "boolean"
	KindDuration             // "duration": "200ms" in scripts, seconds in Lua
	KindAny                  // "any": any script value
	KindTable                // "table": any Lua table, as a Table
	KindConsumer             // "consumer": a component's input, a dataplane.Consumer
	KindOutput               // "output": { traces = {...}, ... }, a dataplane.Output
	KindObject               // "object": the fields of Type.Fields
	KindList                 // "list(T)"
	KindMap                  // "map(T)": string keys
)

// scalarTypes are the type names that take no parameter.
var scalarTypes = map[string]Kind{
	"string":   KindString,
	"number":   KindNumber,
	"integer":  KindInteger,
	"boolean":  KindBoolean,
	"duration": KindDuration,
	"any":      KindAny,
	"table":    KindTable,
	"consumer": KindConsumer,
	"output":   KindOutput,
	"object":   KindObject,
}

// typeNames lists every type name, for "did you mean" hints.
var typeNames = []string{"any", "boolean", "consumer", "duration", "integer", "list(T)", "map(T)", "number", "object", "output", "string", "table"}

// Type is a type of the schema language. Build types with ParseType or
// ParseFields (or ObjectOf, for an object of fields); a type is not
// modified once its Go type is resolved.
type Type struct {
	Kind   Kind
	Elem   *Type    // KindList and KindMap
	Fields []*Field // KindObject, sorted by name
	rt     reflect.Type
}

// Field is one field of an object: an argument or export of a component,
// or a field of an object inside one.
type Field struct {
	Name     string
	Type     *Type
	Required bool
	Default  any // the default as a script value; nil for none
	Enum     []string
	Doc      string
	Min, Max *float64 // bounds of a number or integer
}

// ObjectOf returns the object type of fields, sorted by name, with its Go
// type resolved.
func ObjectOf(fields []*Field) *Type {
	fields = slices.Clone(fields)
	slices.SortFunc(fields, func(a, b *Field) int { return strings.Compare(a.Name, b.Name) })
	t := &Type{Kind: KindObject, Fields: fields}
	t.resolve()
	return t
}

// GoType returns the Go type values of t decode into (package
// engine/decode): a struct with one field per Field, in order, for
// objects; []T and map[string]T for lists and maps.
func (t *Type) GoType() reflect.Type {
	if t.rt == nil {
		t.resolve()
	}
	return t.rt
}

// ParseType parses "list(map(string))" and the like. An object (alone or
// as the element of lists and maps) takes its fields from fields.
func ParseType(s string) (*Type, error) {
	s = strings.TrimSpace(s)
	for _, c := range []struct {
		prefix string
		kind   Kind
	}{{"list(", KindList}, {"map(", KindMap}} {
		if inner, ok := strings.CutPrefix(s, c.prefix); ok {
			inner, ok = strings.CutSuffix(inner, ")")
			if !ok {
				return nil, fmt.Errorf("type %q: missing closing parenthesis", s)
			}
			elem, err := ParseType(inner)
			if err != nil {
				return nil, err
			}
			return &Type{Kind: c.kind, Elem: elem}, nil
		}
	}
	k, ok := scalarTypes[s]
	if !ok {
		return nil, fmt.Errorf("unknown type %q%s (types: %s)", s, didYouMean(s, typeNames), strings.Join(typeNames, ", "))
	}
	return &Type{Kind: k}, nil
}

// object returns the object this type holds, alone or as the element of
// lists and maps, or nil.
func (t *Type) object() *Type {
	for t != nil {
		if t.Kind == KindObject {
			return t
		}
		t = t.Elem
	}
	return nil
}

var (
	consumerType = reflect.TypeFor[dataplane.Consumer]()
	outputType   = reflect.TypeFor[dataplane.Output]()
	anyType      = reflect.TypeFor[any]()
	tableType    = reflect.TypeFor[Table]()
	durationType = reflect.TypeFor[time.Duration]()
)

// resolve computes the Go types of t and everything inside it.
func (t *Type) resolve() reflect.Type {
	switch t.Kind {
	case KindString:
		t.rt = reflect.TypeFor[string]()
	case KindNumber:
		t.rt = reflect.TypeFor[float64]()
	case KindInteger:
		t.rt = reflect.TypeFor[int64]()
	case KindBoolean:
		t.rt = reflect.TypeFor[bool]()
	case KindDuration:
		t.rt = durationType
	case KindAny:
		t.rt = anyType
	case KindTable:
		t.rt = tableType
	case KindConsumer:
		t.rt = consumerType
	case KindOutput:
		t.rt = outputType
	case KindList:
		t.rt = reflect.SliceOf(t.Elem.resolve())
	case KindMap:
		t.rt = reflect.MapOf(reflect.TypeFor[string](), t.Elem.resolve())
	case KindObject:
		t.rt = structOf(t.Fields)
	}
	return t.rt
}

// structOf builds the struct type of a list of fields: one exported Go
// field per field, named by a `lua` tag, so that package engine/decode
// decodes, type-checks and describes it exactly like a Go component's
// arguments.
func structOf(fields []*Field) reflect.Type {
	sfs := make([]reflect.StructField, len(fields))
	for i, f := range fields {
		tag := f.Name
		if f.Required {
			tag += ",required"
		}
		parts := []string{"lua:" + quote(tag)}
		if f.Enum != nil {
			parts = append(parts, "enum:"+quote(strings.Join(f.Enum, ",")))
		}
		if doc := fieldDoc(f); doc != "" {
			parts = append(parts, "doc:"+quote(doc))
		}
		sfs[i] = reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: f.Type.resolve(),
			Tag:  reflect.StructTag(strings.Join(parts, " ")),
		}
	}
	return reflect.StructOf(sfs)
}

// fieldDoc is a field's doc with its bounds.
func fieldDoc(f *Field) string {
	var bounds string
	switch {
	case f.Min != nil && f.Max != nil:
		bounds = fmt.Sprintf("from %s to %s", format(*f.Min, 0), format(*f.Max, 0))
	case f.Min != nil:
		bounds = "at least " + format(*f.Min, 0)
	case f.Max != nil:
		bounds = "at most " + format(*f.Max, 0)
	default:
		return f.Doc
	}
	if f.Doc == "" {
		return bounds
	}
	return f.Doc + " (" + bounds + ")"
}

// quote quotes a struct tag value so that reflect.StructTag.Get gives it
// back (it unquotes with strconv.Unquote).
func quote(s string) string {
	return fmt.Sprintf("%q", s)
}

// Table is the Go value of an argument of type "table": any Lua table,
// list or map, as a script value (see package engine/script).
type Table struct {
	Value any
}

var _ decode.Unmarshaler = (*Table)(nil)

// UnmarshalScript accepts a list or a table.
func (t *Table) UnmarshalScript(v any) error {
	switch v.(type) {
	case map[string]any, []any:
		t.Value = v
		return nil
	}
	return &decode.Error{Message: fmt.Sprintf("expected table, got %s", decode.ValueTypeName(v))}
}

// MarshalJSON shows the table's content, for the API.
func (t Table) MarshalJSON() ([]byte, error) { return json.Marshal(t.Value) }
