package otelcol

import (
	"context"

	"go.opentelemetry.io/collector/component"

	"github.com/flowlua/flowlua/engine/component/telemetry"
)

// signal is a kind of telemetry.
type signal int

const (
	signalTraces signal = iota
	signalMetrics
	signalLogs
	numSignals
)

// String returns the signal's name as output keys spell it.
func (s signal) String() string {
	return [...]string{"traces", "metrics", "logs"}[s]
}

// consumers returns o's list for signal s.
func consumers(o telemetry.Output, s signal) []telemetry.Consumer {
	switch s {
	case signalTraces:
		return o.Traces
	case signalMetrics:
		return o.Metrics
	default:
		return o.Logs
	}
}

// usedSignals says which signals of o have consumers.
func usedSignals(o telemetry.Output) [numSignals]bool {
	var u [numSignals]bool
	for s := range numSignals {
		u[s] = len(consumers(o, s)) > 0
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
