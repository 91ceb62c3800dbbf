package dataplane

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"

	"github.com/flowlua/flowlua/pluginsdk/otlpwire"
)

// A batch's OTLP encoding, when its sender has it (a receiver that read
// the request's bytes, a native plugin's answer), travels with the batch
// in its context, so that a consumer that would encode the batch (a
// native plugin's input) sends those bytes instead. The bytes are the
// batch as it was when they were attached; a component that mutates a
// batch in place passes on the same batch in the same context, so they
// are valid for the direct consumers of the next fan-out only:
//
//   - WithEncoded attaches them, unarmed;
//   - the first fan-out the batch reaches arms them for the consumers it
//     calls with that very batch (a consumer that mutates gets a copy,
//     which the bytes are not of, unless no other consumer shares the
//     batch; it can mutate only after it received the batch);
//   - a later fan-out, which a component reaches after it had the batch
//     and may have changed it, drops them;
//   - Encoded returns them to a consumer only when armed and attached to
//     the batch it was given.

type encodedKey struct{}

// encoded is an encoding in a context. Its payload is dropped when the
// call that attached it returns, so that a context kept longer (in a
// queue) does not keep the bytes.
type encoded struct {
	p     atomic.Pointer[payload]
	armed atomic.Bool
}

type payload struct {
	data any // the batch, compared by identity (pdata batches are pointers)
	b    []byte
}

// WithEncoded returns ctx carrying b, the OTLP protobuf encoding of the
// batch data (ptrace.Traces, pmetric.Metrics or plog.Logs), for the
// consumers of the fan-out data is sent to next, and the function that
// ends it, which the caller calls once that call returned: b must stay
// unchanged until then.
func WithEncoded(ctx context.Context, data any, b []byte) (context.Context, func()) {
	e := &encoded{}
	e.p.Store(&payload{data: data, b: b})
	return context.WithValue(ctx, encodedKey{}, e), func() { e.p.Store(nil) }
}

// Encoded returns the OTLP encoding of data that came with it in ctx,
// when the fan-out that called this consumer armed it for data.
func Encoded(ctx context.Context, data any) ([]byte, bool) {
	e, _ := ctx.Value(encodedKey{}).(*encoded)
	if e == nil || !e.armed.Load() {
		return nil, false
	}
	p := e.p.Load()
	if p == nil || p.data != data {
		return nil, false
	}
	return p.b, true
}

// hop is what a fan-out does with an encoding in ctx before it calls its
// consumers with data: arm it when it was attached to data and not armed
// yet, drop it otherwise.
func hop[T comparable](ctx context.Context, data T) context.Context {
	e, _ := ctx.Value(encodedKey{}).(*encoded)
	if e == nil {
		return ctx
	}
	if p := e.p.Load(); p != nil && p.data == any(data) && e.armed.CompareAndSwap(false, true) {
		return ctx
	}
	return context.WithValue(ctx, encodedKey{}, (*encoded)(nil))
}

// EncodedConsumer is a Consumer that can take a batch as its OTLP
// protobuf encoding, without the batch decoded: a receiver whose
// consumers all take its batches so (native plugins' inputs) hands them
// the request's bytes and decodes nothing.
type EncodedConsumer interface {
	// TakesEncoded reports whether batches of s may be given to
	// ConsumeEncoded without a decoded batch being needed behind it.
	TakesEncoded(s Signal) bool
	// ConsumeEncoded takes b, the encoding of a batch of s holding items
	// items (spans, data points, log records). b must stay unchanged
	// until the call returns. When what is behind no longer takes
	// encoded batches (a reload swapped it), the batch is decoded there.
	ConsumeEncoded(ctx context.Context, s Signal, b []byte, items int) error
}

// TakesEncoded reports whether c (a consumer of s) takes batches of s
// encoded.
func TakesEncoded(c any, s Signal) bool {
	e, ok := c.(EncodedConsumer)
	return ok && e.TakesEncoded(s)
}

// ConsumeEncoded gives b, a batch of s encoded, to c (a consumer of s):
// encoded when c takes it so, else decoded.
func ConsumeEncoded(ctx context.Context, c any, s Signal, b []byte, items int) error {
	if e, ok := c.(EncodedConsumer); ok && e.TakesEncoded(s) {
		return e.ConsumeEncoded(ctx, s, b, items)
	}
	return ConsumeDecoded(ctx, c, s, b)
}

// encodedBatches decodes the encoded batches a consumer that does not
// take them gets, with flowlua's fast decoder.
var encodedBatches = otlpwire.NewUnmarshaler(true)

