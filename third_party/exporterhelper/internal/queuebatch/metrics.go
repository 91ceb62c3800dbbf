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
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
	pdatareq "go.opentelemetry.io/collector/pdata/xpdata/request"
)

var (
	metricsMarshaler   = &pmetric.ProtoMarshaler{}
	metricsUnmarshaler = &pmetric.ProtoUnmarshaler{}
)

func NewMetricsQueueBatchSettings() Settings[request.Request] {
	return Settings[request.Request]{
		ReferenceCounter: metricsReferenceCounter{},
		Encoding:         metricsEncoding{},
	}
}

var (
	_ request.Request      = (*metricsRequest)(nil)
	_ request.ErrorHandler = (*metricsRequest)(nil)
)

type metricsRequest struct {
	md         pmetric.Metrics
	cachedSize int
	enc        *encoded // flowlua: the payload md is decoded from when first needed; nil once decoded (encoded.go)
	decoded    bool     // flowlua: md was decoded from enc, so it was never referenced (pref)
}

// newEncodedMetricsRequest returns a request that holds an OTLP export request
// still in its protobuf encoding (flowlua, encoded.go).
func newEncodedMetricsRequest(payload []byte, items int) request.Request {
	return &metricsRequest{enc: &encoded{payload: payload, items: items}, cachedSize: -1}
}

// data returns the request's md, decoding it first if the request is still
// encoded (flowlua, encoded.go).
func (req *metricsRequest) data() (pmetric.Metrics, error) {
	if req.enc != nil {
		md, err := metricsUnmarshaler.UnmarshalMetrics(req.enc.payload)
		if err != nil {
			return pmetric.Metrics{}, fmt.Errorf("decoding an encoded metrics request: %w", err)
		}
		req.md, req.enc, req.decoded = md, nil, true
	}
	return req.md, nil
}

func newMetricsRequest(md pmetric.Metrics) request.Request {
	return &metricsRequest{
		md:         md,
		cachedSize: -1,
	}
}

type metricsEncoding struct{}

var _ encoding[request.Request] = metricsEncoding{}

func (metricsEncoding) Unmarshal(bytes []byte) (context.Context, request.Request, error) {
	ctx, metrics, err := pdatareq.UnmarshalMetrics(bytes)
	if errors.Is(err, pdatareq.ErrInvalidFormat) {
		// fall back to unmarshaling without context
		metrics, err = metricsUnmarshaler.UnmarshalMetrics(bytes)
	}
	return ctx, newMetricsRequest(metrics), err
}

func (metricsEncoding) Marshal(ctx context.Context, req request.Request) ([]byte, error) {
	md, err := req.(*metricsRequest).data()
	if err != nil {
		return nil, err
	}
	return pdatareq.MarshalMetrics(ctx, md)
}

var _ queue.ReferenceCounter[request.Request] = metricsReferenceCounter{}

type metricsReferenceCounter struct{}

func (metricsReferenceCounter) Ref(req request.Request) {
	if r := req.(*metricsRequest); r.enc == nil && !r.decoded {
		pref.RefMetrics(r.md)
	}
}

func (metricsReferenceCounter) Unref(req request.Request) {
	if r := req.(*metricsRequest); r.enc == nil && !r.decoded {
		pref.UnrefMetrics(r.md)
	}
}

func (req *metricsRequest) OnError(err error) request.Request {
	var metricsError consumererror.Metrics
	if errors.As(err, &metricsError) {
		// TODO: Add logic to unref the new request created here.
		return newMetricsRequest(metricsError.Data())
	}
	return req
}

func (req *metricsRequest) ItemsCount() int {
	if req.enc != nil {
		return req.enc.items
	}
	return req.md.DataPointCount()
}

func (req *metricsRequest) size(sizer sizer.MetricsSizer) int {
	if req.cachedSize == -1 {
		md, err := req.data()
		if err != nil {
			return 0
		}
		req.cachedSize = sizer.MetricsSize(md)
	}
	return req.cachedSize
}

func (req *metricsRequest) setCachedSize(count int) {
	req.cachedSize = count
}

func (req *metricsRequest) BytesSize() int {
	if req.enc != nil {
		return len(req.enc.payload)
	}
	return metricsMarshaler.MetricsSize(req.md)
}

// RequestFromMetrics returns a RequestFromMetricsFunc that converts pdata.Metrics into a Request.
func RequestFromMetrics() request.RequestConverterFunc[pmetric.Metrics] {
	return func(_ context.Context, md pmetric.Metrics) (request.Request, error) {
		return newMetricsRequest(md), nil
	}
}

// RequestConsumeFromMetrics returns a RequestConsumeFunc that consumes pmetric.Metrics.
func RequestConsumeFromMetrics(pusher consumer.ConsumeMetricsFunc) request.RequestConsumeFunc {
	return RequestConsumeFromMetricsOrEncoded(pusher, nil)
}

// RequestConsumeFromMetricsOrEncoded is RequestConsumeFromMetrics that sends a
// request still encoded with encoded's push when it has one (flowlua,
// encoded.go); a nil encoded has none.
func RequestConsumeFromMetricsOrEncoded(pusher consumer.ConsumeMetricsFunc, encoded *EncodedPush) request.RequestConsumeFunc {
	return func(ctx context.Context, request request.Request) error {
		req := request.(*metricsRequest)
		if push := encoded.get(); push != nil && req.enc != nil {
			return push(ctx, req.enc.payload)
		}
		md, err := req.data()
		if err != nil {
			return consumererror.NewPermanent(err)
		}
		return pusher.ConsumeMetrics(ctx, md)
	}
}

// NewEncodedMetricsRequest returns a request holding payload, the protobuf
// encoding of an OTLP export request of metrics with items items (flowlua,
// encoded.go).
func NewEncodedMetricsRequest(payload []byte, items int) request.Request {
	return newEncodedMetricsRequest(payload, items)
}
