package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/flowlua/flowlua/luabind/format"
)

type fmtCmd struct {
	Write bool     `short:"w" xor:"mode" help:"Write the formatted script back to its file."`
	Diff  bool     `short:"d" xor:"mode" help:"Show the changes formatting would make; exit 1 when there are any (for CI)."`
	Paths []string `arg:"" name:"path" help:"Pipeline scripts (.lua)."`
}

func (c *fmtCmd) Run(e *env) error {
	changed := false
	for _, p := range c.Paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("flowlua fmt: %v", err)}
		}
		out, err := format.Source(src)
		if err != nil {
			return &exitError{code: exitConfig, err: fmt.Errorf("%s:%v", p, err)}
		}
		switch {
		case c.Write:
			if !bytes.Equal(src, out) {
				if err := os.WriteFile(p, out, 0o644); err != nil {
					return err
				}
			}
		case c.Diff:
			if !bytes.Equal(src, out) {
				changed = true
				e.stdout.Write(diff.Diff(p, src, p+" (formatted)", out))
			}
		default:
			e.stdout.Write(out)
		}
	}
	if changed {
		return &exitError{code: exitConfig}
	}
	return nil
}
