// Package lua registers flowlua's standard library of components written
// in Lua, a plugin built into the binary under the namespace lua:
//
//   - lua.redact masks, hashes or deletes attributes (by key or key
//     pattern) of spans, log records and metric data points, all its rules
//     in one walk over a batch (batch:edit_attrs);
//   - lua.route sends each span, log record or data point to the output of
//     the first route whose attribute has a given value, the rest to a
//     default output;
//   - lua.sample keeps a percentage of traces, deciding by trace id, so
//     that all spans (and logs) of a trace get the same decision.
//
// The components are ordinary plugin components (see package
// luabind/plugin): their source in plugin/ is embedded and loaded at
// init, and `flowlua components lua.redact` documents them like any
// other.
package lua

import (
	"embed"
	"io/fs"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/luabind/plugin"
)

//go:embed plugin
var files embed.FS

func init() {
	sub, err := fs.Sub(files, "plugin")
	if err != nil {
		panic(err)
	}
	regs, err := plugin.LoadFS(sub, "stdlib/lua")
	if err != nil {
		panic("stdlib/lua: " + err.Error())
	}
	for _, r := range regs {
		r.Source += " (built in)"
		component.Register(r)
	}
}
