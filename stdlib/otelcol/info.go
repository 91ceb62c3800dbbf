package otelcol

import (
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// Signals lists the signals the upstream component supports (none for
// extensions), for `flowlua components --json`.
func (k *kind) Signals() []string {
	var out []string
	for _, s := range dataplane.AllSignals {
		if k.supports[s] {
			out = append(out, s.String())
		}
	}
	return out
}

// Stability returns the upstream stability level of each signal the
// component supports, or of the extension ("extension").
func (k *kind) Stability() map[string]string {
	out := map[string]string{}
	if f, ok := k.factory.(stabilities); ok {
		levels := [dataplane.NumSignals]component.StabilityLevel{f.TracesStability(), f.MetricsStability(), f.LogsStability()}
		for _, s := range dataplane.AllSignals {
			if k.supports[s] {
				out[s.String()] = levels[s].String()
			}
		}
	}
	if f, ok := k.factory.(interface {
		Stability() component.StabilityLevel
	}); ok {
		out["extension"] = f.Stability().String()
	}
	if f, ok := k.factory.(connector.Factory); ok {
		// A connector's stability is per connection: "traces_to_metrics".
		levels := map[string]component.StabilityLevel{
			"traces_to_traces": f.TracesToTracesStability(), "traces_to_metrics": f.TracesToMetricsStability(), "traces_to_logs": f.TracesToLogsStability(),
			"metrics_to_traces": f.MetricsToTracesStability(), "metrics_to_metrics": f.MetricsToMetricsStability(), "metrics_to_logs": f.MetricsToLogsStability(),
			"logs_to_traces": f.LogsToTracesStability(), "logs_to_metrics": f.LogsToMetricsStability(), "logs_to_logs": f.LogsToLogsStability(),
		}
		for pair, level := range levels {
			if level != component.StabilityLevelUndefined {
				out[pair] = level.String()
			}
		}
	}
	return out
}

// Upstream returns the Go package of the upstream component's config: the
// component's source.
func (k *kind) Upstream() string {
	if t := deref(k.configType); t != nil && t.PkgPath() != "" {
		return t.PkgPath()
	}
	return k.pkg
}
