package otelcol

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// Errors of confmap (mapstructure underneath) and of the collector's
// validation become *decode.Error with the field path in script terms.
// mapstructure nests a *DecodeError per decoder it runs (configoptional
// and other Unmarshalers start their own, with names relative to the
// field), so the path is the concatenation of the names along the chain.

// unmarshalErrors converts an error of confmap's Unmarshal into config t.
func unmarshalErrors(err error, t reflect.Type, values map[string]any) decode.Errors {
	c := converter{root: t, values: values}
	c.walk(err, nil)
	return c.errs
}

type converter struct {
	root   reflect.Type
	values map[string]any
	errs   decode.Errors
}

// walk descends err's tree with the keys met so far.
func (c *converter) walk(err error, keys []string) {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			c.walk(e, keys)
		}
		return
	}
	if de, ok := err.(*mapstructure.DecodeError); ok {
		c.walk(de.Unwrap(), append(keys[:len(keys):len(keys)], nameKeys(de.Name())...))
		return
	}
	if inner := errors.Unwrap(err); inner != nil && structural(inner) {
		c.walk(inner, keys)
		return
	}
	c.leaf(err, keys)
}

// structural reports whether err still holds mapstructure's structure (a
// wrapper such as "decoding failed due to the following error(s)").
func structural(err error) bool {
	var de *mapstructure.DecodeError
	if errors.As(err, &de) {
		return true
	}
	_, ok := err.(interface{ Unwrap() []error })
	return ok
}

var invalidKeys = regexp.MustCompile(`^has invalid keys: (.*)$`)

// leaf records one error at keys.
func (c *converter) leaf(err error, keys []string) {
	path := keysPath(keys)
	msg := err.Error()
	if m := invalidKeys.FindStringSubmatch(msg); m != nil {
		known := configKeys(typeAt(c.root, keys))
		for _, k := range strings.Split(m[1], ", ") {
			e := decode.Errorf(path, "unknown field %q%s", k, script.DidYouMean(k, known))
			e.Key = k // at the key's own line
			c.errs = append(c.errs, e)
		}
		return
	}
	var ute *mapstructure.UnconvertibleTypeError
	if errors.As(err, &ute) {
		c.errs = append(c.errs, decode.Errorf(path, "expected %s, got %s", expectName(ute.Expected.Type()), luaType(ute.Value)))
		return
	}
	var pe *mapstructure.ParseError
	if errors.As(err, &pe) {
		c.errs = append(c.errs, decode.Errorf(path, "invalid %s %s: %v", expectName(pe.Expected.Type()), formatValue(pe.Value), pe.Err))
		return
	}
	v, hasValue := lookup(c.values, keys)
	switch {
	case strings.HasPrefix(msg, "time: ") && hasValue:
		msg = fmt.Sprintf("invalid duration %s: %s (use a number with a unit: \"200ms\", \"1m30s\")", formatValue(v), strings.TrimPrefix(msg, "time: "))
	case strings.HasPrefix(msg, "source data must be an array or slice"):
		msg = "expected list, got " + luaType(v)
	case strings.Contains(msg, "expected a map") && hasValue:
		msg = "expected table, got " + luaType(v)
	case hasValue && !isContainer(v):
		msg = fmt.Sprintf("invalid value %s: %s", formatValue(v), msg)
	}
	c.errs = append(c.errs, decode.Errorf(path, "%s", msg))
}

// typeName matches the Go type names mapstructure uses for the root of a
// decoder ("configgrpc.ServerConfig"), which are no keys.
var typeName = regexp.MustCompile(`^\*?[A-Za-z0-9_]+\.[A-Z][A-Za-z0-9_]*(\[.*\])?$`)

// nameKeys splits a mapstructure name ("protocols.grpc", "actions[0].key",
// "headers[x-token]") into keys; list indices stay numeric strings.
func nameKeys(name string) []string {
	if name == "" || typeName.MatchString(name) {
		return nil
	}
	var keys []string
	for name != "" {
		switch {
		case name[0] == '.':
			name = name[1:]
		case name[0] == '[':
			end := strings.IndexByte(name, ']')
			if end < 0 {
				return append(keys, name)
			}
			keys = append(keys, name[1:end])
			name = name[end+1:]
		default:
			end := strings.IndexAny(name, ".[")
			if end < 0 {
				end = len(name)
			}
			keys = append(keys, name[:end])
			name = name[end:]
		}
	}
	return keys
}

// keysPath writes keys as a script field path: numeric keys are 0-based
// list indices and print 1-based.
func keysPath(keys []string) string {
	path := ""
	for _, k := range keys {
		if i, err := strconv.Atoi(k); err == nil && i >= 0 {
			path = decode.JoinPath(path, i)
		} else {
			path = decode.JoinPath(path, k)
		}
	}
	return path
}

// lookup returns the plain value at keys.
func lookup(v any, keys []string) (any, bool) {
	for _, k := range keys {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// formatValue writes a plain value as a script would.
func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "nil"
	}
	return fmt.Sprint(v)
}

// expectName names what a config field of type t expects, in messages.
func expectName(t reflect.Type) string {
	switch d := deref(t); {
	case d == nil:
		return "value"
	case d.Kind() == reflect.Struct || d.Kind() == reflect.Map:
		return "table"
	case d.Kind() == reflect.Slice:
		return "list"
	default:
		name := decode.TypeName(d)
		if name == "duration" {
			return `duration string like "200ms"`
		}
		return name
	}
}

// validateErrors converts an error of confmap.Validate(cfg) for config t.
// Its errors are joined; each reads "a::b: message" where the path is made
// of mapstructure names, with squashed fields named by their lowercase Go
// name, which are dropped here.
func validateErrors(err error, t reflect.Type) decode.Errors {
	var errs decode.Errors
	list := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	}
	for _, e := range list {
		keys, inner := splitValidatePath(e)
		path := keysPath(fixSquash(t, keys))
		if j, ok := inner.(interface{ Unwrap() []error }); ok {
			for _, ie := range j.Unwrap() {
				errs = append(errs, decode.Errorf(path, "%v", ie))
			}
			continue
		}
		errs = append(errs, decode.Errorf(path, "%v", inner))
	}
	return errs
}

// splitValidatePath separates the path confmap's pathError prefixes from
// the validation error it wraps.
func splitValidatePath(e error) ([]string, error) {
	inner := errors.Unwrap(e)
	if inner == nil {
		return nil, e
	}
	text, msg := e.Error(), inner.Error()
	if text == msg || !strings.HasSuffix(text, ": "+msg) {
		return nil, e
	}
	return strings.Split(strings.TrimSuffix(text, ": "+msg), "::"), inner
}

// fixSquash drops the keys naming squashed structs (confmap.Validate names
// them by their lowercase Go field name) from a validation path.
func fixSquash(t reflect.Type, keys []string) []string {
	var out []string
	for _, k := range keys {
		d := deref(t)
		if sq, ok := shapeOf(d).Squashed[k]; ok {
			t = sq
			continue
		}
		out = append(out, k)
		if d != nil && (d.Kind() == reflect.Slice || d.Kind() == reflect.Array || d.Kind() == reflect.Map) {
			t = d.Elem()
		} else {
			t = childType(t, k)
		}
	}
	return out
}
