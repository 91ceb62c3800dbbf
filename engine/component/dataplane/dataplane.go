// Package dataplane is the contract of the data path between flowlua's
// components: components that move telemetry export an `input` Consumer
// and take an Output, and batches (pdata) move between them by reference
// through a fan-out that follows the collector's ownership rules.
package dataplane

import (
	"go.opentelemetry.io/collector/consumer"
)

// Consumer accepts traces, metrics and logs. A component that handles only
// some signals rejects the others with an error.
type Consumer interface {
	consumer.Traces
	consumer.Metrics
	consumer.Logs
}

// Output lists where a component sends each signal.
type Output struct {
	Traces  []Consumer `lua:"traces" doc:"consumers of traces"`
	Metrics []Consumer `lua:"metrics" doc:"consumers of metrics"`
	Logs    []Consumer `lua:"logs" doc:"consumers of logs"`

	// tap observes the fan-outs built from the output (see Tap); the
	// engine sets it, scripts never see it.
	tap *Tap
}

// WithTap returns o observed by t: the fan-outs built from it count and
// show what they send (see Tap).
func (o Output) WithTap(t *Tap) Output {
	o.tap = t
	return o
}

// Tap returns o's tap, or nil.
func (o Output) Tap() *Tap { return o.tap }

// Exports is what every telemetry component that receives data exports.
type Exports struct {
	Input Consumer `lua:"input" doc:"where other components send data to this one"`
}
