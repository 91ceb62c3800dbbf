package dataplane

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pipeline"
)

// Encoded requests. The batch processor keeps a batch as the protobuf
// encoding of an OTLP export request rather than as pdata when the
// consumer behind it takes it so (a quarter of the memory for the same
// items), and the OTLP exporter sends those bytes as they are: the
// patched modules in third_party/batchprocessor and
// third_party/exporterhelper. Between the two, every consumer on the
// path (Indirect, Signals, a fan-out, a component's instance) passes an
// encoded request on when the consumer behind it accepts one, and decodes
// it for one that does not; nothing is lost either way. A fan-out accepts
// encoded requests only when it has exactly one consumer; it counts their
// items for the edge rates and decodes one for a live-debugging viewer
// only when that viewer is due a sample.

// EncodedConsumer is implemented by a consumer that takes OTLP export
// requests still encoded. The modules in third_party declare the same
// methods, so that they do not import flowlua.
type EncodedConsumer interface {
	// AcceptsEncoded reports whether the consumer takes encoded requests
	// of signal now; the answer may change (an Indirect's target swaps).
	AcceptsEncoded(signal pipeline.Signal) bool
	// ConsumeEncoded takes payload, the protobuf encoding of an
	// Export{Trace,Metrics,Logs}ServiceRequest of signal holding items
	// spans, data points or log records. The consumer owns payload.
	ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error
}

// AcceptsEncoded reports whether c takes encoded requests of signal.
func AcceptsEncoded(c any, signal pipeline.Signal) bool {
	ec, ok := c.(EncodedConsumer)
	return ok && ec.AcceptsEncoded(signal)
}

// ForwardEncoded hands payload to c: as it is when c accepts encoded
// requests of signal, else decoded (ConsumeDecoded).
func ForwardEncoded(ctx context.Context, c any, signal pipeline.Signal, payload []byte, items int) error {
	if ec, ok := c.(EncodedConsumer); ok && ec.AcceptsEncoded(signal) {
		return ec.ConsumeEncoded(ctx, signal, payload, items)
	}
	return ConsumeDecoded(ctx, c, signal, payload)
}

// ConsumeDecoded decodes payload, an encoded request of signal, and hands
// it to c as the consumer of that signal (ConsumeTraces, ConsumeMetrics or
// ConsumeLogs); an error when c is not one.
func ConsumeDecoded(ctx context.Context, c any, signal pipeline.Signal, payload []byte) error {
	data, err := DecodeEncoded(signal, payload)
	if err != nil {
		return err
	}
	switch d := data.(type) {
	case ptrace.Traces:
		if tc, ok := c.(consumer.Traces); ok {
			return tc.ConsumeTraces(ctx, d)
		}
	case pmetric.Metrics:
		if mc, ok := c.(consumer.Metrics); ok {
			return mc.ConsumeMetrics(ctx, d)
		}
	case plog.Logs:
		if lc, ok := c.(consumer.Logs); ok {
			return lc.ConsumeLogs(ctx, d)
		}
	}
	return consumererror.NewPermanent(fmt.Errorf("%T does not take %v: %w", c, signal, ErrUnsupportedSignal))
}

// DecodeEncoded decodes payload, an encoded request of signal, into a
// ptrace.Traces, pmetric.Metrics or plog.Logs. An error is permanent: the
// same bytes will not decode on a retry.
func DecodeEncoded(signal pipeline.Signal, payload []byte) (any, error) {
	var (
		data any
		err  error
	)
	switch signal {
	case pipeline.SignalTraces:
		data, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(payload)
	case pipeline.SignalMetrics:
		data, err = (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(payload)
	case pipeline.SignalLogs:
		data, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(payload)
	default:
		return nil, consumererror.NewPermanent(fmt.Errorf("encoded %v: %w", signal, ErrUnsupportedSignal))
	}
	if err != nil {
		return nil, consumererror.NewPermanent(fmt.Errorf("decoding an encoded %v request: %w", signal, err))
	}
	return data, nil
}

// SignalOf returns the flowlua signal of a collector signal; false for
// one flowlua does not carry (profiles).
func SignalOf(s pipeline.Signal) (Signal, bool) {
	switch s {
	case pipeline.SignalTraces:
		return Traces, true
	case pipeline.SignalMetrics:
		return Metrics, true
	case pipeline.SignalLogs:
		return Logs, true
	}
	return 0, false
}

// AcceptsEncoded reports whether the current target takes encoded
// requests of signal; without a target, it does not.
func (i *Indirect) AcceptsEncoded(signal pipeline.Signal) bool {
	if t := i.p.Load(); t != nil {
		return AcceptsEncoded(t.c, signal)
	}
	return false
}

// ConsumeEncoded forwards payload to the current target (ForwardEncoded).
func (i *Indirect) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	c, err := i.current(ctx)
	if err != nil {
		return err
	}
	return ForwardEncoded(ctx, c, signal, payload, items)
}

