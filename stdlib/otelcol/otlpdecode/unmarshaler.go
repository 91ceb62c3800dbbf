package otlpdecode

import (
	"log/slog"
	"runtime/debug"

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

// JSONUnmarshaler decodes the OTLP/JSON bodies of whole export requests:
// with the fast path when it is on and both its steps accept the request
// (transcode rewrites the JSON as protobuf, the fast decoder decodes
// that), else with pdata's JSON decoder of the export request, which is
// what the collector's OTLP receiver calls (so its errors, and its reading
// of anything unusual, are the receiver's).
//
// What it returns never points into buf. Its methods are safe for
// concurrent use.
type JSONUnmarshaler struct {
	enabled bool
	stats   [3]Stats
}

var (
	_ ptrace.Unmarshaler  = (*JSONUnmarshaler)(nil)
	_ pmetric.Unmarshaler = (*JSONUnmarshaler)(nil)
	_ plog.Unmarshaler    = (*JSONUnmarshaler)(nil)
)

// NewJSONUnmarshaler returns a JSONUnmarshaler whose fast path is on when
// fast is set; off, every request goes to pdata's JSON decoder.
func NewJSONUnmarshaler(fast bool) *JSONUnmarshaler { return &JSONUnmarshaler{enabled: fast} }

// StatsOf returns the counters of one signal: "traces", "metrics" or
// "logs"; nil for any other name.
func (u *JSONUnmarshaler) StatsOf(signal string) *Stats { return statsOf(&u.stats, signal) }

// UnmarshalTraces decodes an ExportTraceServiceRequest in OTLP/JSON.
func (u *JSONUnmarshaler) UnmarshalTraces(buf []byte) (ptrace.Traces, error) {
	return unmarshalJSON(u, 0, buf, &jTracesRequest, (*decoder).traces, func(buf []byte) (ptrace.Traces, error) {
		req := ptraceotlp.NewExportRequest()
		err := req.UnmarshalJSON(buf)
		return req.Traces(), err
	})
}

// UnmarshalMetrics decodes an ExportMetricsServiceRequest in OTLP/JSON.
func (u *JSONUnmarshaler) UnmarshalMetrics(buf []byte) (pmetric.Metrics, error) {
	return unmarshalJSON(u, 1, buf, &jMetricsRequest, (*decoder).metrics, func(buf []byte) (pmetric.Metrics, error) {
		req := pmetricotlp.NewExportRequest()
		err := req.UnmarshalJSON(buf)
		return req.Metrics(), err
	})
}

// UnmarshalLogs decodes an ExportLogsServiceRequest in OTLP/JSON.
func (u *JSONUnmarshaler) UnmarshalLogs(buf []byte) (plog.Logs, error) {
	return unmarshalJSON(u, 2, buf, &jLogsRequest, (*decoder).logs, func(buf []byte) (plog.Logs, error) {
		req := plogotlp.NewExportRequest()
		err := req.UnmarshalJSON(buf)
		return req.Logs(), err
	})
}

// unmarshalJSON decodes the JSON request buf of message m with the fast
// path when it is on and accepts buf, else with pdata's JSON decoder.
func unmarshalJSON[D any](u *JSONUnmarshaler, signal int, buf []byte, m *jmessage, fast func(*decoder, []byte) (D, error), pdata func([]byte) (D, error)) (D, error) {
	if u.enabled {
		if d, ok := transcodeFast(buf, m, fast); ok {
			u.stats[signal].Fast.Add(1)
			return d, nil
		}
	}
	u.stats[signal].Pdata.Add(1)
	return pdata(buf)
}

// transcodeFast transcodes buf into a pooled buffer and decodes that with
// the fast path; the buffer goes back to the pool, as nothing decoded
// points into it.
func transcodeFast[D any](buf []byte, m *jmessage, fast func(*decoder, []byte) (D, error)) (d D, ok bool) {
	out := bufferPool.Get(len(buf))
	defer func() { bufferPool.Put(out) }()
	pb, err := guardedTranscode(buf, m, (*out)[:0])
	*out = pb // a grown buffer goes back in its place
	if err != nil {
		return d, false
	}
	return guarded(pb, fast)
}

// guardedTranscode is transcode, with a panic (a bug: the tests and
// fuzzing look for them) logged once and the request left to pdata.
func guardedTranscode(buf []byte, m *jmessage, out []byte) (pb []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			panicOnce.Do(func() {
				slog.Error("OTLP/JSON transcoding panicked; the request goes to pdata's decoder", "panic", p, "stack", string(debug.Stack()))
			})
			pb, err = out, errDecline
		}
	}()
	return transcode(buf, m, out)
}
