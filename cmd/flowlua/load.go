package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/flowlua/flowlua/engine"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/luabind"
	"github.com/flowlua/flowlua/luabind/plugin"
	"github.com/flowlua/flowlua/services"
)

// loadScript runs the Lua script at path into its neutral form and loads
// the plugins it declares (looked up in pluginsPath too); it returns the
// registry to check the script against: reg plus the plugins' components.
// As luabind.Load, it returns a script that ran despite mistakes along
// with them; the registry is nil when a plugin failed to load.
func loadScript(path string, reg *component.Registry, defs []service.Definition, pluginsPath []string) (*script.Script, *component.Registry, error) {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	s, err := luabind.Load(path, luabind.LoadOptions{Components: reg.Names(), Services: names})
	if s == nil {
		return nil, nil, err
	}
	preg, perr := plugin.Load(s, reg, plugin.Options{SearchPaths: pluginsPath})
	if perr != nil {
		return s, nil, mergeDiagnostics(script.AsDiagnostics(err), script.AsDiagnostics(perr))
	}
	return s, preg, err
}

// pluginFlags are the flags of every command that loads scripts.
type pluginFlags struct {
	PluginsPath []string `name:"plugins.path" env:"FLOWLUA_PLUGINS_PATH" help:"Extra plugin directories (default: plugins/ next to the script)."`
}

// checkScript loads and checks the script at path against the built-in
// components and services and the plugins it declares, returning its
// graph or every problem found.
func checkScript(path string, pluginsPath []string) (*engine.Graph, error) {
	svcs, err := services.NewAll(services.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	defs := make([]service.Definition, len(svcs))
	for i, s := range svcs {
		defs[i] = s.Definition()
	}
	s, reg, err := loadScript(path, component.DefaultRegistry, defs, pluginsPath)
	if s == nil || reg == nil {
		return nil, err
	}
	// A script that ran despite mistakes is checked too, so that one run
	// reports every problem.
	loaded := script.AsDiagnostics(err)
	loader := &engine.Loader{Registry: reg, Services: defs}
	g, diags := loader.Build(s)
	if all := mergeDiagnostics(loaded, diags); len(all) > 0 {
		return nil, all
	}
	return g, nil
}

// mergeDiagnostics joins two lists, dropping repeats, sorted by position.
func mergeDiagnostics(a, b script.Diagnostics) script.Diagnostics {
	seen := map[string]bool{}
	var out script.Diagnostics
	for _, d := range append(append(script.Diagnostics{}, a...), b...) {
		if key := d.Error(); !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	out.Sort()
	return out
}

// configError turns a load or check error into exit code 1 with every
// diagnostic on its own line.
func configError(err error) error {
	var ds script.Diagnostics
	if errors.As(err, &ds) {
		return &exitError{code: exitConfig, err: fmt.Errorf("%s\n%s", ds.Error(), summary(len(ds)))}
	}
	return &exitError{code: exitConfig, err: err}
}

func summary(n int) string {
	if n == 1 {
		return "1 error"
	}
	return fmt.Sprintf("%d errors", n)
}
