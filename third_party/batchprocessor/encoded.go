// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package batchprocessor // import "go.opentelemetry.io/collector/processor/batchprocessor"

import (
	"context"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
	"go.opentelemetry.io/collector/pipeline"
)

// This file is flowlua's patch to the batch processor (see FLOWLUA.md):
// batches wait encoded when the next consumer takes encoded requests.
//
// Why: a batch waits in memory until it is full or its timeout expires, and
// decoded pdata costs about 184 bytes per metric data point where its
// protobuf encoding costs about 40. When the next consumer takes OTLP export
// requests still encoded (it would encode the batch anyway), the processor
// encodes each request as it arrives, in the caller's goroutine, and a batch
// is the concatenation of these encodings: concatenating the encodings of
// several Export*ServiceRequest messages gives one message whose repeated
// resource_* field holds all of theirs in order, exactly what upstream's
// MoveAndAppendTo into the batch produces. So the next consumer receives the
// same batches as with upstream's code, their size in bytes (recorded in
// otelcol_processor_batch_batch_send_size_bytes) is the payload's length,
// and the memory a waiting batch holds is about 4 times smaller.
//
// Splitting a batch (send_batch_max_size > 0) needs pdata, so then requests
// are never encoded. Whenever the next consumer stops taking encoded
// requests, encoded items are decoded and everything works as upstream.

// encodedConsumer is implemented by a next consumer that takes OTLP export requests still encoded.
type encodedConsumer interface {
	// AcceptsEncoded reports whether ConsumeEncoded takes requests of signal now (it may change over time).
	AcceptsEncoded(signal pipeline.Signal) bool
	// ConsumeEncoded takes payload: the protobuf encoding of an OTLP export request of signal
	// (ExportTraceServiceRequest, ExportMetricsServiceRequest or ExportLogsServiceRequest)
	// holding `items` spans, data points or log records. The consumer owns payload afterwards.
	ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error
}

// item is what the batches of a processor for pdata type D take and export:
// data, or, when payload != nil, the protobuf encoding of an export request
// holding n items (n may be 0 only in an item passed to add, which drops it).
type item[D any] struct {
	data    D
	payload []byte
	n       int
	// scratch, when not nil, holds payload: a buffer of scratchBuffers
	// that add gives back once it has copied payload.
	scratch *[]byte
}

// requestEncoder, when set (SetRequestEncoder), encodes requests into the
// buffers of scratchBuffers.
var requestEncoder atomic.Pointer[func(dst []byte, data any) ([]byte, bool)]

// scratchBuffers hold the encodings of requests between the caller's
// goroutine and the batch's, which copies them into the batch.
var scratchBuffers = sync.Pool{New: func() any { return new([]byte) }}

// SetRequestEncoder makes the processors encode a request with enc, which
// appends the protobuf encoding of data (a ptrace.Traces, pmetric.Metrics
// or plog.Logs, as the export request wrapping it) to dst and reports
// whether it could, into a buffer they reuse. Without it, or when enc
// reports false, pdata's ProtoMarshaler encodes each request into a new
// buffer. flowlua sets it (stdlib/otelcol/otlpwire.AppendRequest).
func SetRequestEncoder(enc func(dst []byte, data any) ([]byte, bool)) {
	requestEncoder.Store(&enc)
}

// encode returns the encoding of data, in a scratch buffer if an encoder
// was set (nil scratch: a buffer of its own).
func (c codec[D]) encode(data D) (payload []byte, scratch *[]byte, err error) {
	if enc := requestEncoder.Load(); enc != nil {
		bp := scratchBuffers.Get().(*[]byte)
		if b, ok := (*enc)((*bp)[:0], data); ok {
			*bp = b
			return b, bp, nil
		}
		scratchBuffers.Put(bp)
	}
	payload, err = c.marshal(data)
	return payload, nil, err
}

// encoded reports whether the item holds an encoded request rather than pdata.
func (it item[D]) encoded() bool {
	return it.payload != nil
}

// codec is what the encoded path needs to know about the pdata type D of a signal.
type codec[D any] struct {
	signal    pipeline.Signal
	count     func(D) int
	marshal   func(D) ([]byte, error)
	unmarshal func([]byte) (D, error)
	// ref is upstream's pref.RefX, taken on pdata handed to a batch.
	ref func(D)
}

