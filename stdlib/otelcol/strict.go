package otelcol

import (
	"reflect"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/confmap"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// unknownKeys reports the keys of values that name no field of config
// type t. confmap reports most unknown keys itself, but not all: a config
// that squashes a struct with its own Unmarshal (confighttp.ServerConfig
// in the OTLP receiver's `http`) ignores unknown keys, so
// `http = { endpont = ... }` would pass silently. This check runs after
// confmap accepted the values and applies flowlua's rule: unknown keys are
// errors. It skips what it cannot know: structs with a `,remain` field,
// types that unmarshal from text, structs that read keys of their own
// (see readsYAML and ownKeys), and `enabled`, which
// configoptional.Optional reads itself.
func unknownKeys(values map[string]any, t reflect.Type) decode.Errors {
	var errs decode.Errors
	var walk func(keys []string, v any, t reflect.Type)
	walk = func(keys []string, v any, t reflect.Type) {
		d, optional := derefOptional(t)
		if d == nil || d == durationType || reflect.PointerTo(d).Implements(textUnmarshaler) || isMapList(d) || readsYAML(d) {
			return
		}
		switch d.Kind() {
		case reflect.Struct:
			shape := shapeOf(d)
			m, ok := v.(map[string]any)
			if !ok || shape.Remain {
				return
			}
			fields := map[string]reflect.Type{}
			for _, f := range shape.Fields {
				fields[f.Key] = f.Type
			}
			own := ownKeys(d)
			for _, k := range script.SortedKeys(m) {
				ft, ok := fields[k]
				switch {
				case own[k]: // the component's Unmarshal reads it
				case ok:
					walk(append(keys[:len(keys):len(keys)], k), m[k], ft)
				case optional && k == "enabled":
				default:
					e := decode.Errorf(keysPath(keys), "unknown field %q%s", k, script.DidYouMean(k, configKeys(d)))
					e.Key = k // at the key's own line
					errs = append(errs, e)
				}
			}
		case reflect.Map:
			if m, ok := v.(map[string]any); ok {
				for _, k := range script.SortedKeys(m) {
					walk(append(keys[:len(keys):len(keys)], k), m[k], d.Elem())
				}
			}
		case reflect.Slice, reflect.Array:
			if l, ok := v.([]any); ok {
				for i, e := range l {
					walk(append(keys[:len(keys):len(keys)], strconv.Itoa(i)), e, d.Elem())
				}
			}
		}
	}
	walk(nil, values, t)
	return errs
}

// derefOptional is deref that also reports whether an Optional was met.
func derefOptional(t reflect.Type) (reflect.Type, bool) {
	optional := false
	for t != nil {
		switch {
		case t.Kind() == reflect.Pointer:
			t = t.Elem()
		case isOptional(t):
			optional = true
			f, _ := t.FieldByName("value")
			t = f.Type
		default:
			return t, optional
		}
	}
	return nil, optional
}

var confmapUnmarshaler = reflect.TypeFor[confmap.Unmarshaler]()

// readsYAML reports whether struct type t unmarshals itself from keys
// its fields do not name at all: it implements confmap.Unmarshaler and no
// field has a mapstructure tag (the prometheus receiver's config, read as
// Prometheus YAML, which refuses unknown keys itself).
func readsYAML(t reflect.Type) bool {
	if t.Kind() != reflect.Struct || !reflect.PointerTo(t).Implements(confmapUnmarshaler) {
		return false
	}
	for i := range t.NumField() {
		if _, ok := t.Field(i).Tag.Lookup("mapstructure"); ok {
			return false
		}
	}
	return true
}

// ownKeys returns the keys that struct type t's own Unmarshal reads into
// its fields tagged mapstructure:"-", by the field's lower-case name
// (host_metrics' scrapers); nil when there are none.
func ownKeys(t reflect.Type) map[string]bool {
	if !reflect.PointerTo(t).Implements(confmapUnmarshaler) {
		return nil
	}
	var own map[string]bool
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("mapstructure") == "-" {
			if own == nil {
				own = map[string]bool{}
			}
			own[strings.ToLower(f.Name)] = true
		}
	}
	return own
}
