package decode

import (
	"reflect"
)

// A Go value a component exported (see ExportValues) reaches Decode as
// is. It is taken as is by a field it is assignable to; otherwise it
// stands for the script value of its class (see normalize), so that a Go
// int decodes into a float64 field and a []string into a []any one.

// class is the script value a Go value stands for (see normalize).
type class uint8

const (
	classGo class = iota // no script value: a Go value
	classBool
	classNumber
	classString
	classList
	classTable
)

// classOf returns the class of the values of Go type t.
func classOf(t reflect.Type) class {
	if t == durationType {
		return classGo
	}
	switch t.Kind() {
	case reflect.Bool:
		return classBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return classNumber
	case reflect.String:
		return classString
	case reflect.Slice:
		return classList
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			return classTable
		}
	}
	return classGo
}

// goTypeName names the values of Go type t in messages as ValueTypeName
// names such a value; deep names list and table elements too.
func goTypeName(t reflect.Type, deep bool) string {
	switch classOf(t) {
	case classBool:
		return "boolean"
	case classNumber:
		return "number"
	case classString:
		return "string"
	case classList:
		if deep {
			return "list(" + goTypeName(t.Elem(), true) + ")"
		}
		return "list"
	case classTable:
		if deep {
			return "map(" + goTypeName(t.Elem(), true) + ")"
		}
		return "table"
	}
	return t.String()
}

// maxExact is the largest integer from which every smaller one is a
// float64: 2^53.
const maxExact = 1 << 53

// normalize turns a Go value that did not fit a field into the script
// value it stands for: booleans, numbers and strings of any Go type,
// slices as lists, maps with string keys as tables. Other values
// (structs, pointers, functions, time.Duration, ...) are returned as is.
func normalize(v any) any {
	rv := reflect.ValueOf(v)
	switch classOf(rv.Type()) {
	case classBool:
		return rv.Bool()
	case classNumber:
		// An integer a float64 would round stays an int64 or uint64, so
		// that an integer field gets it exactly or refuses it.
		switch {
		case rv.CanInt():
			if i := rv.Int(); i < -maxExact || i > maxExact {
				return i
			}
			return float64(rv.Int())
		case rv.CanUint():
			if u := rv.Uint(); u > maxExact {
				return u
			}
			return float64(rv.Uint())
		default:
			return rv.Float()
		}
	case classString:
		return rv.String()
	case classList:
		list := make([]any, rv.Len())
		for i := range list {
			list[i] = rv.Index(i).Interface()
		}
		return list
	case classTable:
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[it.Key().String()] = it.Value().Interface()
		}
		return m
	}
	return v
}
