package otlpwire

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
type Unmarshaler struct{ switchable }

// switchable is what both unmarshalers hold: whether the fast path is on,
// and, per signal, which decoder decoded each request.
type switchable struct {
	enabled bool
	stats   [3]Stats
}

var (
	_ ptrace.Unmarshaler  = (*Unmarshaler)(nil)
	_ pmetric.Unmarshaler = (*Unmarshaler)(nil)
	_ plog.Unmarshaler    = (*Unmarshaler)(nil)
)

// NewUnmarshaler returns an Unmarshaler whose fast path is on when fast
// is set; off, every request goes to pdata's decoder (and is counted).
func NewUnmarshaler(fast bool) *Unmarshaler { return &Unmarshaler{switchable{enabled: fast}} }

// StatsOf returns the counters of one signal: "traces", "metrics" or
// "logs"; nil for any other name.
func (s *switchable) StatsOf(signal string) *Stats { return statsOf(&s.stats, signal) }

// UnmarshalTraces decodes an ExportTraceServiceRequest.
func (u *Unmarshaler) UnmarshalTraces(buf []byte) (ptrace.Traces, error) {
	return decode(&u.switchable, 0, buf, (*decoder).traces, tracesCheck, func(buf []byte) (ptrace.Traces, error) {
		req := ptraceotlp.NewExportRequest()
		err := req.UnmarshalProto(buf)
		return req.Traces(), err
	})
}

// UnmarshalMetrics decodes an ExportMetricsServiceRequest.
func (u *Unmarshaler) UnmarshalMetrics(buf []byte) (pmetric.Metrics, error) {
	return decode(&u.switchable, 1, buf, (*decoder).metrics, metricsCheck, func(buf []byte) (pmetric.Metrics, error) {
		req := pmetricotlp.NewExportRequest()
		err := req.UnmarshalProto(buf)
		return req.Metrics(), err
	})
}

// UnmarshalLogs decodes an ExportLogsServiceRequest.
func (u *Unmarshaler) UnmarshalLogs(buf []byte) (plog.Logs, error) {
	return decode(&u.switchable, 2, buf, (*decoder).logs, logsCheck, func(buf []byte) (plog.Logs, error) {
		req := plogotlp.NewExportRequest()
		err := req.UnmarshalProto(buf)
		return req.Logs(), err
	})
}

// decode decodes buf with fast, when the fast path is on and fast
// accepts buf, else with pdata's decoder of the export request, counting
// which did in the stats of signal. A request too deep (ErrTooDeep: fast
// found it, or check before pdata's decoder, which would follow any
// depth) is refused.
func decode[D any](s *switchable, signal int, buf []byte, fast func(*decoder, []byte) (D, error), check func([]byte) error, pdata func([]byte) (D, error)) (D, error) {
	var zero D
	if s.enabled {
		d, err := guarded(buf, fast)
		if err == nil {
			s.stats[signal].Fast.Add(1)
			return d, nil
		}
		if refused(err) {
			return zero, err
		}
	}
	if err := check(buf); err != nil {
		return zero, err
	}
	s.stats[signal].Pdata.Add(1)
	return pdata(buf)
}

// protoCheck is the depth check of protobuf requests of signal.
func protoCheck(signal int) func([]byte) error {
	return func(buf []byte) error { return checkDepth(buf, signal) }
}

var (
	tracesCheck  = protoCheck(0)
	metricsCheck = protoCheck(1)
	logsCheck    = protoCheck(2)
)

// JSONUnmarshaler decodes the OTLP/JSON bodies of whole export requests:
// with the fast path when it is on and both its steps accept the request
// (transcode rewrites the JSON as protobuf, the fast decoder decodes
// that), else with pdata's JSON decoder of the export request, which is
// what the collector's OTLP receiver calls (so its errors, and its reading
// of anything unusual, are the receiver's).
//
// What it returns never points into buf. Its methods are safe for
// concurrent use.
type JSONUnmarshaler struct{ switchable }

var (
	_ ptrace.Unmarshaler  = (*JSONUnmarshaler)(nil)
	_ pmetric.Unmarshaler = (*JSONUnmarshaler)(nil)
	_ plog.Unmarshaler    = (*JSONUnmarshaler)(nil)
)

// NewJSONUnmarshaler returns a JSONUnmarshaler whose fast path is on when
// fast is set; off, every request goes to pdata's JSON decoder.
func NewJSONUnmarshaler(fast bool) *JSONUnmarshaler {
	return &JSONUnmarshaler{switchable{enabled: fast}}
}

// The JSON fast paths: each request's JSON rewritten as protobuf, then
// decoded by the protobuf fast path.
var (
	jsonTraces  = viaProtobuf(&jTracesRequest, (*decoder).traces)
	jsonMetrics = viaProtobuf(&jMetricsRequest, (*decoder).metrics)
	jsonLogs    = viaProtobuf(&jLogsRequest, (*decoder).logs)
)

// UnmarshalTraces decodes an ExportTraceServiceRequest in OTLP/JSON.
func (u *JSONUnmarshaler) UnmarshalTraces(buf []byte) (ptrace.Traces, error) {
	return decode(&u.switchable, 0, buf, jsonTraces, checkJSONNesting, func(buf []byte) (ptrace.Traces, error) {
		req := ptraceotlp.NewExportRequest()
		err := req.UnmarshalJSON(buf)
		return req.Traces(), err
	})
}

// UnmarshalMetrics decodes an ExportMetricsServiceRequest in OTLP/JSON.
func (u *JSONUnmarshaler) UnmarshalMetrics(buf []byte) (pmetric.Metrics, error) {
	return decode(&u.switchable, 1, buf, jsonMetrics, checkJSONNesting, func(buf []byte) (pmetric.Metrics, error) {
		req := pmetricotlp.NewExportRequest()
		err := req.UnmarshalJSON(buf)
		return req.Metrics(), err
	})
}

// UnmarshalLogs decodes an ExportLogsServiceRequest in OTLP/JSON.
func (u *JSONUnmarshaler) UnmarshalLogs(buf []byte) (plog.Logs, error) {
	return decode(&u.switchable, 2, buf, jsonLogs, checkJSONNesting, func(buf []byte) (plog.Logs, error) {
		req := plogotlp.NewExportRequest()
		err := req.UnmarshalJSON(buf)
		return req.Logs(), err
	})
}

// viaProtobuf returns the fast path of JSON requests of message m:
// transcode into a pooled buffer, then fast on that. The buffer goes back
// to the pool, as nothing decoded points into it.
func viaProtobuf[D any](m *jmessage, fast func(*decoder, []byte) (D, error)) func(*decoder, []byte) (D, error) {
	return func(d *decoder, buf []byte) (D, error) {
		out := bufferPool.Get(len(buf))
		defer bufferPool.Put(out)
		pb, err := transcode(buf, m, (*out)[:0])
		*out = pb // a grown buffer goes back in its place
		if err != nil {
			var zero D
			return zero, err
		}
		return fast(d, pb)
	}
}
