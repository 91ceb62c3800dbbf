// Package wire holds the low-level OTLP/gRPC plumbing shared by the load
// generator and the counting sink: a pass-through gRPC codec that moves
// pre-marshalled protobuf bytes, the OTLP service and method names, and
// allocation-free counters of spans, data points and log records that walk
// the protobuf wire format without decoding it into pdata.
//
// Both tools share the machine's two cores with the system under test, so
// they avoid per-request marshalling and full decoding: the load generator
// sends the same bytes over and over and the sink only counts.
package wire

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// Signal is one of the three OTLP signals.
type Signal string

// The OTLP signals.
const (
	Traces  Signal = "traces"
	Metrics Signal = "metrics"
	Logs    Signal = "logs"
)

// Signals lists every signal in a stable order.
var Signals = []Signal{Traces, Metrics, Logs}

// ParseSignal validates s as a signal name.
func ParseSignal(s string) (Signal, error) {
	switch Signal(s) {
	case Traces, Metrics, Logs:
		return Signal(s), nil
	}
	return "", fmt.Errorf("unknown signal %q (want traces, metrics or logs)", s)
}

// Service returns the fully qualified gRPC service name of the signal's OTLP
// collector service.
func (s Signal) Service() string {
	switch s {
	case Traces:
		return "opentelemetry.proto.collector.trace.v1.TraceService"
	case Metrics:
		return "opentelemetry.proto.collector.metrics.v1.MetricsService"
	case Logs:
		return "opentelemetry.proto.collector.logs.v1.LogsService"
	}
	panic("wire: unknown signal " + string(s))
}

// Method returns the full gRPC method path of the signal's Export call.
func (s Signal) Method() string { return "/" + s.Service() + "/Export" }

// Raw is a protobuf message kept as its encoded bytes.
type Raw struct {
	// B is the encoded message.
	B []byte
}

// Codec is a gRPC codec (registered name "proto", so that peers see the
// ordinary content type application/grpc+proto) that passes *Raw values
// through unchanged. Use it with grpc.ForceCodecV2 on a client and
// grpc.ForceServerCodecV2 on a server; it rejects any other message type.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Marshal returns the bytes of a *Raw without copying them.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(*Raw)
	if !ok {
		return nil, fmt.Errorf("wire: cannot marshal %T", v)
	}
	if len(r.B) == 0 {
		return nil, nil
	}
	return mem.BufferSlice{mem.SliceBuffer(r.B)}, nil
}

// Unmarshal copies the received bytes into a *Raw.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*Raw)
	if !ok {
		return fmt.Errorf("wire: cannot unmarshal into %T", v)
	}
	r.B = data.Materialize()
	return nil
}

// Name returns "proto": the bytes on the wire are ordinary protobuf.
func (Codec) Name() string { return "proto" }

var errMalformed = errors.New("wire: malformed protobuf")

// eachBytes calls fn with the payload of every length-delimited field num of
// the message b, skipping all other fields.
func eachBytes(b []byte, num protowire.Number, fn func([]byte) error) error {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return errMalformed
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return errMalformed
			}
			if err := fn(v); err != nil {
				return err
			}
			b = b[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return errMalformed
		}
		b = b[l:]
	}
	return nil
}

// countBytes counts the length-delimited fields num of the message b.
func countBytes(b []byte, num protowire.Number) (int, error) {
	c := 0
	err := eachBytes(b, num, func([]byte) error { c++; return nil })
	return c, err
}

// countNested counts the leaves reached by following the length-delimited
// field path from the message b; the last element of path is the counted
// repeated field.
func countNested(b []byte, path ...protowire.Number) (int, error) {
	if len(path) == 1 {
		return countBytes(b, path[0])
	}
	total := 0
	err := eachBytes(b, path[0], func(sub []byte) error {
		c, err := countNested(sub, path[1:]...)
		total += c
		return err
	})
	return total, err
}

// CountSpans counts the spans in an encoded ExportTraceServiceRequest
// (resource_spans=1 → scope_spans=2 → spans=2).
func CountSpans(req []byte) (int, error) { return countNested(req, 1, 2, 2) }

// CountLogRecords counts the log records in an encoded
// ExportLogsServiceRequest (resource_logs=1 → scope_logs=2 → log_records=2).
func CountLogRecords(req []byte) (int, error) { return countNested(req, 1, 2, 2) }

// Metric data fields that hold data points (each in its field 1), as in
// opentelemetry/proto/metrics/v1/metrics.proto: gauge, sum, histogram,
// exponential_histogram, summary.
var dataFields = [...]protowire.Number{5, 7, 9, 10, 11}

// CountDataPoints counts the metric data points in an encoded
// ExportMetricsServiceRequest, as pmetric.Metrics.DataPointCount does
// (resource_metrics=1 → scope_metrics=2 → metrics=2 → data → data_points=1).
func CountDataPoints(req []byte) (int, error) {
	total := 0
	err := eachBytes(req, 1, func(rm []byte) error {
		return eachBytes(rm, 2, func(sm []byte) error {
			return eachBytes(sm, 2, func(m []byte) error {
				for _, f := range dataFields {
					c, err := countNested(m, f, 1)
					if err != nil {
						return err
					}
					total += c
				}
				return nil
			})
		})
	})
	return total, err
}

// Count counts the items (spans, data points or log records) of an encoded
// export request of signal s.
func Count(s Signal, req []byte) (int, error) {
	switch s {
	case Traces:
		return CountSpans(req)
	case Metrics:
		return CountDataPoints(req)
	case Logs:
		return CountLogRecords(req)
	}
	return 0, fmt.Errorf("wire: unknown signal %q", s)
}

// Rejected returns the number of rejected items and the error message of the
// partial_success field (1) of an encoded Export*ServiceResponse; all three
// signals share the shape {int64 rejected = 1; string error_message = 2}.
func Rejected(resp []byte) (int64, string, error) {
	var rejected int64
	var msg string
	err := eachBytes(resp, 1, func(ps []byte) error {
		for len(ps) > 0 {
			n, typ, l := protowire.ConsumeTag(ps)
			if l < 0 {
				return errMalformed
			}
			ps = ps[l:]
			switch {
			case n == 1 && typ == protowire.VarintType:
				v, l := protowire.ConsumeVarint(ps)
				if l < 0 {
					return errMalformed
				}
				rejected += int64(v)
				ps = ps[l:]
			case n == 2 && typ == protowire.BytesType:
				v, l := protowire.ConsumeBytes(ps)
				if l < 0 {
					return errMalformed
				}
				msg = string(v)
				ps = ps[l:]
			default:
				l = protowire.ConsumeFieldValue(n, typ, ps)
				if l < 0 {
					return errMalformed
				}
				ps = ps[l:]
			}
		}
		return nil
	})
	return rejected, msg, err
}
