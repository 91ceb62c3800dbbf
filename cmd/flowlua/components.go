package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
	"github.com/flowlua/flowlua/luabind/plugin"
	"github.com/flowlua/flowlua/stdlib/integrations"
)

type componentsCmd struct {
	Name  string `arg:"" optional:"" help:"A component name, e.g. file.read."`
	JSON  bool   `name:"json" xor:"format" help:"Write JSON: arguments with types, defaults, enums and docs; exports; signals; stability; source."`
	LuaLS bool   `name:"luals" xor:"format" help:"Write Lua Language Server annotations of every component and module (e.g. > .luals/flowlua.lua)."`
	pluginFlags

	// Script adds the project's modules and plugins.
	Script string `name:"script" placeholder:"PATH" help:"A pipeline script: its own modules (what it requires) and the plugins it finds (its plugins/) are listed and described too."`
}

// withNativePlugins returns the default registry with the components of
// the native plugins found in dirs and beside the executable, with their
// source and version; a broken plugin is left out (flowlua check reports
// it).
func (e *env) withNativePlugins(pf pluginFlags, dirs []string) *component.Registry {
	reg := component.DefaultRegistry.Clone()
	for _, dir := range append(append([]string(nil), dirs...), besideExecutable()...) {
		if r, _, err := plugin.FindNative([]string{dir}, reg, e.nativePlugins(pf, nil, nil).Loader()); err == nil {
			reg = r
		}
	}
	return reg
}

func (c *componentsCmd) Run(e *env) error {
	// Plugins in plugins/ and --plugins.path are listed under their own
	// names; a broken one is left out (flowlua check reports it).
	dirs := append([]string{"plugins"}, c.PluginsPath...)
	reg := e.withNativePlugins(c.pluginFlags, dirs)
	regs, _ := plugin.Scan(dirs)
	for _, r := range regs {
		if _, taken := reg.Get(r.Name); !taken {
			_ = reg.Add(r)
		}
	}
	modules, err := builtinModules(reg)
	if err != nil {
		return err
	}
	if c.Script != "" {
		if reg, modules, err = c.scriptComponents(e); err != nil {
			return err
		}
	}
	if c.LuaLS {
		if c.Name != "" {
			return &exitError{code: exitUsage, err: fmt.Errorf("flowlua components: --luals writes every component: give no name")}
		}
		return writeLuaLS(e.stdout, reg, modules)
	}
	if c.JSON && c.Name != "" && findModule(modules, c.Name) == nil {
		if _, ok := reg.Get(c.Name); !ok {
			return c.unknown(reg, modules)
		}
	}
	if c.JSON {
		return writeJSON(e.stdout, reg, modules, c.Name)
	}
	if c.Name == "" {
		w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		for _, name := range reg.Names() {
			r, _ := reg.Get(name)
			fmt.Fprintf(w, "%s\t%s\t%s\n", name, r.Source, r.Doc)
		}
		for _, m := range modules {
			fmt.Fprintf(w, "%s\t%s\t%s\n", m.Name, "module", m.Doc)
		}
		return w.Flush()
	}
	if m := findModule(modules, c.Name); m != nil {
		c.describeModule(e, m)
		return nil
	}
	r, ok := reg.Get(c.Name)
	if !ok {
		return c.unknown(reg, modules)
	}
	describeComponent(e, r)
	return nil
}

// unknown is the error for a name that is no component or module.
func (c *componentsCmd) unknown(reg *component.Registry, modules []*script.ModuleDef) error {
	names := reg.Names()
	for _, m := range modules {
		names = append(names, m.Name)
	}
	return &exitError{code: exitConfig, err: fmt.Errorf("unknown component %q%s%s", c.Name, script.DidYouMean(c.Name, names), c.scriptHint())}
}

func writeFields(e *env, fields []decode.Field, args bool) {
	if len(fields) == 0 {
		fmt.Fprintln(e.stdout, "  (none)")
		return
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, f := range fields {
		extra := ""
		switch {
		case args && f.Required:
			extra = "required"
		case args && f.Default != "":
			extra = "default " + f.Default
		case args:
			extra = "optional"
		}
		if args {
			fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", f.Path, f.Type, extra, f.Doc)
		} else {
			fmt.Fprintf(w, "  %s\t%s\t%s\n", f.Path, f.Type, f.Doc)
		}
	}
	w.Flush()
}

// builtinModules returns flowlua's own modules (the integrations), defined
// by running an empty script after them.
func builtinModules(reg *component.Registry) ([]*script.ModuleDef, error) {
	s, err := luabind.LoadSource("components.lua", nil, luabind.LoadOptions{Components: reg.Names(), Prelude: integrations.Sources()})
	if err != nil {
		return nil, fmt.Errorf("defining the built-in modules: %w", err)
	}
	return s.Modules, nil
}

func findModule(modules []*script.ModuleDef, name string) *script.ModuleDef {
	for _, m := range modules {
		if m.Name == name {
			return m
		}
	}
	return nil
}
