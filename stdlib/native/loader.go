package native

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/plugin"
	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// Loader returns m as the opener of native plugins that script loading
// uses (luabind/plugin).
func (m *Manager) Loader() plugin.Native { return loader{m} }

type loader struct{ m *Manager }

// Open opens the executable and checks the declared version.
func (l loader) Open(path, version, sum string) (plugin.NativePlugin, error) {
	p, err := l.m.Open(path, strings.ToLower(sum))
	if err != nil {
		return plugin.NativePlugin{}, err
	}
	d := p.Description()
	if version != "" && strings.TrimPrefix(version, "v") != strings.TrimPrefix(d.Version, "v") {
		return plugin.NativePlugin{}, fmt.Errorf("version %q declared, but %s is version %q", version, p.Path(), d.Version)
	}
	var digest script.Digest
	b, _ := hex.DecodeString(p.Sum())
	copy(digest[:], b)
	return plugin.NativePlugin{
		Name:    d.Plugin,
		Version: d.Version,
		Digest:  digest,
		Components: func(source string) []component.Registration {
			regs := make([]component.Registration, 0, len(d.Components))
			for _, c := range d.Components {
				regs = append(regs, p.Registration(c, c.Name, source))
				// A deprecated type name the factory keeps is a name of
				// the same component, as for built-in ones.
				for _, alias := range aliases(c) {
					regs = append(regs, p.Registration(c, alias, source))
				}
			}
			return regs
		},
	}, nil
}

// aliases returns the otelcol.<class>.<type> names of c's other type
// names than the one its name ends in.
func aliases(c wire.Component) []string {
	prefix := "otelcol." + c.Class + "."
	if !strings.HasPrefix(c.Name, prefix) {
		return nil
	}
	var out []string
	for _, t := range c.Types {
		if name := prefix + t; name != c.Name {
			out = append(out, name)
		}
	}
	return out
}
