package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/flowlua/flowlua/engine"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/luabind/scriptload"
	"github.com/flowlua/flowlua/services"
	"github.com/flowlua/flowlua/stdlib/integrations"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// pluginFlags are the flags of every command that loads scripts.
type pluginFlags struct {
	PluginsPath []string `name:"plugins.path" env:"FLOWLUA_PLUGINS_PATH" help:"Extra plugin directories (default: plugins/ next to the script)."`
	// StartTimeout bounds a native plugin's handshake.
	StartTimeout time.Duration `name:"plugins.start-timeout" env:"FLOWLUA_PLUGINS_START_TIMEOUT" default:"10s" help:"How long a native plugin may take to start and complete the handshake."`
}

// loadScript runs the script at path (Lua, or collector YAML translated)
// against the built-in components and services and the plugins it can
// find, starting nothing. It returns the script and its registry even
// with an error when the script ran despite mistakes, and the services'
// definitions.
func loadScript(e *env, path string, pf pluginFlags) (*script.Script, *component.Registry, []service.Definition, error) {
	svcs, err := services.NewAll(services.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, nil, nil, err
	}
	defs := make([]service.Definition, len(svcs))
	for i, s := range svcs {
		defs[i] = s.Definition()
	}
	s, reg, err := scriptload.Load(path, scriptload.Options{Registry: component.DefaultRegistry, Services: serviceNames(defs), PluginPaths: pf.PluginsPath, Prelude: integrations.Sources(),
		Native: e.nativePlugins(pf, nil, nil).Loader(), NativeDirs: besideExecutable(), Translate: convert.Translator{}})
	return s, reg, defs, err
}

// checkScript loads and checks the script at path against the built-in
// components and services and the plugins it declares, returning its
// graph or every problem found.
func checkScript(e *env, path string, pf pluginFlags) (*engine.Graph, error) {
	s, reg, defs, err := loadScript(e, path, pf)
	if s == nil || reg == nil {
		return nil, err
	}
	// A script that ran despite mistakes is checked too, so that one run
	// reports every problem.
	loaded := script.AsDiagnostics(err)
	loader := &engine.Loader{Registry: reg, Services: defs}
	g, diags := loader.Build(s)
	if all := script.Merge(loaded, diags); len(all) > 0 {
		return nil, all
	}
	return g, nil
}

// serviceNames returns the names of the services defs define.
func serviceNames(defs []service.Definition) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
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
