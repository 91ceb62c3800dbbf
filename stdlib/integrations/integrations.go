// Package integrations holds flowlua's batteries-included integrations:
// modules written in the public module language (see package luabind),
// defined before every script runs, so that a script instantiates them
// like its own modules (`integrations.otlp_gateway "main" { ... }`) and
// `flowlua components` documents them.
package integrations

import (
	"embed"
	"io/fs"
	"path"
	"sort"

	"github.com/flowlua/flowlua/luabind"
)

//go:embed *.lua
var files embed.FS

// Sources returns the integrations' Lua files, sorted by name, for
// luabind.LoadOptions.Prelude.
func Sources() []luabind.Source {
	names, err := fs.Glob(files, "*.lua")
	if err != nil {
		panic(err) // the pattern is constant
	}
	sort.Strings(names)
	out := make([]luabind.Source, len(names))
	for i, name := range names {
		src, err := files.ReadFile(name)
		if err != nil {
			panic(err) // embedded
		}
		out[i] = luabind.Source{Name: path.Join("stdlib/integrations", name), Src: src}
	}
	return out
}
