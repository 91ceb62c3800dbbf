package otelcol

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/component"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/pluginsdk/confshape"
)

// plainer converts evaluated script values into the plain values confmap
// unmarshals, as YAML would give them.
type plainer struct {
	partial    bool // a placeholder was met (check mode)
	errs       decode.Errors
	extensions []*Extension // the extensions referenced, in order met, once each
}

// table converts the table m whose keys belong to type t.
func (p *plainer) table(path string, m map[string]any, t reflect.Type) map[string]any {
	out := make(map[string]any, len(m))
	for _, k := range script.SortedKeys(m) {
		v, ok := p.value(decode.JoinPath(path, k), m[k], childType(t, k))
		if ok {
			out[k] = v
		}
	}
	return out
}

// value converts v, bound for a field of type t (nil when unknown). It
// returns false when the value is to be left out (nil, or a placeholder
// whose content matters).
func (p *plainer) value(path string, v any, t reflect.Type) (any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case bool:
		return v, true
	case string:
		if isExtensionID(t) {
			p.errs = append(p.errs, decode.Errorf(path, "expected an extension, got string %s: reference it as %s", formatValue(v), extensionRef))
			return nil, false
		}
		return v, true
	case *Extension:
		if !slices.Contains(p.extensions, v) {
			p.extensions = append(p.extensions, v)
		}
		return v.id.String(), true
	case float64:
		if d := deref(t); d != nil && isInteger(d) {
			if err := decode.CheckInteger(v, d); err != nil {
				p.errs = append(p.errs, decode.Errorf(path, "%v", err))
				return nil, false
			}
		}
		return number(v), true
	case map[string]any:
		if len(v) == 0 && confshape.IsList(t) {
			return []any{}, true // Lua's {} is both
		}
		return p.table(path, v, t), true
	case []any:
		if len(v) == 0 && isTable(t) {
			return map[string]any{}, true // Lua's {} is both
		}
		out := make([]any, 0, len(v))
		var elem reflect.Type
		if d := deref(t); d != nil && (d.Kind() == reflect.Slice || d.Kind() == reflect.Array) {
			elem = d.Elem()
		}
		for i, e := range v {
			c, ok := p.value(decode.JoinPath(path, i), e, elem)
			if !ok {
				c = nil // keep the positions of a list
			}
			out = append(out, c)
		}
		return out, true
	case *script.Placeholder:
		return p.placeholder(path, v, t)
	case time.Duration:
		return v.String(), true
	}
	return p.goValue(path, v, t)
}

// placeholder stands in for a value not known in check mode: a string (or
// a value of unknown type) is left out, since its content decides whether
// it parses (durations, ids, enums); other plain types become their zero
// value, so that their type is still checked.
func (p *plainer) placeholder(path string, ph *script.Placeholder, t reflect.Type) (any, bool) {
	from := ""
	if ph.From != "" {
		from = " (from " + ph.From + ")"
	}
	if ph.Type == extensionType {
		// The collector id does not decide whether the config is valid:
		// one derived from the reference keeps the check complete.
		return placeholderID(ph.From), true
	}
	p.partial = true
	if ph.Type == nil {
		return nil, false
	}
	switch ph.Type.Kind() {
	case reflect.String:
		if isExtensionID(t) {
			p.errs = append(p.errs, decode.Errorf(path, "expected an extension, got string%s: reference it as %s", from, extensionRef))
		}
		return nil, false
	case reflect.Bool:
		return false, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return 0, true
	case reflect.Slice:
		return []any{}, true
	case reflect.Map:
		return map[string]any{}, true
	}
	p.errs = append(p.errs, decode.Errorf(path, "expected a string, number, boolean or table, got %s%s", decode.TypeName(ph.Type), from))
	return nil, false
}

// goValue converts a Go value a component exported by its kind.
func (p *plainer) goValue(path string, v any, t reflect.Type) (any, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), true
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return rv.Uint(), true
	case reflect.Float32, reflect.Float64:
		return number(rv.Float()), true
	case reflect.Slice, reflect.Array:
		l := make([]any, rv.Len())
		for i := range l {
			l[i] = rv.Index(i).Interface()
		}
		return p.value(path, l, t)
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			m := make(map[string]any, rv.Len())
			for it := rv.MapRange(); it.Next(); {
				m[it.Key().String()] = it.Value().Interface()
			}
			return p.table(path, m, t), true
		}
	}
	p.errs = append(p.errs, decode.Errorf(path, "expected a string, number, boolean or table, got %T", v))
	return nil, false
}

// number turns a Lua number into an int when it is integral, as YAML
// would have typed it: attributes set from it stay integers.
func number(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int(f)
	}
	return f
}

// luaType names a plain value's type in script terms.
func luaType(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int, int64, uint64, float64:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// extensionRef is how a config references an extension.
const extensionRef = "otelcol.extension.<type>.<label>.id"

var (
	extensionType   = reflect.TypeFor[*Extension]()
	componentIDType = reflect.TypeFor[component.ID]()
)

// isExtensionID reports whether a config field of type t names an
// extension: its type is the collector's component.ID.
func isExtensionID(t reflect.Type) bool { return deref(t) == componentIDType }

// placeholderID is a collector id standing for the extension a reference
// ("otelcol.extension.file_storage.q.id") names, in check mode.
func placeholderID(from string) string {
	name := strings.TrimSuffix(from, ".id")
	if i := strings.Index(name, "otelcol.extension."); i >= 0 {
		typ, label, _ := strings.Cut(name[i+len("otelcol.extension."):], ".")
		if t, err := component.NewType(typ); err == nil {
			if label = name[:i] + label; label == "" {
				return component.NewID(t).String()
			}
			return component.NewIDWithName(t, label).String()
		}
	}
	return "extension"
}

// isInteger reports whether t is an integer type other than a duration
// (durations take strings, and numbers as nanoseconds like the
// collector's YAML).
func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return t != reflect.TypeFor[time.Duration]()
	}
	return false
}
