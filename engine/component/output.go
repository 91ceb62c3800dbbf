package component

import (
	"errors"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// DecodeOutput decodes a component's `output` argument v into out, with
// the errors at paths under "output", and refuses consumers of a signal
// the component (named name) does not produce.
func DecodeOutput(v any, out *dataplane.Output, name string, produces func(dataplane.Signal) bool) decode.Errors {
	var errs decode.Errors
	if err := decode.Decode(v, out); err != nil {
		var des decode.Errors
		var de *decode.Error
		switch {
		case errors.As(err, &des):
		case errors.As(err, &de):
			des = decode.Errors{de}
		default:
			des = decode.Errors{{Message: err.Error()}}
		}
		for _, e := range des {
			path := "output"
			if e.Path != "" {
				path += "." + e.Path
			}
			errs = append(errs, &decode.Error{Path: path, Message: e.Message, Key: e.Key})
		}
	}
	for _, sig := range dataplane.AllSignals {
		if len(out.Consumers(sig)) > 0 && !produces(sig) {
			errs = append(errs, decode.Errorf("output."+sig.String(), "%s does not produce %s", name, sig))
		}
	}
	return errs
}
