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
// A `doc:"..."` tag documents a field for `flowlua components NAME`.
// A *T with `SetToDefault()` gets its defaults before decoding; a T or *T
// with `Validate() error` is validated after. A type implementing
// Unmarshaler decodes itself.
//
// In check mode values may hold *script.Placeholder: a value whose type is
// known but not its content. A placeholder is type-checked against the
// field and leaves the field at its default.
package decode

import (
	"fmt"
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
		return fmt.Sprintf("%s[%d]", path, e+1) // Lua lists are 1-based
	default:
		if path == "" {
			return fmt.Sprint(e)
		}
		return path + "." + fmt.Sprint(e)
	}
}
