package otelcol

import (
	"encoding"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/pluginsdk/confshape"
)

var _ decode.Describer = (*Args)(nil)

// DescribeFields lists the arguments for `flowlua components NAME`:
// `output` for receivers and processors, then the upstream config's keys
// read from its mapstructure tags, with the factory's defaults.
func (a *Args) DescribeFields() []decode.Field {
	k := a.kind
	if k == nil {
		return nil
	}
	var out []decode.Field
	if k.hasOutput() {
		out = append(out, decode.Field{Path: "output", Type: "table", Doc: "where to send each signal"})
		for _, f := range decode.Describe(reflect.TypeFor[dataplane.Output]()) {
			f.Path = "output." + f.Path
			out = append(out, f)
		}
		if k.class == classConnector {
			out = append(out, decode.Field{Path: `output["<signal>/<name>"]`, Type: "list(dataplane.Consumer)", Doc: "a named output: the pipeline <signal>/<name> the config names (routing's table)"})
		}
	}
	d := describer{out: out, active: map[reflect.Type]bool{}}
	d.fields("", reflect.ValueOf(k.factory.CreateDefaultConfig()))
	for i, f := range d.out {
		if slices.Contains(k.dataDirKeys, f.Path) {
			d.out[i].Default = ""
			d.out[i].Doc = "defaults to the component's directory under --storage.path"
		}
	}
	return d.out
}

// describer walks a default config.
type describer struct {
	out    []decode.Field
	active map[reflect.Type]bool // structs being described, against recursion
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// fields describes the keys of the struct v holds (through pointers and
// optionals), under prefix.
func (d *describer) fields(prefix string, v reflect.Value) {
	v, _ = unwrapValue(v)
	if !v.IsValid() || v.Kind() != reflect.Struct || d.active[v.Type()] || strings.Count(prefix, ".") > 8 {
		return
	}
	if readsYAML(v.Type()) {
		if len(d.out) > 0 && d.out[len(d.out)-1].Path == prefix {
			d.out[len(d.out)-1].Doc = "read by the component itself, with the keys of its own format (Prometheus: global, scrape_configs, ...)"
		}
		return
	}
	d.active[v.Type()] = true
	defer delete(d.active, v.Type())
	for _, f := range configFields(v.Type()) {
		n := len(d.out)
		d.field(joinPath(prefix, f.Key), fieldValue(v, f))
		if doc := fieldDoc(v.Type(), f); doc != "" && d.out[n].Doc == "" {
			d.out[n].Doc = doc
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ownKeys(v.Type()))) {
		d.out = append(d.out, decode.Field{Path: joinPath(prefix, k), Type: "table", Doc: "read by the component itself"})
	}
}

// field describes one key and what is inside it.
func (d *describer) field(path string, v reflect.Value) {
	inner, optional := unwrapValue(v)
	f := decode.Field{Path: path, Type: configTypeName(v.Type())}
	switch {
	case optional:
		f.Doc = "off unless given ({} for the defaults)"
	case isExtensionID(v.Type()):
		f.Doc = "reference " + extensionRef
	}
	if inner.IsValid() {
		f.Default = formatDefault(inner)
	}
	d.out = append(d.out, f)
	if !inner.IsValid() || reflect.PointerTo(inner.Type()).Implements(textUnmarshaler) || isMapList(inner.Type()) {
		return
	}
	switch inner.Kind() {
	case reflect.Struct:
		d.fields(path, inner)
	case reflect.Slice, reflect.Map:
		elem := deref(inner.Type().Elem())
		if elem != nil && elem.Kind() == reflect.Struct && !reflect.PointerTo(elem).Implements(textUnmarshaler) {
			suffix := "[]"
			if inner.Kind() == reflect.Map {
				suffix = ".<key>"
			}
			d.fields(path+suffix, reflect.New(elem).Elem())
		}
	}
}

// unwrapValue follows pointers (a nil one gives a fresh zero value) and
// configoptional.Optional (its value, or its default when unset), and
// reports whether an Optional was met.
func unwrapValue(v reflect.Value) (reflect.Value, bool) {
	optional := false
	for v.IsValid() {
		switch {
		case v.Kind() == reflect.Pointer:
			if v.IsNil() {
				v = reflect.New(v.Type().Elem()).Elem()
			} else {
				v = v.Elem()
			}
		case isOptional(v.Type()):
			optional = optional || !v.MethodByName("HasValue").Call(nil)[0].Bool()
			v = optionalDefault(v)
		default:
			return v, optional
		}
	}
	return v, optional
}

// optionalDefault returns the value an Optional holds or would hold when
// enabled, through its exported methods (its fields are unexported).
func optionalDefault(v reflect.Value) (out reflect.Value) {
	cp := reflect.New(v.Type())
	cp.Elem().Set(v)
	defer func() {
		if recover() != nil { // GetOrInsertDefault refuses some types
			out = reflect.New(v.Type().Field(0).Type).Elem()
		}
	}()
	return cp.MethodByName("GetOrInsertDefault").Call(nil)[0]
}

// configTypeName names a config field's type in script terms.
func configTypeName(t reflect.Type) string {
	d := deref(t)
	switch {
	case d == nil:
		return "any"
	case isMapList(d):
		return "map(string)"
	case d == componentIDType:
		return "extension"
	case d != durationType && reflect.PointerTo(d).Implements(textUnmarshaler):
		return "string"
	}
	return decode.TypeName(d)
}

var durationType = reflect.TypeFor[time.Duration]()

// formatDefault writes a default value as a script would, or "" for zero
// values and tables.
func formatDefault(v reflect.Value) string {
	if !v.IsValid() || v.IsZero() {
		return ""
	}
	if v.CanAddr() && v.Addr().CanInterface() {
		if m, ok := v.Addr().Interface().(encoding.TextMarshaler); ok {
			if b, err := m.MarshalText(); err == nil {
				return strconv.Quote(string(b))
			}
		}
	}
	if v.CanInterface() {
		switch m := v.Interface().(type) {
		case encoding.TextMarshaler:
			if b, err := m.MarshalText(); err == nil {
				return strconv.Quote(string(b))
			}
		case fmt.Stringer:
			if v.Kind() == reflect.Struct {
				return strconv.Quote(m.String())
			}
		}
	}
	if s, ok := decode.FormatScalar(v); ok {
		return s
	}
	if v.Kind() == reflect.Slice {
		elems := make([]string, 0, v.Len())
		for i := range v.Len() {
			if s := formatDefault(v.Index(i)); s != "" {
				elems = append(elems, s)
			}
		}
		if len(elems) == 0 {
			return ""
		}
		return "{ " + strings.Join(elems, ", ") + " }"
	}
	return ""
}

// isMapList reports whether t is configopaque.MapList, a list of
// name/value pairs that configs write as a table (headers).
func isMapList(t reflect.Type) bool { return confshape.IsMapList(t) }
