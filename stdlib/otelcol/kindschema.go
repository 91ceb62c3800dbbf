package otelcol

import (
	"fmt"
	"reflect"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
)

// A kind is the Schema of its registration: it knows the factory, so the
// arguments it decodes know it too.
var _ flowcomp.Schema = (*kind)(nil)

// DecodeArgs decodes the script's table into an Args for this kind, with
// the rules of package decode (errors sorted by path).
func (k *kind) DecodeArgs(v any) (flowcomp.Arguments, error) {
	a := Args{kind: k}
	if err := decode.Decode(v, &a); err != nil {
		return nil, err
	}
	return a, nil
}

// ExportTypes returns the types of the kind's exports: `input` for
// processors and exporters, `id` for extensions, none for receivers.
func (k *kind) ExportTypes() map[string]reflect.Type {
	if k.exports == nil {
		return nil
	}
	return decode.ExportTypes(reflect.TypeOf(k.exports))
}

// Describe documents the arguments (see Args.DescribeFields) and exports.
func (k *kind) Describe() (args, exports []decode.Field) {
	a := Args{kind: k}
	args = a.DescribeFields()
	if k.exports != nil {
		exports = decode.Describe(reflect.TypeOf(k.exports))
	}
	return args, exports
}

// decoded returns the content of the arguments Build and Update get.
func (k *kind) decoded(args any) (decoded, error) {
	var a Args
	switch v := args.(type) {
	case Args:
		a = v
	case *Args:
		a = *v
	default:
		return decoded{}, fmt.Errorf("%s: arguments of type %T, want otelcol.Args", k.name, args)
	}
	if a.kind != k || a.Config == nil {
		// Not decoded for this kind (no arguments at all): decode the
		// empty table.
		a = Args{kind: k}
		if err := a.UnmarshalScript(map[string]any{}); err != nil {
			return decoded{}, err
		}
	}
	return decoded{output: a.Output, config: a.Config, values: a.values, partial: a.partial, extensions: a.extensions, routes: a.routes}, nil
}
