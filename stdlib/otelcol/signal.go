package otelcol

import (
	"context"

	"go.opentelemetry.io/collector/component"

	"github.com/flowlua/flowlua/engine/component/telemetry"
)

// usedSignals says which signals of o have consumers.
func usedSignals(o telemetry.Output) [telemetry.NumSignals]bool {
	var u [telemetry.NumSignals]bool
	for _, s := range telemetry.AllSignals {
		u[s] = len(o.Consumers(s)) > 0
	}
	return u
}

// settings are what creating an upstream component takes.
type settings struct {
	ctx   context.Context
	id    component.ID
	tel   component.TelemetrySettings
	build component.BuildInfo
}
