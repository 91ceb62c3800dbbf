package plugin

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component/telemetry"
	"github.com/flowlua/flowlua/engine/decode"
)

// typeKind is a type of the schema language of Lua components.
type typeKind int

const (
	tString typeKind = iota
	tNumber
	tInteger
	tBoolean
	tDuration
	tAny
	tTable
	tConsumer
	tOutput
	tObject
	tList
	tMap
)

// scalarTypes are the type names that take no parameter, with their Go
// types (nil: built per schema).
var scalarTypes = map[string]typeKind{
	"string":   tString,
	"number":   tNumber,
	"integer":  tInteger,
	"boolean":  tBoolean,
	"duration": tDuration,
	"any":      tAny,
	"table":    tTable,
	"consumer": tConsumer,
	"output":   tOutput,
	"object":   tObject,
}

// typeNames lists every type name, for "did you mean" hints.
var typeNames = []string{"any", "boolean", "consumer", "duration", "integer", "list(T)", "map(T)", "number", "object", "output", "string", "table"}

// typeSpec is a parsed type of the schema language.
type typeSpec struct {
	kind   typeKind
	elem   *typeSpec    // list and map
	fields []*fieldSpec // object, sorted by name
	rt     reflect.Type // the Go type values decode into
}

// fieldSpec is one argument or export (or a field of an object).
type fieldSpec struct {
	name     string
	typ      *typeSpec
	required bool
	def      any // the default as a script value; nil for none
	enum     []string
	doc      string
	min, max *float64 // bounds of a number or integer
}

// parseType parses "list(map(string))" and the like. An object (alone or
// as the element of lists and maps) takes its fields from fields.
func parseType(s string) (*typeSpec, error) {
	s = strings.TrimSpace(s)
	for _, c := range []struct {
		prefix string
		kind   typeKind
	}{{"list(", tList}, {"map(", tMap}} {
		if inner, ok := strings.CutPrefix(s, c.prefix); ok {
			inner, ok = strings.CutSuffix(inner, ")")
			if !ok {
				return nil, fmt.Errorf("type %q: missing closing parenthesis", s)
			}
			elem, err := parseType(inner)
			if err != nil {
				return nil, err
			}
			return &typeSpec{kind: c.kind, elem: elem}, nil
		}
	}
	k, ok := scalarTypes[s]
	if !ok {
		return nil, fmt.Errorf("unknown type %q%s (types: %s)", s, didYouMean(s, typeNames), strings.Join(typeNames, ", "))
	}
	return &typeSpec{kind: k}, nil
}

// object returns the object this type holds, alone or as the element of
// lists and maps, or nil.
func (t *typeSpec) object() *typeSpec {
	for t != nil {
		if t.kind == tObject {
			return t
		}
		t = t.elem
	}
	return nil
}

var (
	consumerType = reflect.TypeFor[telemetry.Consumer]()
	outputType   = reflect.TypeFor[telemetry.Output]()
	anyType      = reflect.TypeFor[any]()
	tableType    = reflect.TypeFor[Table]()
	durationType = reflect.TypeFor[time.Duration]()
)

// resolve computes the Go types of t and everything inside it.
func (t *typeSpec) resolve() reflect.Type {
	switch t.kind {
	case tString:
		t.rt = reflect.TypeFor[string]()
	case tNumber:
		t.rt = reflect.TypeFor[float64]()
	case tInteger:
		t.rt = reflect.TypeFor[int64]()
	case tBoolean:
		t.rt = reflect.TypeFor[bool]()
	case tDuration:
		t.rt = durationType
	case tAny:
		t.rt = anyType
	case tTable:
		t.rt = tableType
	case tConsumer:
		t.rt = consumerType
	case tOutput:
		t.rt = outputType
	case tList:
		t.rt = reflect.SliceOf(t.elem.resolve())
	case tMap:
		t.rt = reflect.MapOf(reflect.TypeFor[string](), t.elem.resolve())
	case tObject:
		t.rt = structOf(t.fields)
	}
	return t.rt
}

// structOf builds the struct type of a list of fields: one exported Go
// field per field, named by a `lua` tag, so that package engine/decode
// decodes, type-checks and describes it exactly like a Go component's
// arguments.
func structOf(fields []*fieldSpec) reflect.Type {
	sfs := make([]reflect.StructField, len(fields))
	for i, f := range fields {
		tag := f.name
		if f.required {
			tag += ",required"
		}
		parts := []string{"lua:" + quote(tag)}
		if f.enum != nil {
			parts = append(parts, "enum:"+quote(strings.Join(f.enum, ",")))
		}
		if doc := fieldDoc(f); doc != "" {
			parts = append(parts, "doc:"+quote(doc))
		}
		sfs[i] = reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: f.typ.resolve(),
			Tag:  reflect.StructTag(strings.Join(parts, " ")),
		}
	}
	return reflect.StructOf(sfs)
}

// fieldDoc is a field's doc with its bounds.
func fieldDoc(f *fieldSpec) string {
	var bounds string
	switch {
	case f.min != nil && f.max != nil:
		bounds = fmt.Sprintf("from %s to %s", formatScript(*f.min, 0), formatScript(*f.max, 0))
	case f.min != nil:
		bounds = "at least " + formatScript(*f.min, 0)
	case f.max != nil:
		bounds = "at most " + formatScript(*f.max, 0)
	default:
		return f.doc
	}
	if f.doc == "" {
		return bounds
	}
	return f.doc + " (" + bounds + ")"
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
