package main

import (
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/featuregate"
)

// setFeatureGates applies --feature-gates: "name" or "+name" enables a
// gate of the upstream collector modules, "-name" disables it.
func setFeatureGates(specs []string) error {
	for _, spec := range specs {
		for _, g := range strings.Split(spec, ",") {
			g = strings.TrimSpace(g)
			if g == "" {
				continue
			}
			enable := !strings.HasPrefix(g, "-")
			name := strings.TrimLeft(g, "+-")
			if err := featuregate.GlobalRegistry().Set(name, enable); err != nil {
				return fmt.Errorf("--feature-gates: %w", err)
			}
		}
	}
	return nil
}
