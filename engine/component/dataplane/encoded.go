package dataplane

import (
	"context"
	"sync/atomic"
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
