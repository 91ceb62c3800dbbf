// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package queuebatch // import "go.opentelemetry.io/collector/exporter/exporterhelper/internal/queuebatch"

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/queue"
	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/request"
	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/sizer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
	pdatareq "go.opentelemetry.io/collector/pdata/xpdata/request"
)

var (
	tracesMarshaler   = &ptrace.ProtoMarshaler{}
	tracesUnmarshaler = &ptrace.ProtoUnmarshaler{}
)

// NewTracesQueueBatchSettings returns a new QueueBatchSettings to configure to WithQueueBatch when using ptrace.Traces.
// Experimental: This API is at the early stage of development and may change without backward compatibility
// until https://github.com/open-telemetry/opentelemetry-collector/issues/8122 is resolved.
func NewTracesQueueBatchSettings() Settings[request.Request] {
	return Settings[request.Request]{
		ReferenceCounter: tracesReferenceCounter{},
		Encoding:         tracesEncoding{},
	}
}

var (
	_ request.Request      = (*tracesRequest)(nil)
	_ request.ErrorHandler = (*tracesRequest)(nil)
)

type tracesRequest struct {
	td         ptrace.Traces
	cachedSize int
	enc        *encoded // flowlua: the payload td is decoded from when first needed; nil once decoded (encoded.go)
	decoded    bool     // flowlua: td was decoded from enc, so it was never referenced (pref)
}

// newEncodedTracesRequest returns a request that holds an OTLP export request
// still in its protobuf encoding (flowlua, encoded.go).
func newEncodedTracesRequest(payload []byte, items int) request.Request {
	return &tracesRequest{enc: &encoded{payload: payload, items: items}, cachedSize: -1}
}

// data returns the request's td, decoding it first if the request is still
// encoded (flowlua, encoded.go).
func (req *tracesRequest) data() (ptrace.Traces, error) {
	if req.enc != nil {
		td, err := tracesUnmarshaler.UnmarshalTraces(req.enc.payload)
		if err != nil {
			return ptrace.Traces{}, fmt.Errorf("decoding an encoded traces request: %w", err)
		}
		req.td, req.enc, req.decoded = td, nil, true
	}
	return req.td, nil
}

func newTracesRequest(td ptrace.Traces) request.Request {
	return &tracesRequest{
		td:         td,
		cachedSize: -1,
	}
}

type tracesEncoding struct{}

var _ encoding[request.Request] = tracesEncoding{}

func (tracesEncoding) Unmarshal(bytes []byte) (context.Context, request.Request, error) {
	ctx, traces, err := pdatareq.UnmarshalTraces(bytes)
	if errors.Is(err, pdatareq.ErrInvalidFormat) {
		// fall back to unmarshaling without context
		traces, err = tracesUnmarshaler.UnmarshalTraces(bytes)
	}
	return ctx, newTracesRequest(traces), err
}

func (tracesEncoding) Marshal(ctx context.Context, req request.Request) ([]byte, error) {
	td, err := req.(*tracesRequest).data()
	if err != nil {
		return nil, err
	}
	return pdatareq.MarshalTraces(ctx, td)
}

var _ queue.ReferenceCounter[request.Request] = tracesReferenceCounter{}

type tracesReferenceCounter struct{}

func (tracesReferenceCounter) Ref(req request.Request) {
	if r := req.(*tracesRequest); r.enc == nil && !r.decoded {
		pref.RefTraces(r.td)
	}
}

func (tracesReferenceCounter) Unref(req request.Request) {
	if r := req.(*tracesRequest); r.enc == nil && !r.decoded {
		pref.UnrefTraces(r.td)
	}
}

func (req *tracesRequest) OnError(err error) request.Request {
	var traceError consumererror.Traces
	if errors.As(err, &traceError) {
		// TODO: Add logic to unref the new request created here.
		return newTracesRequest(traceError.Data())
	}
	return req
}

func (req *tracesRequest) ItemsCount() int {
	if req.enc != nil {
		return req.enc.items
	}
	return req.td.SpanCount()
}

func (req *tracesRequest) size(sizer sizer.TracesSizer) int {
	if req.cachedSize == -1 {
		td, err := req.data()
		if err != nil {
			return 0
		}
		req.cachedSize = sizer.TracesSize(td)
	}
	return req.cachedSize
}

func (req *tracesRequest) setCachedSize(size int) {
	req.cachedSize = size
}

func (req *tracesRequest) BytesSize() int {
	if req.enc != nil {
		return len(req.enc.payload)
	}
	return tracesMarshaler.TracesSize(req.td)
}

// RequestConsumeFromTraces returns a RequestConsumeFunc that consumes ptrace.Traces.
func RequestConsumeFromTraces(pusher consumer.ConsumeTracesFunc) request.RequestConsumeFunc {
	return RequestConsumeFromTracesOrEncoded(pusher, nil)
}

// RequestConsumeFromTracesOrEncoded is RequestConsumeFromTraces that sends a
// request still encoded with encoded's push when it has one (flowlua,
// encoded.go); a nil encoded has none.
func RequestConsumeFromTracesOrEncoded(pusher consumer.ConsumeTracesFunc, encoded *EncodedPush) request.RequestConsumeFunc {
	return func(ctx context.Context, request request.Request) error {
		req := request.(*tracesRequest)
		if push := encoded.get(); push != nil && req.enc != nil {
			return push(ctx, req.enc.payload)
		}
		td, err := req.data()
		if err != nil {
			return consumererror.NewPermanent(err)
		}
		return pusher.ConsumeTraces(ctx, td)
	}
}

// NewEncodedTracesRequest returns a request holding payload, the protobuf
// encoding of an OTLP export request of traces with items items (flowlua,
// encoded.go).
func NewEncodedTracesRequest(payload []byte, items int) request.Request {
	return newEncodedTracesRequest(payload, items)
}

// RequestFromTraces returns a RequestConverterFunc that converts ptrace.Traces into a Request.
func RequestFromTraces() request.RequestConverterFunc[ptrace.Traces] {
	return func(_ context.Context, traces ptrace.Traces) (request.Request, error) {
		return newTracesRequest(traces), nil
	}
}