// AcceptsEncoded reports whether the consumer of signal takes encoded
// requests.
func (s *Signals) AcceptsEncoded(signal pipeline.Signal) bool {
	return AcceptsEncoded(s.Of(signal), signal)
}

// ConsumeEncoded forwards payload to the consumer of signal.
func (s *Signals) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	c := s.Of(signal)
	if c == nil {
		return fmt.Errorf("%v: %w", signal, ErrUnsupportedSignal)
	}
	return ForwardEncoded(ctx, c, signal, payload, items)
}

// Of returns the consumer of signal, nil if there is none.
func (s *Signals) Of(signal pipeline.Signal) any {
	switch {
	case signal == pipeline.SignalTraces && s.Traces != nil:
		return s.Traces
	case signal == pipeline.SignalMetrics && s.Metrics != nil:
		return s.Metrics
	case signal == pipeline.SignalLogs && s.Logs != nil:
		return s.Logs
	}
	return nil
}

// acceptsEncoded is the AcceptsEncoded of a fan-out of signal s: one
// consumer, which accepts them.
func (f *fanOut) acceptsEncoded(s Signal, signal pipeline.Signal) bool {
	if own, ok := SignalOf(signal); !ok || own != s || len(f.cs) != 1 {
		return false
	}
	return AcceptsEncoded(f.cs[0], signal)
}

// consumeEncoded is the ConsumeEncoded of a fan-out of signal s: the tap
// sees the items, and the one consumer gets payload (ForwardEncoded). With
// other than one consumer, payload is decoded and fanned out as pdata by
// self, the fan-out.
func (f *fanOut) consumeEncoded(ctx context.Context, s Signal, signal pipeline.Signal, payload []byte, items int, self any) error {
	if own, ok := SignalOf(signal); !ok || own != s {
		return consumererror.NewPermanent(fmt.Errorf("a fan-out of %v cannot take encoded %v", s, signal))
	}
	if len(f.cs) != 1 {
		return ConsumeDecoded(ctx, self, signal, payload)
	}
	if f.tap != nil {
		if vs := f.tap.viewers.Load(); len(f.counters) > 0 || vs != nil {
			for _, c := range f.counters {
				c.Add(uint64(items))
			}
			if vs != nil {
				offerSample(*vs, s, items, func() (any, bool) {
					data, err := DecodeEncoded(signal, payload)
					if err != nil {
						return nil, false
					}
					markReadOnly(data)
					return data, true
				})
			}
		}
	}
	return ForwardEncoded(ctx, f.cs[0], signal, payload, items)
}

func markReadOnly(data any) {
	if b, ok := data.(batch); ok {
		b.MarkReadOnly()
	}
}

// AcceptsEncoded: see fanOut.acceptsEncoded.
func (f *tracesFanOut) AcceptsEncoded(signal pipeline.Signal) bool {
	return f.acceptsEncoded(Traces, signal)
}

// ConsumeEncoded: see fanOut.consumeEncoded.
func (f *tracesFanOut) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	return f.consumeEncoded(ctx, Traces, signal, payload, items, f)
}

// AcceptsEncoded: see fanOut.acceptsEncoded.
func (f *metricsFanOut) AcceptsEncoded(signal pipeline.Signal) bool {
	return f.acceptsEncoded(Metrics, signal)
}

// ConsumeEncoded: see fanOut.consumeEncoded.
func (f *metricsFanOut) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	return f.consumeEncoded(ctx, Metrics, signal, payload, items, f)
}

// AcceptsEncoded: see fanOut.acceptsEncoded.
func (f *logsFanOut) AcceptsEncoded(signal pipeline.Signal) bool {
	return f.acceptsEncoded(Logs, signal)
}

// ConsumeEncoded: see fanOut.consumeEncoded.
func (f *logsFanOut) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	return f.consumeEncoded(ctx, Logs, signal, payload, items, f)
}
