package schema

import (
	"reflect"
	"slices"

	"github.com/flowlua/flowlua/engine/decode"
)

// Defaults returns the formatted default of every field of fields (and
// of the objects inside them) by the path decode.Describe gives it.
func Defaults(fields []*Field) map[string]string {
	out := map[string]string{}
	collectDefaults(out, "", fields)
	return out
}

// collectDefaults records the formatted default of every field by the
// path decode.Describe gives it.
func collectDefaults(out map[string]string, prefix string, fields []*Field) {
	for _, f := range fields {
		p := decode.JoinPath(prefix, f.Name)
		if prefix == "" {
			p = f.Name
		}
		if f.Default != nil {
			out[p] = format(f.Default, 0)
		}
		t := f.Type
		for t.Kind == KindList || t.Kind == KindMap {
			if t.Kind == KindList {
				p += "[]"
			} else {
				p += ".<key>"
			}
			t = t.Elem
		}
		if t.Kind == KindObject {
			collectDefaults(out, p, t.Fields)
		}
	}
}

// WithDefaults returns m with the defaults of fields filled in where m
// has no value, recursively into objects and lists and maps of objects.
// m is not modified: changed tables are copies.
func WithDefaults(m map[string]any, fields []*Field) map[string]any {
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
		v, ok := m[f.Name]
		if !ok || v == nil {
			if f.Default != nil {
				set(f.Name, deepCopy(f.Default))
			}
			continue
		}
		if nv, changed := fillNested(v, f.Type); changed {
			set(f.Name, nv)
		}
	}
	return out
}

// fillNested applies defaults inside v, a value of type t.
func fillNested(v any, t *Type) (any, bool) {
	if t.object() == nil {
		return v, false
	}
	switch t.Kind {
	case KindObject:
		if m, ok := v.(map[string]any); ok {
			nm := WithDefaults(m, t.Fields)
			return nm, !sameMap(nm, m)
		}
	case KindList:
		if l, ok := v.([]any); ok {
			var out []any
			for i, e := range l {
				if ne, changed := fillNested(e, t.Elem); changed {
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
	case KindMap:
		if m, ok := v.(map[string]any); ok {
			var out map[string]any
			for k, e := range m {
				if ne, changed := fillNested(e, t.Elem); changed {
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
