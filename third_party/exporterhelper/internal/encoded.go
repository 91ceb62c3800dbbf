// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package internal // import "go.opentelemetry.io/collector/exporter/exporterhelper/internal"

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/queuebatch"
	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/request"
	"go.opentelemetry.io/collector/pipeline"
)

// flowlua patch 2 (FLOWLUA.md): an exporter made by NewTraces, NewMetrics
// or NewLogs also takes OTLP export requests still in their protobuf
// encoding. They go through the same queue, batching, retries, timeout and
// telemetry as pdata; the push decodes them, unless the exporter was given
// a push of its own for them (SetEncodedPush), which sends the bytes.

// encodedExporter is what an exporter holds to take encoded requests.
type encodedExporter struct {
	signal pipeline.Signal
	push   *queuebatch.EncodedPush
	newReq func(payload []byte, items int) request.Request
}

// EnableEncoded lets exp, made by NewTracesRequest, NewMetricsRequest or
// NewLogsRequest with a consume function built on push, take encoded
// requests. Any other exporter is left as it is.
func EnableEncoded(exp any, push *queuebatch.EncodedPush) {
	switch e := exp.(type) {
	case *tracesExporter:
		e.encoded = &encodedExporter{signal: pipeline.SignalTraces, push: push, newReq: queuebatch.NewEncodedTracesRequest}
	case *metricsExporter:
		e.encoded = &encodedExporter{signal: pipeline.SignalMetrics, push: push, newReq: queuebatch.NewEncodedMetricsRequest}
	case *logsExporter:
		e.encoded = &encodedExporter{signal: pipeline.SignalLogs, push: push, newReq: queuebatch.NewEncodedLogsRequest}
	}
}

// accepts reports whether e sends encoded requests of signal as they are.
func (e *encodedExporter) accepts(signal pipeline.Signal) bool {
	return e != nil && e.signal == signal && e.push.Enabled()
}

// consume queues payload, an encoded request of signal holding items items.
func (e *encodedExporter) consume(ctx context.Context, be *BaseExporter, signal pipeline.Signal, payload []byte, items int) error {
	if e == nil || e.signal != signal {
		return fmt.Errorf("the exporter takes no encoded %v", signal)
	}
	return be.Send(ctx, e.newReq(payload, items))
}

// setPush makes push send e's encoded requests.
func (e *encodedExporter) setPush(push func(ctx context.Context, payload []byte) error) {
	if e != nil {
		e.push.Set(push)
	}
}

// AcceptsEncoded reports whether the exporter sends encoded requests of
// signal without decoding them.
func (e *tracesExporter) AcceptsEncoded(signal pipeline.Signal) bool {
	return e.encoded.accepts(signal)
}

// ConsumeEncoded queues payload, the protobuf encoding of an OTLP export
// request of signal holding items items; the exporter owns payload.
func (e *tracesExporter) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	return e.encoded.consume(ctx, e.BaseExporter, signal, payload, items)
}

// SetEncodedPush makes push send the encoded requests.
func (e *tracesExporter) SetEncodedPush(push func(ctx context.Context, payload []byte) error) {
	e.encoded.setPush(push)
}

// AcceptsEncoded reports whether the exporter sends encoded requests of
// signal without decoding them.
func (e *metricsExporter) AcceptsEncoded(signal pipeline.Signal) bool {
	return e.encoded.accepts(signal)
}

// ConsumeEncoded queues payload, the protobuf encoding of an OTLP export
// request of signal holding items items; the exporter owns payload.
func (e *metricsExporter) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	return e.encoded.consume(ctx, e.BaseExporter, signal, payload, items)
}

// SetEncodedPush makes push send the encoded requests.
func (e *metricsExporter) SetEncodedPush(push func(ctx context.Context, payload []byte) error) {
	e.encoded.setPush(push)
}

// AcceptsEncoded reports whether the exporter sends encoded requests of
// signal without decoding them.
func (e *logsExporter) AcceptsEncoded(signal pipeline.Signal) bool {
	return e.encoded.accepts(signal)
}

// ConsumeEncoded queues payload, the protobuf encoding of an OTLP export
// request of signal holding items items; the exporter owns payload.
func (e *logsExporter) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	return e.encoded.consume(ctx, e.BaseExporter, signal, payload, items)
}

// SetEncodedPush makes push send the encoded requests.
func (e *logsExporter) SetEncodedPush(push func(ctx context.Context, payload []byte) error) {
	e.encoded.setPush(push)
}
