// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package queuebatch // import "go.opentelemetry.io/collector/exporter/exporterhelper/internal/queuebatch"

import (
	"context"
	"sync/atomic"
)

// flowlua patch 2 (FLOWLUA.md): a request may hold an OTLP export request
// still in its protobuf encoding, as flowlua's batch processor hands it
// over, so that a batch waits in the queue as bytes (about a quarter of
// what pdata holds for the same items). Everything that needs the items
// decodes it first, once (the request's data method); counting and
// sizing it in bytes do not, and neither does sending it when the
// exporter has an EncodedPush.

// encoded is a request's payload before it is decoded.
type encoded struct {
	payload []byte // an Export*ServiceRequest's protobuf encoding
	items   int    // the spans, data points or log records it holds
}

// EncodedPush holds how an exporter sends a request that is still
// encoded; until it is set, such a request is decoded and pushed as pdata.
type EncodedPush struct {
	push atomic.Pointer[func(ctx context.Context, payload []byte) error]
}

// Set makes push send the requests still encoded.
func (p *EncodedPush) Set(push func(ctx context.Context, payload []byte) error) {
	p.push.Store(&push)
}

// Enabled reports whether a push was set.
func (p *EncodedPush) Enabled() bool { return p != nil && p.push.Load() != nil }

// get returns the push, nil if none was set (or p is nil).
func (p *EncodedPush) get() func(ctx context.Context, payload []byte) error {
	if p == nil {
		return nil
	}
	if f := p.push.Load(); f != nil {
		return *f
	}
	return nil
}