// tracesCodec is the codec of traces.
var tracesCodec = codec[ptrace.Traces]{
	signal:    pipeline.SignalTraces,
	count:     ptrace.Traces.SpanCount,
	marshal:   (&ptrace.ProtoMarshaler{}).MarshalTraces,
	unmarshal: (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces,
	ref:       pref.RefTraces,
}

// metricsCodec is the codec of metrics.
var metricsCodec = codec[pmetric.Metrics]{
	signal:    pipeline.SignalMetrics,
	count:     pmetric.Metrics.DataPointCount,
	marshal:   (&pmetric.ProtoMarshaler{}).MarshalMetrics,
	unmarshal: (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics,
	ref:       pref.RefMetrics,
}

// logsCodec is the codec of logs.
var logsCodec = codec[plog.Logs]{
	signal:    pipeline.SignalLogs,
	count:     plog.Logs.LogRecordCount,
	marshal:   (&plog.ProtoMarshaler{}).MarshalLogs,
	unmarshal: (&plog.ProtoUnmarshaler{}).UnmarshalLogs,
	ref:       pref.RefLogs,
}

// encoder turns the requests a processor receives into batch items and makes its batches.
type encoder[D any] struct {
	codec[D]
	logger *zap.Logger
	// next is the processor's next consumer if it implements encodedConsumer, else nil.
	next encodedConsumer
	// enabled reports whether requests may be encoded: next is not nil and
	// the config does not split batches (send_batch_max_size is 0).
	enabled bool
}

// newEncoder returns the encoder of a processor for the signal of c, with next consumer next and config cfg.
func newEncoder[D any](c codec[D], logger *zap.Logger, next any, cfg *Config) *encoder[D] {
	e := &encoder[D]{codec: c, logger: logger}
	e.next, _ = next.(encodedConsumer)
	e.enabled = e.next != nil && cfg.SendBatchMaxSize == 0
	return e
}

// item returns data as a batch item: encoded when the next consumer takes
// encoded requests now (data is not kept then), else data itself,
// referenced as upstream's ConsumeX does.
func (e *encoder[D]) item(data D) item[D] {
	if e.enabled && e.next.AcceptsEncoded(e.signal) {
		n := e.count(data)
		if n == 0 {
			// An empty, non-nil payload: the batch drops it as upstream's add drops empty data.
			return item[D]{payload: []byte{}}
		}
		if payload, scratch, err := e.encode(data); err == nil && payload != nil {
			return item[D]{payload: payload, n: n, scratch: scratch}
		}
	}
	e.ref(data)
	return item[D]{data: data}
}

// newBatch returns a batch of items keeping pdata ones in upstream's batch b.
func (e *encoder[D]) newBatch(b batch[D]) batch[item[D]] {
	return &itemBatch[D]{encoder: e, pdata: b}
}

// itemBatch is a batch of items: pdata ones wait in upstream's batch,
// encoded ones concatenated in buf. At most one of the two parts is
// non-empty at a time, so the batch keeps the items in order.
type itemBatch[D any] struct {
	*encoder[D]
	// pdata is upstream's batch.
	pdata batch[D]
	// buf is the concatenation of the encoded items' payloads; nil after a split.
	buf []byte
	// n is the number of items (spans, data points, log records) in buf.
	n int
	// lastLen is the length of the last buffer split off, the capacity
	// allocated for the next one, as batches are of similar size.
	lastLen int
}

// add adds it to the batch, decoding the encoded part of the batch or it
// when they are not of the same kind.
func (b *itemBatch[D]) add(it item[D]) {
	switch {
	case !it.encoded():
		if b.n > 0 && b.count(it.data) > 0 {
			if err := b.toPdata(); err != nil {
				b.logDropped(err, b.n)
				b.takeBuffer()
			}
		}
		b.pdata.add(it.data)
	case it.n == 0:
	case b.pdata.itemCount() > 0:
		data, err := b.unmarshal(it.payload)
		if err != nil {
			b.logDropped(err, it.n)
			return
		}
		b.pdata.add(data)
	default:
		if b.buf == nil {
			b.buf = make([]byte, 0, max(b.lastLen, len(it.payload)))
		}
		b.buf = append(b.buf, it.payload...)
		b.n += it.n
		if it.scratch != nil {
			scratchBuffers.Put(it.scratch)
		}
	}
}

// toPdata moves the encoded part of the batch into the pdata part, or
// leaves it where it is if it does not decode.
func (b *itemBatch[D]) toPdata() error {
	data, err := b.unmarshal(b.buf)
	if err != nil {
		return err
	}
	b.takeBuffer()
	b.pdata.add(data)
	return nil
}

// takeBuffer empties the encoded part of the batch and returns it as an item.
func (b *itemBatch[D]) takeBuffer() item[D] {
	it := item[D]{payload: b.buf, n: b.n}
	b.lastLen = len(b.buf)
	b.buf, b.n = nil, 0
	return it
}

// logDropped logs the loss of n items whose encoding did not decode (pdata's own encodings always do).
func (b *itemBatch[D]) logDropped(err error, n int) {
	b.logger.Error("Dropping items whose encoding does not decode",
		zap.Stringer("signal", b.signal), zap.Int("items", n), zap.Error(err))
}

// split returns the whole encoded part as one item if it is not empty and
// fits sendBatchMaxSize, else it decodes it and uses upstream's split.
func (b *itemBatch[D]) split(sendBatchMaxSize int) (int, item[D]) {
	if b.n > 0 {
		if sendBatchMaxSize == 0 || b.n <= sendBatchMaxSize {
			it := b.takeBuffer()
			return it.n, it
		}
		if err := b.toPdata(); err != nil {
			// Sent whole: export reports that it does not decode.
			it := b.takeBuffer()
			return it.n, it
		}
	}
	sent, data := b.pdata.split(sendBatchMaxSize)
	return sent, item[D]{data: data}
}

// itemCount returns the number of items in both parts of the batch.
func (b *itemBatch[D]) itemCount() int {
	return b.pdata.itemCount() + b.n
}

// sizeBytes returns the size of the OTLP encoding of it, as upstream's sizer computes it.
func (b *itemBatch[D]) sizeBytes(it item[D]) int {
	if it.encoded() {
		return len(it.payload)
	}
	return b.pdata.sizeBytes(it.data)
}

// export sends it to the next consumer: encoded if the consumer still takes
// it so, else as pdata with upstream's export.
func (b *itemBatch[D]) export(ctx context.Context, it item[D]) error {
	if !it.encoded() {
		return b.pdata.export(ctx, it.data)
	}
	if b.next != nil && b.next.AcceptsEncoded(b.signal) {
		return b.next.ConsumeEncoded(ctx, b.signal, it.payload, it.n)
	}
	data, err := b.unmarshal(it.payload)
	if err != nil {
		b.logger.Error("Failed to decode an encoded batch",
			zap.Stringer("signal", b.signal), zap.Int("items", it.n), zap.Error(err))
		return err
	}
	return b.pdata.export(ctx, data)
}
