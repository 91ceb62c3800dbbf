package main

import (
	"fmt"

	"github.com/flowlua/flowlua/engine"
)

type checkCmd struct {
	Path           string `arg:"" help:"The pipeline: a script (.lua), or a collector config (.yaml, .yml)."`
	ClusterEnabled bool   `name:"cluster.enabled" help:"The pipeline runs clustered: placement = \"unique\" is no warning."`
	pluginFlags
}

func (c *checkCmd) Run(e *env) error {
	g, err := checkScript(e, c.Path, c.pluginFlags)
	if err != nil {
		return configError(err)
	}
	if !c.ClusterEnabled {
		for _, w := range engine.UniqueWarnings(g) {
			fmt.Fprintf(e.stderr, "warning: %s\n", w)
		}
	}
	fmt.Fprintf(e.stdout, "%s: ok (%d components)\n", c.Path, len(g.Components()))
	return nil
}

type graphCmd struct {
	Path string `arg:"" help:"The pipeline: a script (.lua), or a collector config (.yaml, .yml)."`
	pluginFlags
}

func (c *graphCmd) Run(e *env) error {
	g, err := checkScript(e, c.Path, c.pluginFlags)
	if err != nil {
		return configError(err)
	}
	return g.WriteDOT(e.stdout)
}
