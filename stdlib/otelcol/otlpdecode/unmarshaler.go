package otlpdecode

import (
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// Unmarshaler decodes the protobuf bytes of whole OTLP export requests,
// for transports that hand over a body rather than a gRPC message
// (OTLP/HTTP): with the fast path when it is on and accepts the request,
// else with pdata's decoder of the export request, which is what the
// collector's OTLP receiver calls (so its errors are the receiver's).
//
// What it returns never points into buf: every string and byte slice is
// a copy, as pdata's are, so the caller may reuse buf once it returns.
// Its methods are safe for concurrent use.
type Unmarshaler struct {
	enabled bool // the fast path is on
	stats   [3]Stats
}

var (
	_ ptrace.Unmarshaler  = (*Unmarshaler)(nil)
	_ pmetric.Unmarshaler = (*Unmarshaler)(nil)
	_ plog.Unmarshaler    = (*Unmarshaler)(nil)
)

// NewUnmarshaler returns an Unmarshaler whose fast path is on when fast
// is set; off, every request goes to pdata's decoder (and is counted).
func NewUnmarshaler(fast bool) *Unmarshaler { return &Unmarshaler{enabled: fast} }

// StatsOf returns the counters of one signal: "traces", "metrics" or
// "logs"; nil for any other name.
func (u *Unmarshaler) StatsOf(signal string) *Stats { return statsOf(&u.stats, signal) }

// UnmarshalTraces decodes an ExportTraceServiceRequest.
func (u *Unmarshaler) UnmarshalTraces(buf []byte) (ptrace.Traces, error) {
	return unmarshal(u, 0, buf, (*decoder).traces, func(buf []byte) (ptrace.Traces, error) {
		req := ptraceotlp.NewExportRequest()
		err := req.UnmarshalProto(buf)
		return req.Traces(), err
	})
}

// UnmarshalMetrics decodes an ExportMetricsServiceRequest.
func (u *Unmarshaler) UnmarshalMetrics(buf []byte) (pmetric.Metrics, error) {
	return unmarshal(u, 1, buf, (*decoder).metrics, func(buf []byte) (pmetric.Metrics, error) {
		req := pmetricotlp.NewExportRequest()
		err := req.UnmarshalProto(buf)
		return req.Metrics(), err
	})
}

// UnmarshalLogs decodes an ExportLogsServiceRequest.
func (u *Unmarshaler) UnmarshalLogs(buf []byte) (plog.Logs, error) {
	return unmarshal(u, 2, buf, (*decoder).logs, func(buf []byte) (plog.Logs, error) {
		req := plogotlp.NewExportRequest()
		err := req.UnmarshalProto(buf)
		return req.Logs(), err
	})
}

// unmarshal decodes buf with the fast path when it is on and accepts buf,
// else with pdata's decoder of the export request, counting which did in
// the stats of signal.
func unmarshal[D any](u *Unmarshaler, signal int, buf []byte, fast func(*decoder, []byte) (D, error), pdata func([]byte) (D, error)) (D, error) {
	if u.enabled {
		if d, ok := guarded(buf, fast); ok {
			u.stats[signal].Fast.Add(1)
			return d, nil
		}
	}
	u.stats[signal].Pdata.Add(1)
	return pdata(buf)
}
