package plugin

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
)

// The arguments every Lua component gets besides its own, and those of
// data components. Their names are reserved.
const (
	argTimeout     = "timeout"
	argOnError     = "on_error"
	argConcurrency = "concurrency"
	argOutput      = "output"

	// DefaultTimeout bounds one call into a component's Lua code unless
	// its `timeout` argument says otherwise.
	DefaultTimeout = time.Second
	// MaxConcurrency bounds the `concurrency` argument: the number of Lua
	// states of one component.
	MaxConcurrency = 64
)

// hostFields returns the arguments the host adds to a component's own.
func hostFields(data, output bool) []*fieldSpec {
	fs := []*fieldSpec{{
		name: argTimeout, typ: &typeSpec{kind: tDuration}, def: DefaultTimeout.String(),
		doc: "time limit of one call into the component's Lua code",
	}}
	if data {
		fs = append(fs,
			&fieldSpec{
				name: argOnError, typ: &typeSpec{kind: tString}, def: "pass", enum: []string{"pass", "drop"},
				doc: "what happens to a batch when the Lua code fails: passed on as it is, or dropped",
			},
			&fieldSpec{
				name: argConcurrency, typ: &typeSpec{kind: tInteger}, def: float64(1), min: ptr(1), max: ptr(MaxConcurrency),
				doc: "Lua states processing batches in parallel (each has its own globals)",
			})
	}
	if data && output {
		fs = append(fs, &fieldSpec{
			name: argOutput, typ: &typeSpec{kind: tOutput},
			doc: "where batches are sent (emit, or returned by on_traces, on_metrics, on_logs)",
		})
	}
	return fs
}

func ptr(f float64) *float64 { return &f }

// schema is the component.Schema of a Lua component: its arguments and
// exports decode into struct types built from its declarations, so that
// they are checked with the rules and messages of package engine/decode.
type schema struct {
	args        *typeSpec // an object
	exports     *typeSpec // an object; data components have "input"
	argIndex    map[string]int
	exportIndex map[string]int
	data        bool
}

var _ component.Schema = (*schema)(nil)

// newSchema builds the schema of a component from its declared fields
// (already checked against the reserved names).
func newSchema(args, exports []*fieldSpec, data, output bool) *schema {
	all := append(slices.Clone(args), hostFields(data, output)...)
	slices.SortFunc(all, func(a, b *fieldSpec) int { return strings.Compare(a.name, b.name) })
	s := &schema{args: &typeSpec{kind: tObject, fields: all}, data: data, argIndex: map[string]int{}}
	s.args.resolve()
	for i, f := range all {
		s.argIndex[f.name] = i
	}
	exp := slices.Clone(exports)
	if data {
		exp = append(exp, &fieldSpec{name: "input", typ: &typeSpec{kind: tConsumer}, doc: "where other components send data to this one"})
		slices.SortFunc(exp, func(a, b *fieldSpec) int { return strings.Compare(a.name, b.name) })
	}
	s.exports = &typeSpec{kind: tObject, fields: exp}
	s.exports.resolve()
	s.exportIndex = map[string]int{}
	for i, f := range exp {
		s.exportIndex[f.name] = i
	}
	return s
}

// DecodeArgs applies the declared defaults to v, an evaluated script
// value, and decodes it into the arguments struct.
func (s *schema) DecodeArgs(v any) (component.Arguments, error) {
	m, ok := v.(map[string]any)
	if !ok && v != nil {
		// Let decode report the wrong type.
		target := reflect.New(s.args.rt)
		return nil, decode.Decode(v, target.Interface())
	}
	if m == nil {
		m = map[string]any{}
	}
	target := reflect.New(s.args.rt)
	if err := decode.Decode(withDefaults(m, s.args.fields), target.Interface()); err != nil {
		return nil, err
	}
	args := target.Elem()
	if !decode.ContainsPlaceholder(m) {
		if err := checkBounds(args, s.args.fields, ""); err != nil {
			return nil, err
		}
	}
	if i, ok := s.argIndex[argTimeout]; ok && args.Field(i).Int() <= 0 {
		return nil, decode.Errors{decode.Errorf(argTimeout, "must be positive, got %s", time.Duration(args.Field(i).Int()))}
	}
	return args.Interface(), nil
}

