package decode

import (
	"reflect"
	"strings"
)

// buildStruct reads the lua-tagged fields of a struct.
func (b *builder) buildStruct(ti *typeInfo) {
	t := ti.t
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("lua")
		if !ok || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		var required, squash bool
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "":
			case "required":
				required = true
			case "squash":
				squash = true
			default:
				b.fail("%s.%s: unknown lua tag option %q", t, sf.Name, o)
			}
		}
		if !sf.IsExported() && !(squash && sf.Anonymous) {
			b.fail("%s.%s: a lua-tagged field must be exported", t, sf.Name)
			continue
		}
		fi := b.build(sf.Type)
		if fi.hasDefaults {
			ti.inner = append(ti.inner, innerField{index: i, info: fi})
		}
		if squash {
			if name != "" || required || fi.kind != kindStruct {
				b.fail("%s.%s: squash takes a struct field without a name or other options", t, sf.Name)
				continue
			}
			for _, f := range fi.fields {
				f.index = append([]int{i}, f.index...)
				b.addField(ti, f)
			}
			continue
		}
		if name == "" {
			b.fail("%s.%s: lua tag without a name", t, sf.Name)
			continue
		}
		f := field{name: name, index: []int{i}, info: fi, required: required, doc: sf.Tag.Get("doc")}
		if e, ok := sf.Tag.Lookup("enum"); ok {
			if !holdsStrings(sf.Type) {
				b.fail("%s.%s: enum needs a string field (or a list or map of strings)", t, sf.Name)
			}
			for _, v := range strings.Split(e, ",") {
				f.enum = append(f.enum, strings.TrimSpace(v))
			}
		}
		b.addField(ti, f)
	}
	ti.byName = make(map[string]*field, len(ti.fields))
	for i := range ti.fields {
		ti.byName[ti.fields[i].name] = &ti.fields[i]
	}
}

// addField appends f to ti's fields, rejecting duplicate names.
func (b *builder) addField(ti *typeInfo, f field) {
	for _, n := range ti.names {
		if n == f.name {
			b.fail("%s: two fields named %q", ti.t, f.name)
			return
		}
	}
	ti.fields = append(ti.fields, f)
	ti.names = append(ti.names, f.name)
}

// holdsStrings reports whether t is a string kind, possibly behind
// pointers, slices and string-keyed maps: the types an enum applies to.
func holdsStrings(t reflect.Type) bool {
	for {
		switch t.Kind() {
		case reflect.String:
			return true
		case reflect.Pointer, reflect.Slice:
			t = t.Elem()
		case reflect.Map:
			if t.Key().Kind() != reflect.String {
				return false
			}
			t = t.Elem()
		default:
			return false
		}
	}
}
