// Package decode turns evaluated script values (see package engine/script)
// into typed Go values: the Arguments of components and the configs of
// services. It is strict: unknown keys, wrong types, missing required
// fields and invalid values are errors carrying the field path.
//
// Struct fields are named by `lua` tags:
//
//	Filename string        `lua:"filename,required"`
//	Timeout  time.Duration `lua:"timeout"`          // "200ms", "1m30s"
//	Mode     string        `lua:"mode" enum:"a,b"`  // one of the listed values
//	Inner    Other         `lua:",squash"`          // fields inlined
//	Skipped  int           `lua:"-"`
//
// Fields without a lua tag are not settable from scripts. A `doc:"..."`
// tag documents a field for `flowlua components NAME` (see Describe). An
// enum applies to a string field or to the strings of a list or map field.
// Invalid tags are programming errors: Decode, Describe and the export
// helpers panic on them, CheckType reports them.
//
// # Values
//
// Decoding follows the Go type of the target:
//
//   - string, bool: a string, a boolean.
//   - ints and uints of every size: a number that is an integer and fits
//     ("expected integer in [0, 255], got 300", "expected integer in
//     [-128, 127], got 1.5").
//   - float32, float64: a number.
//   - time.Duration: a string for time.ParseDuration ("200ms", "1m30s");
//     a number is refused, its unit would be a guess.
//   - slices: a list, decoded element by element; the empty table is an
//     empty list too, since Lua's {} is both.
//   - maps with string keys: a table (or an empty list).
//   - structs: a table of their lua-tagged fields. A key naming no field
//     is an error with a "did you mean" hint; a required field without a
//     value is an error. Tables given for a field merge over its defaults.
//   - pointers: a fresh value is allocated and decoded into.
//   - any: the value as is.
//   - other interfaces (dataplane.Consumer): a Go value implementing them.
//
// A Go value a component exported is taken as is when it is assignable to
// the target; otherwise it decodes like the script value it stands for
// (Go numbers as numbers, strings as strings, slices as lists, maps with
// string keys as tables), and is else refused, named by its Go type.
//
// A value of a type implementing Unmarshaler (with a value or pointer
// receiver) is given to its UnmarshalScript method, as is; the *Error and
// Errors it returns get the current path prefixed to theirs, other errors
// are placed at the current path.
//
// # Defaults and validation
//
// A fresh value (the target, and values allocated for pointers, list
// elements and map values) gets its defaults before decoding: first those
// of its struct fields held by value, recursively, then its own
// SetToDefault() if *T has one. After a value of type T has been decoded
// without errors, Validate() error on T or *T is called; its errors are
// placed like an Unmarshaler's. A field absent from the table is neither
// decoded nor validated. A squashed struct's defaults are applied with
// its outer struct's; Go promotes its methods to the outer type, so an
// embedded SetToDefault, Validate or UnmarshalScript becomes the outer
// type's unless that type declares its own.
//
// # Errors
//
// Decode reports every problem, not the first: it returns Errors sorted by
// path (list indices in numeric order) then message, each with the full
// field path ("client.tls.insecure", "output.traces[2]"; lists are
// 1-based) and a message naming types in script terms (see TypeName):
//
//	tls.insecure: expected boolean, got string
//	timeout: invalid duration "2 seconds": unknown unit " seconds" (use a number with a unit: "200ms", "1m30s")
//	unknown field "timout" (did you mean "timeout"?)
//	missing required field "filename"
//	output.traces[2]: expected dataplane.Consumer, got string
//
// # Placeholders
//
// In check mode values may hold *script.Placeholder: a value whose type is
// known but not its content. A placeholder is type-checked against the
// field: it is accepted when a real value of its Type could decode into
// the field whatever its content (a string for a duration or an enum, a
// float64 for an integer, an interface type for an interface it
// implements), and always when its Type is nil. Otherwise the error names
// where it came from: "expected boolean, got string (from
// file.read.token.content)". A placeholder leaves its field at its
// default and satisfies `required`; Validate is not called on a value
// holding one anywhere inside it. An Unmarshaler is not called for a
// placeholder standing for its whole value; placeholders inside a table
// reach it as they are (see ContainsPlaceholder).
//
// # Describing types
//
// Describe lists a type's fields for `flowlua components NAME`; a type
// implementing Describer lists its own. ExportTypes and ExportValues give
// the engine a component's exports by name, and TypeName names Go types
// in script terms everywhere.
package decode

import (
	"fmt"
	"strconv"
	"strings"
)

// Unmarshaler is a type that decodes itself from a script value (a
// map[string]any for tables). Errors should be *Error or Errors so that
// they carry a field path.
type Unmarshaler interface {
	UnmarshalScript(v any) error
}

// Error is a problem with the value at a field path ("tls.insecure",
// "output.traces[2]"); Path is "" for the top level.
type Error struct {
	Path    string
	Message string
	// Key is the offending key of an unknown-field error (Path is then the
	// table holding it), so that callers can point at the key's own line.
	Key string
}

// Where returns the path of the value the error is about: Path, or the
// unknown key under it.
func (e *Error) Where() string {
	if e.Key == "" {
		return e.Path
	}
	return JoinPath(e.Path, e.Key)
}

// Error returns "path: message".
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Errorf returns an *Error at path.
func Errorf(path, format string, args ...any) *Error {
	return &Error{Path: path, Message: fmt.Sprintf(format, args...)}
}

// Errors is every problem found in one value.
type Errors []*Error

// Error joins the errors with "; ".
func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// JoinPath appends a field name or list index to a path.
func JoinPath(path string, elem any) string {
	switch e := elem.(type) {
	case int:
		return JoinIndex(path, e)
	case string:
		return JoinField(path, e)
	default:
		return JoinField(path, fmt.Sprint(e))
	}
}

// JoinField appends a field name to a path: "tls" + "insecure" is
// "tls.insecure".
func JoinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// JoinIndex appends a list index (0-based) to a path as Lua counts, from
// 1: "keys" + 0 is "keys[1]".
func JoinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i+1) + "]"
}