// ExportTypes returns the Go type of each export.
func (s *schema) ExportTypes() map[string]reflect.Type {
	return decode.ExportTypes(s.exports.rt)
}

// Describe documents the arguments and exports as for Go components,
// with the declared defaults.
func (s *schema) Describe() (args, exports []decode.Field) {
	defaults := map[string]string{}
	collectDefaults(defaults, "", s.args.fields)
	args = decode.Describe(s.args.rt)
	for i := range args {
		if d, ok := defaults[args[i].Path]; ok {
			args[i].Default = d
		}
	}
	return args, decode.Describe(s.exports.rt)
}

// hostArg returns the value of a host argument of decoded arguments.
func (s *schema) hostArg(args reflect.Value, name string) (reflect.Value, bool) {
	i, ok := s.argIndex[name]
	if !ok {
		return reflect.Value{}, false
	}
	return args.Field(i), true
}

// collectDefaults records the formatted default of every field by the
// path decode.Describe gives it.
func collectDefaults(out map[string]string, prefix string, fields []*fieldSpec) {
	for _, f := range fields {
		p := decode.JoinPath(prefix, f.name)
		if prefix == "" {
			p = f.name
		}
		if f.def != nil {
			out[p] = formatScript(f.def, 0)
		}
		t := f.typ
		for t.kind == tList || t.kind == tMap {
			if t.kind == tList {
				p += "[]"
			} else {
				p += ".<key>"
			}
			t = t.elem
		}
		if t.kind == tObject {
			collectDefaults(out, p, t.fields)
		}
	}
}

// withDefaults returns m with the defaults of fields filled in where m
// has no value, recursively into objects and lists and maps of objects.
// m is not modified: changed tables are copies.
func withDefaults(m map[string]any, fields []*fieldSpec) map[string]any {
	out := m
	copied := false
	set := func(k string, v any) {
		if !copied {
			out = make(map[string]any, len(m)+len(fields))
			for k, v := range m {
				out[k] = v
			}
			copied = true
		}
		out[k] = v
	}
	for _, f := range fields {
		v, ok := m[f.name]
		if !ok || v == nil {
			if f.def != nil {
				set(f.name, deepCopy(f.def))
			}
			continue
		}
		if nv, changed := fillNested(v, f.typ); changed {
			set(f.name, nv)
		}
	}
	return out
}

// fillNested applies defaults inside v, a value of type t.
func fillNested(v any, t *typeSpec) (any, bool) {
	if t.object() == nil {
		return v, false
	}
	switch t.kind {
	case tObject:
		if m, ok := v.(map[string]any); ok {
			nm := withDefaults(m, t.fields)
			return nm, !sameMap(nm, m)
		}
	case tList:
		if l, ok := v.([]any); ok {
			var out []any
			for i, e := range l {
				if ne, changed := fillNested(e, t.elem); changed {
					if out == nil {
						out = slices.Clone(l)
					}
					out[i] = ne
				}
			}
			if out != nil {
				return out, true
			}
		}
	case tMap:
		if m, ok := v.(map[string]any); ok {
			var out map[string]any
			for k, e := range m {
				if ne, changed := fillNested(e, t.elem); changed {
					if out == nil {
						out = make(map[string]any, len(m))
						for k, v := range m {
							out[k] = v
						}
					}
					out[k] = ne
				}
			}
			if out != nil {
				return out, true
			}
		}
	}
	return v, false
}

// sameMap reports whether a and b are the same map value.
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// deepCopy copies the lists and tables of a script value.
func deepCopy(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	}
	return v
}
