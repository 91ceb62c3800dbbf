package main

import (
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert/alloyconfig"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert/promconfig"
)

type convertCmd struct {
	Path         string `arg:"" name:"config" help:"The collector configuration (.yaml), a Prometheus server configuration (prometheus.yml), or Grafana Alloy's (.alloy)."`
	Output       string `short:"o" name:"output" placeholder:"FILE" help:"Write the script to FILE instead of stdout."`
	BypassErrors bool   `name:"bypass-errors" help:"Write what converts, with a comment where each part was left out, and exit 0; the problems are still reported."`
	pluginFlags
}

func (c *convertCmd) Run(e *env) error {
	src, err := os.ReadFile(c.Path)
	if err != nil {
		return &exitError{code: exitConfig, err: fmt.Errorf("flowlua convert: %v", err)}
	}
	// The components of native plugins (plugins/ beside the config and
	// beside flowlua, --plugins.path) convert under their own names.
	dirs := append([]string{filepath.Join(filepath.Dir(c.Path), "plugins")}, c.PluginsPath...)
	cat := convert.Registry(e.withNativePlugins(c.pluginFlags, dirs))
	var res *convert.Result
	switch {
	case isAlloy(c.Path, src):
		res, err = alloyconfig.Convert(src, convert.Options{Filename: c.Path, Catalog: cat})
	case promconfig.Is(src):
		res, err = promconfig.Convert(src, promconfig.Options{Filename: c.Path, Catalog: cat})
	default:
		res, err = convert.Convert(src, convert.Options{Filename: c.Path, Catalog: cat})
	}
	if err != nil {
		return &exitError{code: exitConfig, err: err}
	}
	if len(res.Problems) > 0 {
		fmt.Fprintln(e.stderr, res.Error())
		if !c.BypassErrors {
			return &exitError{code: exitConfig, err: fmt.Errorf("%s; nothing written (--bypass-errors writes what converts)", summary(len(res.Problems)))}
		}
	}
	if c.Output == "" {
		_, err := e.stdout.Write(res.Script)
		return err
	}
	if err := os.WriteFile(c.Output, res.Script, 0o644); err != nil {
		return &exitError{code: exitConfig, err: fmt.Errorf("flowlua convert: %v", err)}
	}
	return nil
}

// isAlloy reports whether a config is Alloy's: by its extension, or by
// content that parses as Alloy's syntax and not as a YAML mapping.
func isAlloy(path string, src []byte) bool {
	switch filepath.Ext(path) {
	case ".alloy", ".river":
		return true
	case ".yaml", ".yml":
		return false
	}
	var m map[string]any
	return yaml.Unmarshal(src, &m) != nil && alloyconfig.Parses(src)
}
