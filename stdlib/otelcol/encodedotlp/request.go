// Package encodedotlp is an OTLP/gRPC exporter whose sending queue holds
// each request as the protobuf encoding of its OTLP export request rather
// than as pdata. It is built on the collector's public request API
// (xexporterhelper): the request is encoded when the exporter takes it,
// batches merge by concatenating encodings (an export request's only
// field is repeated, so the concatenation of two encodings is the encoding
// of their union), a batch is decoded only to split it, and the bytes are
// sent as they are. Everything else is the upstream otlp_grpc exporter's:
// its config type, defaults, connection (configgrpc), retry, timeout,
// queue and batching settings, and its reading of the server's answer.
package encodedotlp

import (
	"context"
	"fmt"
	"slices"

	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exporterhelper/xexporterhelper"
	"go.opentelemetry.io/collector/pipeline"
)

// request is one export request of one signal, encoded: the
// concatenation of parts is the encoding of an
// Export{Trace,Metrics,Logs}ServiceRequest. A merge appends the other
// request's parts, copying no bytes, and gRPC writes the parts one after
// the other.
type request struct {
	signal pipeline.Signal
	parts  [][]byte
	nbytes int // the length of the encoding: of all parts
	items  int // spans, data points or log records
}

// newRequest returns the request of signal that payload encodes.
func newRequest(signal pipeline.Signal, payload []byte, items int) *request {
	return &request{signal: signal, parts: [][]byte{payload}, nbytes: len(payload), items: items}
}

// bytes returns the encoding in one slice, joining the parts when there
// are several.
func (r *request) bytes() []byte {
	if len(r.parts) == 1 {
		return r.parts[0]
	}
	return slices.Concat(r.parts...)
}

var _ xexporterhelper.Request = (*request)(nil)

// ItemsCount returns the spans, data points or log records in the request.
func (r *request) ItemsCount() int { return r.items }

// BytesSize returns the length of the encoding.
func (r *request) BytesSize() int { return r.nbytes }

// size returns the request's size as szt measures it.
func (r *request) size(szt exporterhelper.RequestSizerType) (int, error) {
	switch szt {
	case exporterhelper.RequestSizerTypeItems:
		return r.items, nil
	case exporterhelper.RequestSizerTypeBytes:
		return r.nbytes, nil
	}
	return 0, fmt.Errorf("unknown sizer type %v", szt)
}

// MergeSplit appends r2's encoding to r's (when r2 is not nil) and splits
// the result into requests no larger than maxSize as szt measures them;
// maxSize 0 does not split. Only a split decodes: the merged request is
// decoded, cut into pieces of at most maxSize items (or bytes), the last
// one the smallest, and each piece is encoded again. Neither r nor r2 is
// changed when it returns an error.
func (r *request) MergeSplit(_ context.Context, maxSize int, szt exporterhelper.RequestSizerType, r2 xexporterhelper.Request) ([]xexporterhelper.Request, error) {
	merged := r
	if r2 != nil {
		o, ok := r2.(*request)
		if !ok {
			return nil, fmt.Errorf("merging %T into an encoded OTLP request", r2)
		}
		if o.signal != r.signal {
			return nil, fmt.Errorf("merging an encoded %v request into a %v one", o.signal, r.signal)
		}
		// A full slice expression: r's parts are never written through.
		parts := append(r.parts[:len(r.parts):len(r.parts)], o.parts...)
		merged = &request{signal: r.signal, parts: parts, nbytes: r.nbytes + o.nbytes, items: r.items + o.items}
	}
	size, err := merged.size(szt)
	if err != nil {
		return nil, err
	}
	if maxSize <= 0 || size <= maxSize {
		return []xexporterhelper.Request{merged}, nil
	}
	pieces, err := split(merged, maxSize, szt)
	if err != nil {
		return nil, err
	}
	out := make([]xexporterhelper.Request, len(pieces))
	for i, p := range pieces {
		out[i] = p
	}
	return out, nil
}
