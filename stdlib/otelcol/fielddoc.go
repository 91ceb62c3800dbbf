package otelcol

import "reflect"

//go:generate go run ./internal/gendoc

// fieldDoc returns the upstream description of the config field f of the
// struct type t (fielddoc_gen.go, generated from the upstream sources'
// field comments), or "".
func fieldDoc(t reflect.Type, f cfgField) string {
	owner := t
	for i, idx := range f.Index {
		owner = deref(owner)
		if owner == nil || owner.Kind() != reflect.Struct {
			return ""
		}
		if i == len(f.Index)-1 {
			return fieldDocs()[owner.PkgPath()+"."+owner.Name()+"."+owner.Field(idx).Name]
		}
		owner = owner.Field(idx).Type
	}
	return ""
}
