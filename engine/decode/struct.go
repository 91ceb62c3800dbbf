package decode

import (
	"reflect"
	"slices"

	"github.com/flowlua/flowlua/engine/script"
)

// structFields decodes a table into a struct's lua-tagged fields: keys
// that name no field and required fields without a value are errors,
// reported at the struct's path. m may be nil (an empty table).
func (d *decoder) structFields(m map[string]any, dst reflect.Value, ti *typeInfo) (incomplete bool) {
	present := 0
	for i := range ti.fields {
		f := &ti.fields[i]
		v, ok := m[f.name]
		if ok {
			present++
		}
		if v == nil { // absent: Lua tables hold no nil
			if f.required {
				d.fail("missing required field %q", f.name)
			}
			continue
		}
		d.path = append(d.path, segment{key: f.name})
		if d.value(v, dst.FieldByIndex(f.index), f.info, f.enum) {
			incomplete = true
		}
		d.path = d.path[:len(d.path)-1]
	}
	if present < len(m) {
		d.unknownFields(m, ti)
	}
	return incomplete
}

// unknownFields reports the keys of m that name no field, in sorted order.
func (d *decoder) unknownFields(m map[string]any, ti *typeInfo) {
	var unknown []string
	for k := range m {
		if ti.byName[k] == nil {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		d.fail("unknown field %q%s", k, script.DidYouMean(k, ti.names))
		d.errs[len(d.errs)-1].Key = k
	}
}

// applyDefaults gives v, a fresh addressable value of ti's type, its
// defaults: first those of its lua-tagged fields' types (struct fields
// held by value), then its own SetToDefault, which may override them.
func applyDefaults(v reflect.Value, ti *typeInfo) {
	if !ti.hasDefaults {
		return
	}
	for _, f := range ti.inner {
		applyDefaults(v.Field(f.index), f.info)
	}
	// The methods of an unexported embedded struct cannot be called
	// through reflection; Go promotes them to the outer type.
	if ti.setDefault && v.CanInterface() {
		v.Addr().Interface().(defaulter).SetToDefault()
	}
}
