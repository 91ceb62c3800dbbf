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
// first use, and `flowlua components lua.redact` documents them like
// any other.
package lua

import (
	"embed"
	"io/fs"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/luabind/plugin"
)

//go:embed plugin
var files embed.FS

// The components are registered from index (index_gen.go, kept up to date
// by TestIndexUpToDate) and their files are compiled and read only when a
// pipeline or a listing first uses one of them.
func init() {
	for _, r := range plugin.Lazy(pluginFS(), "stdlib/lua", index) {
		r.Source += " (built in)"
		component.Register(r)
	}
}

// pluginFS is the embedded plugin directory.
func pluginFS() fs.FS {
	sub, err := fs.Sub(files, "plugin")
	if err != nil {
		panic(err)
	}
	return sub
}
