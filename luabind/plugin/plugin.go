package plugin

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/luacomponent"
)

// loaded is a plugin read from its files and checked: its manifest, its
// compiled Lua files and its components.
type loaded struct {
	files    *files
	manifest *Manifest
	plugin   *luacomponent.Plugin
	kinds    []*luacomponent.Kind // in the manifest's order
	names    []string             // of kinds
	fp       string
}

// load reads a plugin's manifest, compiles its files and reads its
// components' declarations. Mistakes are Diagnostics in the plugin's
// files.
func load(f *files) (*loaded, error) {
	m, err := readManifest(f)
	if err != nil {
		return nil, err
	}
	p := &loaded{files: f, manifest: m, plugin: &luacomponent.Plugin{
		Name:    m.Name,
		Version: m.Version,
		Grants:  slices.Sorted(slices.Values(m.Grants)),
		Modules: map[string]*luacomponent.Chunk{},
		File:    f.display,
	}}
	var ds script.Diagnostics
	for _, rel := range slices.Sorted(maps.Keys(f.src)) {
		if rel == manifestLua {
			continue
		}
		ch, err := luacomponent.Compile(f.display(rel), f.src[rel])
		if err != nil {
			ds = append(ds, script.AsDiagnostics(err)...)
			continue
		}
		p.plugin.Modules[strings.ReplaceAll(strings.TrimSuffix(rel, ".lua"), "/", ".")] = ch
	}
	if len(ds) > 0 {
		return nil, ds
	}
	for _, name := range m.Components {
		k, err := luacomponent.Read(p.plugin, name)
		if err != nil {
			ds = append(ds, script.AsDiagnostics(err)...)
			continue
		}
		p.kinds = append(p.kinds, k)
		p.names = append(p.names, name)
	}
	if len(ds) > 0 {
		return nil, ds
	}
	p.fp = f.fingerprint(p.plugin.Grants)
	return p, nil
}

// registrations returns the plugin's components under namespace ns.
func (p *loaded) registrations(ns string) []component.Registration {
	regs := make([]component.Registration, 0, len(p.kinds))
	source := fmt.Sprintf("plugin %s %s", p.manifest.Name, p.manifest.Version)
	for i, k := range p.kinds {
		regs = append(regs, k.Registration(ns+"."+p.names[i], source, p.fp))
	}
	return regs
}
