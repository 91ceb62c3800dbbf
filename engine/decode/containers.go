package decode

import (
	"reflect"
)

// slice decodes a list into a slice. Lua's `{}` is both an empty list and
// an empty table, so an empty table is an empty list too.
func (d *decoder) slice(v any, dst reflect.Value, ti *typeInfo, enum []string) (incomplete bool) {
	list, ok := v.([]any)
	if !ok {
		if m, isMap := v.(map[string]any); !isMap || len(m) > 0 {
			d.typeError(ti, v)
			return false
		}
	}
	if len(list) == 0 {
		dst.Set(reflect.MakeSlice(ti.t, 0, 0)) // empty, not nil: given
		return false
	}
	// Grow the field itself rather than Set a new slice: one allocation
	// less. The old slice (a default) is dropped first, not appended to.
	dst.SetZero()
	dst.Grow(len(list))
	dst.SetLen(len(list))
	for i, e := range list {
		ev := dst.Index(i)
		applyDefaults(ev, ti.elem)
		d.path = append(d.path, segment{index: i + 1})
		if d.value(e, ev, ti.elem, enum) {
			incomplete = true
		}
		d.path = d.path[:len(d.path)-1]
	}
	return incomplete
}

// mapValues decodes a table into a map with string keys (an empty list
// counts as an empty table).
func (d *decoder) mapValues(v any, dst reflect.Value, ti *typeInfo, enum []string) (incomplete bool) {
	m, ok := v.(map[string]any)
	if !ok && !isEmptyList(v) {
		d.typeError(ti, v)
		return false
	}
	out := reflect.MakeMapWithSize(ti.t, len(m))
	key := reflect.New(ti.t.Key()).Elem()
	ev := reflect.New(ti.elem.t).Elem()
	for k, e := range m {
		ev.SetZero()
		applyDefaults(ev, ti.elem)
		d.path = append(d.path, segment{key: k})
		if d.value(e, ev, ti.elem, enum) {
			incomplete = true
		}
		d.path = d.path[:len(d.path)-1]
		key.SetString(k)
		out.SetMapIndex(key, ev)
	}
	dst.Set(out)
	return incomplete
}

// isEmptyList reports whether v is a list without elements.
func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}
