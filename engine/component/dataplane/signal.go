package dataplane

import (
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Signal is a kind of telemetry: traces, metrics or logs. It is the one
// signal type of flowlua; components, plugins and the Lua bindings all use
// it, so that a signal has one name everywhere ("traces", "metrics",
// "logs": the keys of an output table).
type Signal uint8

// The signals, in the order outputs list them.
const (
	Traces Signal = iota
	Metrics
	Logs
	// NumSignals is the number of signals, for arrays indexed by Signal.
	NumSignals
)

// AllSignals lists every signal in order.
var AllSignals = [NumSignals]Signal{Traces, Metrics, Logs}

var signalNames = [NumSignals]string{"traces", "metrics", "logs"}

// String returns the signal's name as output keys spell it.
func (s Signal) String() string {
	if s < NumSignals {
		return signalNames[s]
	}
	return "unknown"
}

// ParseSignal returns the signal named name ("traces", "metrics", "logs").
func ParseSignal(name string) (Signal, bool) {
	for s, n := range signalNames {
		if n == name {
			return Signal(s), true
		}
	}
	return 0, false
}

// Consumers returns o's list for signal s.
func (o Output) Consumers(s Signal) []Consumer {
	switch s {
	case Traces:
		return o.Traces
	case Metrics:
		return o.Metrics
	case Logs:
		return o.Logs
	}
	return nil
}

// Items counts the items of a batch (a ptrace.Traces, pmetric.Metrics or
// plog.Logs): spans, metric data points or log records, the units drops
// are counted in; 0 for anything else.
func Items(batch any) int {
	switch b := batch.(type) {
	case ptrace.Traces:
		return b.SpanCount()
	case pmetric.Metrics:
		return b.DataPointCount()
	case plog.Logs:
		return b.LogRecordCount()
	}
	return 0
}
