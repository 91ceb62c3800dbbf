package otelcol

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"reflect"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// Args are the arguments of an otelcol component. A value made by its
// registration's DecodeArgs (or copied from Registration.Args) knows the
// upstream factory it decodes for.
type Args struct {
	// Output is where a receiver or processor sends each signal.
	Output dataplane.Output
	// Config is the upstream config: the factory's defaults with the
	// script's keys unmarshalled over them. It is incomplete and was not
	// validated when the arguments held placeholders (check mode).
	Config component.Config

	kind *kind
	// values are the script's keys other than output, as plain values.
	values map[string]any
	// partial is set when a placeholder stood for a value (check mode).
	partial bool
	// extensions are the extensions the config references.
	extensions []*Extension
	// routes are a connector's named outputs (see connector.go).
	routes routes
}

var _ decode.Unmarshaler = (*Args)(nil)

// UnmarshalScript decodes the script's table: `output` into Output, every
// other key into Config (see the package comment). Errors are
// decode.Errors with field paths.
func (a *Args) UnmarshalScript(v any) error {
	if a.kind == nil {
		return errors.New("otelcol.Args: not made by a registration, it does not know its component")
	}
	d, err := decodeArgs(a.kind, v)
	if err != nil {
		return err
	}
	a.Output, a.Config, a.values, a.partial, a.extensions, a.routes = d.output, d.config, d.values, d.partial, d.extensions, d.routes
	return nil
}

// MarshalJSON writes the arguments for the API: the upstream config as
// confmap marshals it (secrets redacted) and the number of consumers of
// each signal.
func (a Args) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	if a.Config != nil {
		conf := confmap.New()
		if err := conf.Marshal(a.Config); err == nil {
			maps.Copy(out, conf.ToStringMap())
		}
	}
	if len(a.Output.Traces)+len(a.Output.Metrics)+len(a.Output.Logs) > 0 {
		out["output"] = map[string]int{
			"traces":  len(a.Output.Traces),
			"metrics": len(a.Output.Metrics),
			"logs":    len(a.Output.Logs),
		}
	}
	return json.Marshal(out)
}

// decoded is the signal-independent content of an Args.
type decoded struct {
	output     dataplane.Output
	config     component.Config
	values     map[string]any
	partial    bool
	extensions []*Extension // referenced by the config, each once
	routes     routes       // a connector's named outputs
}

// decodeArgs decodes a script table for kind k.
func decodeArgs(k *kind, v any) (decoded, error) {
	var d decoded
	m, err := asTable(v)
	if err != nil {
		return d, err
	}
	var errs decode.Errors
	if k.hasOutput() {
		if ov, ok := m["output"]; ok {
			if k.class == classConnector {
				var rerrs decode.Errors
				ov, d.routes, rerrs = splitRoutes(k, ov)
				errs = append(errs, rerrs...)
			}
			errs = append(errs, flowcomp.DecodeOutput(ov, &d.output, k.name, func(s dataplane.Signal) bool { return k.produces[s] })...)
			m = maps.Clone(m)
			delete(m, "output")
		}
	}
	p := plainer{}
	d.values = p.table("", m, k.configType)
	d.partial = p.partial
	d.extensions = p.extensions
	errs = append(errs, p.errs...)

	d.config = k.factory.CreateDefaultConfig()
	if err := confmap.NewFromStringMap(d.values).Unmarshal(d.config); err != nil {
		errs = append(errs, unmarshalErrors(err, k.configType, d.values)...)
	} else if unknown := unknownKeys(d.values, k.configType); len(unknown) > 0 {
		errs = append(errs, unknown...)
	} else if !d.partial && len(p.errs) == 0 {
		errs = append(errs, validate(k, d.values, d.config)...)
	}
	if len(errs) > 0 {
		return d, errs
	}
	return d, nil
}

// asTable returns the arguments table; Lua's {} may arrive as a list.
func asTable(v any) (map[string]any, error) {
	switch v := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	case []any:
		if len(v) == 0 {
			return map[string]any{}, nil
		}
	}
	return nil, decode.Errorf("", "expected table, got %s", luaType(v))
}

// validate runs the collector's validation of cfg. Keys that default to
// the data directory (unknown until Build) are validated with a directory
// that exists; Build validates the final config again.
func validate(k *kind, values map[string]any, cfg component.Config) decode.Errors {
	if unset := unsetDataDirs(k, values); len(unset) > 0 {
		var err error
		if cfg, err = withDataDir(k, cfg, values, unset, os.TempDir()); err != nil {
			return decode.Errors{{Message: err.Error()}}
		}
	}
	if err := confmap.Validate(cfg); err != nil {
		return validateErrors(err, k.configType)
	}
	return nil
}

// unsetDataDirs returns k's data-directory keys the script left unset.
func unsetDataDirs(k *kind, values map[string]any) []string {
	var unset []string
	for _, key := range k.dataDirKeys {
		if _, ok := lookup(values, strings.Split(key, ".")); !ok {
			unset = append(unset, key)
		}
	}
	return unset
}

// withDataDir returns cfg with each key set to dir. The decoded config is
// not decoded again: the structs on each key's path are copied and the
// rest is shared. A path that holds more than structs and pointers (never
// so for the registered kinds) falls back to unmarshalling values with
// the keys set over a fresh default config.
func withDataDir(k *kind, cfg component.Config, values map[string]any, keys []string, dir string) (component.Config, error) {
	if out, ok := withStrings(cfg, keys, dir); ok {
		return out, nil
	}
	vals := deepCopy(values).(map[string]any)
	for _, key := range keys {
		parts := strings.Split(key, ".")
		m := vals
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = dir
	}
	out := k.factory.CreateDefaultConfig()
	if err := confmap.NewFromStringMap(vals).Unmarshal(out); err != nil {
		return nil, unmarshalErrors(err, k.configType, vals)
	}
	return out, nil
}

// withStrings returns a copy of the config cfg points to with the string
// fields at the dotted key paths set to s; only the structs along the
// paths are copied. ok is false when a path leads elsewhere than to a
// string through structs and pointers to structs.
func withStrings(cfg component.Config, paths []string, s string) (component.Config, bool) {
	root := reflect.ValueOf(cfg)
	if root.Kind() != reflect.Pointer || root.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	cp := reflect.New(root.Type().Elem())
	cp.Elem().Set(root.Elem())
	for _, p := range paths {
		if !setString(cp.Elem(), strings.Split(p, "."), s) {
			return nil, false
		}
	}
	return cp.Interface(), true
}

// setString sets the string at keys below v, an addressable struct that
// is already a copy, copying the structs it goes through.
func setString(v reflect.Value, keys []string, s string) bool {
	for _, f := range configFields(v.Type()) {
		if f.Key != keys[0] {
			continue
		}
		fv := v
		for i, idx := range f.Index {
			if i > 0 && fv.Kind() != reflect.Struct {
				return false // squashed through a pointer
			}
			fv = fv.Field(idx)
		}
		switch {
		case len(keys) == 1:
			if fv.Kind() != reflect.String {
				return false
			}
			fv.SetString(s)
			return true
		case fv.Kind() == reflect.Struct:
			return setString(fv, keys[1:], s)
		case fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() == reflect.Struct:
			cp := reflect.New(fv.Type().Elem())
			if !fv.IsNil() {
				cp.Elem().Set(fv.Elem())
			}
			fv.Set(cp)
			return setString(cp.Elem(), keys[1:], s)
		}
		return false
	}
	return false
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// joinPath joins two field paths.
func joinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.HasPrefix(b, "["):
		return a + b
	}
	return a + "." + b
}
