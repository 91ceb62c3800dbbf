package schema

import (
	"reflect"

	"github.com/flowlua/flowlua/engine/decode"
)

// Object types arguments and exports declared in the schema language (a
// module's, or a Lua component's): arguments decode into the struct type
// of their fields, with the rules and messages of package engine/decode.
type Object struct {
	Args    *Type // an object
	Exports *Type // an object
}

// NewObject returns the typing of declared arguments and exports.
func NewObject(args, exports []*Field) *Object {
	return &Object{Args: ObjectOf(args), Exports: ObjectOf(exports)}
}

// DecodeArgs applies the declared defaults to v, an evaluated script
// value, decodes it into the arguments struct and checks the declared
// bounds (unless v holds placeholders: in check mode values are unknown).
func (o *Object) DecodeArgs(v any) (any, error) {
	target := reflect.New(o.Args.GoType())
	m, ok := v.(map[string]any)
	if !ok && v != nil {
		return nil, decode.Decode(v, target.Interface()) // reports the wrong type
	}
	if m == nil {
		m = map[string]any{}
	}
	if err := decode.Decode(WithDefaults(m, o.Args.Fields), target.Interface()); err != nil {
		return nil, err
	}
	args := target.Elem()
	if !decode.ContainsPlaceholder(m) {
		if err := CheckBounds(args, o.Args.Fields, ""); err != nil {
			return nil, err
		}
	}
	return args.Interface(), nil
}

// ExportTypes returns the Go type of each export.
func (o *Object) ExportTypes() map[string]reflect.Type {
	return decode.ExportTypes(o.Exports.GoType())
}

// Describe documents the arguments, with their declared defaults, and the
// exports.
func (o *Object) Describe() (args, exports []decode.Field) {
	defaults := Defaults(o.Args.Fields)
	args = decode.Describe(o.Args.GoType())
	for i := range args {
		if d, ok := defaults[args[i].Path]; ok {
			args[i].Default = d
		}
	}
	return args, decode.Describe(o.Exports.GoType())
}
