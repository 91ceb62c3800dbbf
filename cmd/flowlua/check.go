package main

import (
	"fmt"
)

type checkCmd struct {
	Path string `arg:"" help:"The pipeline: a script (.lua), or a collector config (.yaml, .yml)."`
	pluginFlags
}

func (c *checkCmd) Run(e *env) error {
	g, err := checkScript(e, c.Path, c.pluginFlags)
	if err != nil {
		return configError(err)
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
