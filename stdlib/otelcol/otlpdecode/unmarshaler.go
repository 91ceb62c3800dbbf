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
	if u.enabled {
		if td, ok := guarded(buf, (*decoder).traces); ok {
			u.stats[0].Fast.Add(1)
			return td, nil
		}
	}
	u.stats[0].Pdata.Add(1)
	req := ptraceotlp.NewExportRequest()
	err := req.UnmarshalProto(buf)
	return req.Traces(), err
}

// UnmarshalMetrics decodes an ExportMetricsServiceRequest.
func (u *Unmarshaler) UnmarshalMetrics(buf []byte) (pmetric.Metrics, error) {
	if u.enabled {
		if md, ok := guarded(buf, (*decoder).metrics); ok {
			u.stats[1].Fast.Add(1)
			return md, nil
		}
	}
	u.stats[1].Pdata.Add(1)
	req := pmetricotlp.NewExportRequest()
	err := req.UnmarshalProto(buf)
	return req.Metrics(), err
}

// UnmarshalLogs decodes an ExportLogsServiceRequest.
func (u *Unmarshaler) UnmarshalLogs(buf []byte) (plog.Logs, error) {
	if u.enabled {
		if ld, ok := guarded(buf, (*decoder).logs); ok {
			u.stats[2].Fast.Add(1)
			return ld, nil
		}
	}
	u.stats[2].Pdata.Add(1)
	req := plogotlp.NewExportRequest()
	err := req.UnmarshalProto(buf)
	return req.Logs(), err
}
