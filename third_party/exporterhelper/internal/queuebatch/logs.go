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
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
	pdatareq "go.opentelemetry.io/collector/pdata/xpdata/request"
)

var (
	logsMarshaler   = &plog.ProtoMarshaler{}
	logsUnmarshaler = &plog.ProtoUnmarshaler{}
)

// NewLogsQueueBatchSettings returns a new QueueBatchSettings to configure to WithQueueBatch when using plog.Logs.
// Experimental: This API is at the early stage of development and may change without backward compatibility
// until https://github.com/open-telemetry/opentelemetry-collector/issues/8122 is resolved.
func NewLogsQueueBatchSettings() Settings[request.Request] {
	return Settings[request.Request]{
		ReferenceCounter: logsReferenceCounter{},
		Encoding:         logsEncoding{},
	}
}

var (
	_ request.Request      = (*logsRequest)(nil)
	_ request.ErrorHandler = (*logsRequest)(nil)
)

type logsRequest struct {
	ld         plog.Logs
	cachedSize int
	enc        *encoded // flowlua: the payload ld is decoded from when first needed; nil once decoded (encoded.go)
	decoded    bool     // flowlua: ld was decoded from enc, so it was never referenced (pref)
}

// newEncodedLogsRequest returns a request that holds an OTLP export request
// still in its protobuf encoding (flowlua, encoded.go).
func newEncodedLogsRequest(payload []byte, items int) request.Request {
	return &logsRequest{enc: &encoded{payload: payload, items: items}, cachedSize: -1}
}

// data returns the request's ld, decoding it first if the request is still
// encoded (flowlua, encoded.go).
func (req *logsRequest) data() (plog.Logs, error) {
	if req.enc != nil {
		ld, err := logsUnmarshaler.UnmarshalLogs(req.enc.payload)
		if err != nil {
			return plog.Logs{}, fmt.Errorf("decoding an encoded logs request: %w", err)
		}
		req.ld, req.enc, req.decoded = ld, nil, true
	}
	return req.ld, nil
}

func newLogsRequest(ld plog.Logs) request.Request {
	return &logsRequest{
		ld:         ld,
		cachedSize: -1,
	}
}

type logsEncoding struct{}

var _ encoding[request.Request] = logsEncoding{}

func (logsEncoding) Unmarshal(bytes []byte) (context.Context, request.Request, error) {
	ctx, logs, err := pdatareq.UnmarshalLogs(bytes)
	if errors.Is(err, pdatareq.ErrInvalidFormat) {
		// fall back to unmarshaling without context
		logs, err = logsUnmarshaler.UnmarshalLogs(bytes)
	}
	return ctx, newLogsRequest(logs), err
}

func (logsEncoding) Marshal(ctx context.Context, req request.Request) ([]byte, error) {
	ld, err := req.(*logsRequest).data()
	if err != nil {
		return nil, err
	}
	return pdatareq.MarshalLogs(ctx, ld)
}

var _ queue.ReferenceCounter[request.Request] = logsReferenceCounter{}

type logsReferenceCounter struct{}

func (logsReferenceCounter) Ref(req request.Request) {
	if r := req.(*logsRequest); r.enc == nil && !r.decoded {
		pref.RefLogs(r.ld)
	}
}

func (logsReferenceCounter) Unref(req request.Request) {
	if r := req.(*logsRequest); r.enc == nil && !r.decoded {
		pref.UnrefLogs(r.ld)
	}
}

func (req *logsRequest) OnError(err error) request.Request {
	var logError consumererror.Logs
	if errors.As(err, &logError) {
		// TODO: Add logic to unref the new request created here.
		return newLogsRequest(logError.Data())
	}
	return req
}

func (req *logsRequest) ItemsCount() int {
	if req.enc != nil {
		return req.enc.items
	}
	return req.ld.LogRecordCount()
}

func (req *logsRequest) size(sizer sizer.LogsSizer) int {
	if req.cachedSize == -1 {
		ld, err := req.data()
		if err != nil {
			return 0
		}
		req.cachedSize = sizer.LogsSize(ld)
	}
	return req.cachedSize
}

func (req *logsRequest) setCachedSize(size int) {
	req.cachedSize = size
}

func (req *logsRequest) BytesSize() int {
	if req.enc != nil {
		return len(req.enc.payload)
	}
	return logsMarshaler.LogsSize(req.ld)
}

// RequestConsumeFromLogs returns a RequestConsumeFunc that consumes plog.Logs.
func RequestConsumeFromLogs(pusher consumer.ConsumeLogsFunc) request.RequestConsumeFunc {
	return RequestConsumeFromLogsOrEncoded(pusher, nil)
}

// RequestConsumeFromLogsOrEncoded is RequestConsumeFromLogs that sends a
// request still encoded with encoded's push when it has one (flowlua,
// encoded.go); a nil encoded has none.
func RequestConsumeFromLogsOrEncoded(pusher consumer.ConsumeLogsFunc, encoded *EncodedPush) request.RequestConsumeFunc {
	return func(ctx context.Context, request request.Request) error {
		req := request.(*logsRequest)
		if push := encoded.get(); push != nil && req.enc != nil {
			return push(ctx, req.enc.payload)
		}
		ld, err := req.data()
		if err != nil {
			return consumererror.NewPermanent(err)
		}
		return pusher.ConsumeLogs(ctx, ld)
	}
}

// NewEncodedLogsRequest returns a request holding payload, the protobuf
// encoding of an OTLP export request of logs with items items (flowlua,
// encoded.go).
func NewEncodedLogsRequest(payload []byte, items int) request.Request {
	return newEncodedLogsRequest(payload, items)
}

// RequestFromLogs returns a RequestFromLogsFunc that converts plog.Logs into a Request.
func RequestFromLogs() request.RequestConverterFunc[plog.Logs] {
	return func(_ context.Context, ld plog.Logs) (request.Request, error) {
		return newLogsRequest(ld), nil
	}
}