// ConsumeDecoded decodes b, a batch of s, and gives it to c, a consumer
// of s, with its encoding (WithEncoded). A batch that does not decode is
// a permanent error.
func ConsumeDecoded(ctx context.Context, c any, s Signal, b []byte) error {
	switch s {
	case Traces:
		c, ok := c.(consumer.Traces)
		if !ok {
			break
		}
		td, err := encodedBatches.UnmarshalTraces(b)
		if err != nil {
			return consumererror.NewPermanent(err)
		}
		ctx, done := WithEncoded(ctx, td, b)
		defer done()
		return c.ConsumeTraces(ctx, td)
	case Metrics:
		c, ok := c.(consumer.Metrics)
		if !ok {
			break
		}
		md, err := encodedBatches.UnmarshalMetrics(b)
		if err != nil {
			return consumererror.NewPermanent(err)
		}
		ctx, done := WithEncoded(ctx, md, b)
		defer done()
		return c.ConsumeMetrics(ctx, md)
	case Logs:
		c, ok := c.(consumer.Logs)
		if !ok {
			break
		}
		ld, err := encodedBatches.UnmarshalLogs(b)
		if err != nil {
			return consumererror.NewPermanent(err)
		}
		ctx, done := WithEncoded(ctx, ld, b)
		defer done()
		return c.ConsumeLogs(ctx, ld)
	}
	return fmt.Errorf("%s: %w", s, ErrUnsupportedSignal)
}

// The consumers between a receiver and the consumers that take batches
// encoded pass them on encoded.

// TakesEncoded: when every consumer does, and no viewer watches.
func (f *fanOut) TakesEncoded(s Signal) bool {
	if len(f.cs) == 0 || f.tap != nil && f.tap.viewers.Load() != nil {
		return false
	}
	for _, c := range f.cs {
		if !TakesEncoded(c, s) {
			return false
		}
	}
	return true
}

// consumeEncoded sends b to every consumer, or, when they no longer all
// take it encoded, decodes it for the fan-out's rules.
func (f *fanOut) consumeEncoded(ctx context.Context, self any, s Signal, b []byte, items int) error {
	if !f.TakesEncoded(s) {
		return ConsumeDecoded(ctx, self, s, b)
	}
	for _, c := range f.counters {
		c.Add(uint64(items))
	}
	var errs []error
	for _, c := range f.cs {
		if err := ConsumeEncoded(ctx, c, s, b, items); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ConsumeEncoded sends b to the consumers.
func (f *tracesFanOut) ConsumeEncoded(ctx context.Context, s Signal, b []byte, items int) error {
	return f.consumeEncoded(ctx, f, s, b, items)
}

// ConsumeEncoded sends b to the consumers.
func (f *metricsFanOut) ConsumeEncoded(ctx context.Context, s Signal, b []byte, items int) error {
	return f.consumeEncoded(ctx, f, s, b, items)
}

// ConsumeEncoded sends b to the consumers.
func (f *logsFanOut) ConsumeEncoded(ctx context.Context, s Signal, b []byte, items int) error {
	return f.consumeEncoded(ctx, f, s, b, items)
}

// TakesEncoded: when the current target does.
func (i *Indirect) TakesEncoded(s Signal) bool {
	c := i.Get()
	return c != nil && TakesEncoded(c, s)
}

// ConsumeEncoded forwards b to the current target.
func (i *Indirect) ConsumeEncoded(ctx context.Context, s Signal, b []byte, items int) error {
	c, err := i.current(ctx)
	if err != nil {
		return err
	}
	return ConsumeEncoded(ctx, c, s, b, items)
}

// of returns the consumer of s.
func (x *Signals) of(s Signal) any {
	switch s {
	case Traces:
		return x.Traces
	case Metrics:
		return x.Metrics
	case Logs:
		return x.Logs
	}
	return nil
}

// TakesEncoded: when the consumer of s does.
func (x *Signals) TakesEncoded(s Signal) bool { return TakesEncoded(x.of(s), s) }

// ConsumeEncoded passes b to the consumer of s.
func (x *Signals) ConsumeEncoded(ctx context.Context, s Signal, b []byte, items int) error {
	c := x.of(s)
	if c == nil {
		return fmt.Errorf("%s: %w", s, ErrUnsupportedSignal)
	}
	return ConsumeEncoded(ctx, c, s, b, items)
}

// TakesEncoded: when the consumer behind does.
func (e entry) TakesEncoded(s Signal) bool { return TakesEncoded(e.next, s) }

// ConsumeEncoded passes b on: there is no batch to own.
func (e entry) ConsumeEncoded(ctx context.Context, s Signal, b []byte, items int) error {
	return ConsumeEncoded(ctx, e.next, s, b, items)
}
