// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package batchprocessor

// Tests of flowlua's patch (encoded.go, FLOWLUA.md): batches wait encoded
// when the next consumer takes encoded requests. Each runs for traces,
// metrics and logs, and most compare with upstream's path: the same input
// and config with a next consumer that does not implement encodedConsumer.

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/testdata"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
	"go.opentelemetry.io/collector/pipeline"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor/internal/metadata"
	"go.opentelemetry.io/collector/processor/batchprocessor/internal/metadatatest"
	"go.opentelemetry.io/collector/processor/processortest"
)

// received is one batch a fake next consumer received.
type received struct {
	// encoded reports whether it came through ConsumeEncoded.
	encoded bool
	signal  pipeline.Signal
	// payload is the payload passed to ConsumeEncoded, or the encoding of the pdata passed to ConsumeX.
	payload []byte
	// items is the count passed to ConsumeEncoded, or the items in the pdata passed to ConsumeX.
	items int
	// tenant is the "tenant" metadata of the export context.
	tenant string
}

// plainNext is a next consumer of every signal without the encoded path, as upstream knows them; it records what it receives.
type plainNext struct {
	mu  sync.Mutex
	got []received
}

// record appends r, with the tenant of ctx, to what n received.
func (n *plainNext) record(ctx context.Context, r received) {
	if vs := client.FromContext(ctx).Metadata.Get("tenant"); len(vs) > 0 {
		r.tenant = vs[0]
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, r)
}

// received returns what n received so far.
func (n *plainNext) received() []received {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]received(nil), n.got...)
}

func (*plainNext) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (n *plainNext) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	p, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	n.record(ctx, received{signal: pipeline.SignalTraces, payload: p, items: td.SpanCount()})
	return err
}

func (n *plainNext) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	p, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	n.record(ctx, received{signal: pipeline.SignalMetrics, payload: p, items: md.DataPointCount()})
	return err
}

func (n *plainNext) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	p, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	n.record(ctx, received{signal: pipeline.SignalLogs, payload: p, items: ld.LogRecordCount()})
	return err
}

// encodingNext is a plainNext that also takes encoded requests while accepts is true.
type encodingNext struct {
	plainNext
	accepts atomic.Bool
}

// newEncodingNext returns an encodingNext accepting encoded requests.
func newEncodingNext() *encodingNext {
	n := &encodingNext{}
	n.accepts.Store(true)
	return n
}

func (n *encodingNext) AcceptsEncoded(pipeline.Signal) bool { return n.accepts.Load() }

func (n *encodingNext) ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error {
	n.record(ctx, received{encoded: true, signal: signal, payload: payload, items: items})
	return nil
}

var _ encodedConsumer = (*encodingNext)(nil)

// testNext is a next consumer of every signal.
type testNext interface {
	consumer.Traces
	consumer.Metrics
	consumer.Logs
	received() []received
}

// testSignal drives the processor of one signal with requests given encoded.
type testSignal struct {
	name   string
	signal pipeline.Signal
	// generate returns the encoding of request seq holding about k items;
	// each resource has attribute "seq": seq, or seq/0 and seq/1 when there are two.
	generate func(seq, k int) []byte
	// create returns the processor and the function passing it a request.
	create func(t *testing.T, set processor.Settings, cfg *Config, next testNext) (component.Component, func(context.Context, []byte) error)
	// decode returns the items of an encoded request, the "seq" of its resources in order, and its encoding by pdata.
	decode func(t *testing.T, payload []byte) (items int, seqs []string, reencoded []byte)
}

// newTestSignal returns the testSignal of the signal of c.
func newTestSignal[D any](
	name string,
	c codec[D],
	gen func(k int) D,
	appendTo func(src, dst D),
	resources func(D) []pcommon.Resource,
	create func(context.Context, processor.Settings, *Config, testNext) (component.Component, func(context.Context, D) error, error),
) testSignal {
	return testSignal{
		name:   name,
		signal: c.signal,
		generate: func(seq, k int) []byte {
			var d D
			if k > 3 {
				d = gen(k / 2)
				appendTo(gen(k-k/2), d)
			} else {
				d = gen(k)
			}
			rs := resources(d)
			for i, r := range rs {
				s := strconv.Itoa(seq)
				if len(rs) > 1 {
					s += "/" + strconv.Itoa(i)
				}
				r.Attributes().PutStr("seq", s)
			}
			p, err := c.marshal(d)
			if err != nil {
				panic(err)
			}
			return p
		},
		create: func(t *testing.T, set processor.Settings, cfg *Config, next testNext) (component.Component, func(context.Context, []byte) error) {
			p, consume, err := create(context.Background(), set, cfg, next)
			require.NoError(t, err)
			return p, func(ctx context.Context, payload []byte) error {
				d, err := c.unmarshal(payload)
				if err != nil {
					return err
				}
				return consume(ctx, d)
			}
		},
		decode: func(t *testing.T, payload []byte) (int, []string, []byte) {
			d, err := c.unmarshal(payload)
			require.NoError(t, err)
			var seqs []string
			for _, r := range resources(d) {
				v, _ := r.Attributes().Get("seq")
				seqs = append(seqs, v.Str())
			}
			reencoded, err := c.marshal(d)
			require.NoError(t, err)
			return c.count(d), seqs, reencoded
		},
	}
}

// testSignals are the signals the tests run for.
var testSignals = []testSignal{
	newTestSignal("traces", tracesCodec, testdata.GenerateTraces,
		func(src, dst ptrace.Traces) { src.ResourceSpans().MoveAndAppendTo(dst.ResourceSpans()) },
		func(d ptrace.Traces) (rs []pcommon.Resource) {
			for i := 0; i < d.ResourceSpans().Len(); i++ {
				rs = append(rs, d.ResourceSpans().At(i).Resource())
			}
			return rs
		},
		func(ctx context.Context, set processor.Settings, cfg *Config, next testNext) (component.Component, func(context.Context, ptrace.Traces) error, error) {
			p, err := NewFactory().CreateTraces(ctx, set, cfg, next)
			if err != nil {
				return nil, nil, err
			}
			return p, p.ConsumeTraces, nil
		}),
	newTestSignal("metrics", metricsCodec, testdata.GenerateMetrics,
		func(src, dst pmetric.Metrics) { src.ResourceMetrics().MoveAndAppendTo(dst.ResourceMetrics()) },
		func(d pmetric.Metrics) (rs []pcommon.Resource) {
			for i := 0; i < d.ResourceMetrics().Len(); i++ {
				rs = append(rs, d.ResourceMetrics().At(i).Resource())
			}
			return rs
		},
		func(ctx context.Context, set processor.Settings, cfg *Config, next testNext) (component.Component, func(context.Context, pmetric.Metrics) error, error) {
			p, err := NewFactory().CreateMetrics(ctx, set, cfg, next)
			if err != nil {
				return nil, nil, err
			}
			return p, p.ConsumeMetrics, nil
		}),
	newTestSignal("logs", logsCodec, testdata.GenerateLogs,
		func(src, dst plog.Logs) { src.ResourceLogs().MoveAndAppendTo(dst.ResourceLogs()) },
		func(d plog.Logs) (rs []pcommon.Resource) {
			for i := 0; i < d.ResourceLogs().Len(); i++ {
				rs = append(rs, d.ResourceLogs().At(i).Resource())
			}
			return rs
		},
		func(ctx context.Context, set processor.Settings, cfg *Config, next testNext) (component.Component, func(context.Context, plog.Logs) error, error) {
			p, err := NewFactory().CreateLogs(ctx, set, cfg, next)
			if err != nil {
				return nil, nil, err
			}
			return p, p.ConsumeLogs, nil
		}),
}

// request is a request a test passes to the processor.
type request struct {
	ctx     context.Context
	payload []byte
}

// generateRequests returns n requests of sig of varied sizes, some empty, with context ctx.
func generateRequests(sig testSignal, ctx context.Context, n int) []request {
	reqs := make([]request, n)
	for i := range reqs {
		reqs[i] = request{ctx: ctx, payload: sig.generate(i, (i*7)%13)}
	}
	return reqs
}

// run passes reqs in order to a started processor of sig with config cfg and next consumer next, and shuts it down.
// before is called before each request is passed. It returns the processor's telemetry.
func run(t *testing.T, sig testSignal, cfg *Config, next testNext, reqs []request, before func(i int)) *componenttest.Telemetry {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	p, consume := sig.create(t, metadatatest.NewSettings(tel), cfg, next)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	for i, r := range reqs {
		if before != nil {
			before(i)
		}
		require.NoError(t, consume(r.ctx, r.payload))
	}
	require.NoError(t, p.Shutdown(context.Background()))
	return tel
}

// assertSameBatches asserts that got holds the batches want holds, in the same order, and that an encoded batch decodes to its item count.
func assertSameBatches(t *testing.T, sig testSignal, want, got []received) {
	require.Len(t, got, len(want))
	for i := range want {
		items, _, reencoded := sig.decode(t, got[i].payload)
		assert.Equal(t, items, got[i].items, "batch %d: item count passed", i)
		assert.Equal(t, want[i].items, got[i].items, "batch %d: items", i)
		assert.Equal(t, want[i].tenant, got[i].tenant, "batch %d: tenant", i)
		assert.Equal(t, sig.signal, got[i].signal, "batch %d: signal", i)
		assert.True(t, bytes.Equal(want[i].payload, reencoded), "batch %d: data differs from upstream's", i)
		assert.True(t, bytes.Equal(want[i].payload, got[i].payload), "batch %d: encoding differs from pdata's", i)
	}
}

// assertSameTelemetry asserts that got recorded the batch processor's metrics want recorded.
func assertSameTelemetry(t *testing.T, want, got *componenttest.Telemetry) {
	for _, name := range []string{
		"otelcol_processor_batch_batch_send_size",
		"otelcol_processor_batch_batch_send_size_bytes",
		"otelcol_processor_batch_batch_size_trigger_send",
		"otelcol_processor_batch_timeout_trigger_send",
	} {
		w, werr := want.GetMetric(name)
		g, gerr := got.GetMetric(name)
		if werr != nil {
			require.Error(t, gerr, name)
			continue
		}
		require.NoError(t, gerr, name)
		metricdatatest.AssertEqual(t, w, g, metricdatatest.IgnoreTimestamp())
	}
}

// countEncoded returns how many of rs came encoded.
func countEncoded(rs []received) (n int) {
	for _, r := range rs {
		if r.encoded {
			n++
		}
	}
	return n
}

// concat returns the concatenation of the payloads of reqs but empty ones (a batch drops them, as upstream's does).
func concat(t *testing.T, sig testSignal, reqs []request) []byte {
	var b []byte
	for _, r := range reqs {
		if n, _, _ := sig.decode(t, r.payload); n > 0 {
			b = append(b, r.payload...)
		}
	}
	return b
}

// longTimeout is a timeout no test waits for, so that batches are sent on size (and on shutdown) only.
const longTimeout = time.Hour

func TestEncodedBatchesAsUpstream(t *testing.T) {
	for _, sig := range testSignals {
		for _, size := range []uint32{1, 20, 150, 10000} {
			t.Run(sig.name+"/send_batch_size="+strconv.Itoa(int(size)), func(t *testing.T) {
				cfg := &Config{Timeout: longTimeout, SendBatchSize: size}
				reqs := generateRequests(sig, context.Background(), 100)

				plain := &plainNext{}
				wantTel := run(t, sig, cfg, plain, reqs, nil)
				enc := newEncodingNext()
				gotTel := run(t, sig, cfg, enc, reqs, nil)

				want, got := plain.received(), enc.received()
				require.NotEmpty(t, want)
				assert.Zero(t, countEncoded(want))
				assert.Equal(t, len(got), countEncoded(got), "every batch comes encoded")
				assertSameBatches(t, sig, want, got)
				assertSameTelemetry(t, wantTel, gotTel)
			})
		}
	}
}

func TestEncodedBatchTimeoutFlush(t *testing.T) {
	for _, sig := range testSignals {
		t.Run(sig.name, func(t *testing.T) {
			tel := componenttest.NewTelemetry()
			t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
			next := newEncodingNext()
			p, consume := sig.create(t, metadatatest.NewSettings(tel), &Config{Timeout: 50 * time.Millisecond, SendBatchSize: 10000}, next)
			require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
			reqs := []request{
				{context.Background(), sig.generate(0, 5)},
				{context.Background(), sig.generate(1, 2)},
				{context.Background(), sig.generate(2, 9)},
			}
			wantItems := 0
			for _, r := range reqs {
				n, _, _ := sig.decode(t, r.payload)
				wantItems += n
				require.NoError(t, consume(r.ctx, r.payload))
			}
			// The requests may straddle a timeout: wait for all of their items.
			require.Eventually(t, func() bool {
				n := 0
				for _, r := range next.received() {
					n += r.items
				}
				return n == wantItems
			}, 5*time.Second, 5*time.Millisecond)
			require.NoError(t, p.Shutdown(context.Background()))

			got := next.received()
			assert.Equal(t, len(got), countEncoded(got))
			var all []byte
			for _, r := range got {
				items, _, _ := sig.decode(t, r.payload)
				assert.Equal(t, items, r.items)
				all = append(all, r.payload...)
			}
			assert.True(t, bytes.Equal(concat(t, sig, reqs), all), "the requests concatenated")
			tm, err := tel.GetMetric("otelcol_processor_batch_timeout_trigger_send")
			require.NoError(t, err)
			assert.Equal(t, int64(len(got)), tm.Data.(metricdata.Sum[int64]).DataPoints[0].Value)
		})
	}
}

func TestEncodedBatchShutdownFlush(t *testing.T) {
	for _, sig := range testSignals {
		t.Run(sig.name, func(t *testing.T) {
			next := newEncodingNext()
			reqs := generateRequests(sig, context.Background(), 10)
			tel := run(t, sig, &Config{Timeout: longTimeout, SendBatchSize: 10000}, next, reqs, nil)

			got := next.received()
			require.Len(t, got, 1)
			assert.True(t, got[0].encoded)
			assert.True(t, bytes.Equal(concat(t, sig, reqs), got[0].payload), "the requests concatenated")
			items, _, _ := sig.decode(t, got[0].payload)
			assert.Equal(t, items, got[0].items)
			// The batch's size in bytes is its payload's length.
			m, err := tel.GetMetric("otelcol_processor_batch_batch_send_size_bytes")
			require.NoError(t, err)
			dps := m.Data.(metricdata.Histogram[int64]).DataPoints
			require.Len(t, dps, 1)
			assert.Equal(t, uint64(1), dps[0].Count)
			assert.Equal(t, int64(len(got[0].payload)), dps[0].Sum)
		})
	}
}

func TestEncodedBatchNextStopsAccepting(t *testing.T) {
	for _, sig := range testSignals {
		t.Run(sig.name, func(t *testing.T) {
			cfg := &Config{Timeout: longTimeout, SendBatchSize: 10000}
			reqs := generateRequests(sig, context.Background(), 10)
			next := newEncodingNext()
			p, consume := sig.create(t, processortest.NewNopSettings(metadata.Type), cfg, next)
			require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
			for _, r := range reqs {
				require.NoError(t, consume(r.ctx, r.payload))
			}
			// The requests were batched encoded; when the batch is sent, on
			// shutdown, the next consumer no longer takes encoded requests.
			next.accepts.Store(false)
			require.NoError(t, p.Shutdown(context.Background()))

			plain := &plainNext{}
			run(t, sig, cfg, plain, reqs, nil)

			got := next.received()
			require.Len(t, got, 1)
			assert.False(t, got[0].encoded, "the batch comes as pdata")
			assert.True(t, bytes.Equal(concat(t, sig, reqs), got[0].payload), "the requests concatenated")
			assertSameBatches(t, sig, plain.received(), got)
		})
	}
}

func TestEncodedBatchAcceptsFlips(t *testing.T) {
	for _, sig := range testSignals {
		for _, size := range []uint32{7, 40} {
			t.Run(sig.name+"/send_batch_size="+strconv.Itoa(int(size)), func(t *testing.T) {
				cfg := &Config{Timeout: longTimeout, SendBatchSize: size}
				reqs := generateRequests(sig, context.Background(), 200)
				var wantSeqs []string
				for _, r := range reqs {
					if n, seqs, _ := sig.decode(t, r.payload); n > 0 {
						wantSeqs = append(wantSeqs, seqs...)
					}
				}

				plain := &plainNext{}
				wantTel := run(t, sig, cfg, plain, reqs, nil)
				next := newEncodingNext()
				gotTel := run(t, sig, cfg, next, reqs, func(i int) {
					// Runs of 1 to 5 requests of each kind.
					next.accepts.Store((i/(1+i%5))%2 == 0)
				})

				got := next.received()
				var gotSeqs []string
				for _, r := range got {
					_, seqs, _ := sig.decode(t, r.payload)
					gotSeqs = append(gotSeqs, seqs...)
				}
				assert.Equal(t, wantSeqs, gotSeqs, "resources in the order sent")
				assertSameBatches(t, sig, plain.received(), got)
				assertSameTelemetry(t, wantTel, gotTel)
			})
		}
	}
}

func TestEncodedBatchMaxSizeNeverEncodes(t *testing.T) {
	for _, sig := range testSignals {
		t.Run(sig.name, func(t *testing.T) {
			cfg := &Config{Timeout: longTimeout, SendBatchSize: 20, SendBatchMaxSize: 25}
			reqs := generateRequests(sig, context.Background(), 100)

			plain := &plainNext{}
			wantTel := run(t, sig, cfg, plain, reqs, nil)
			next := newEncodingNext()
			gotTel := run(t, sig, cfg, next, reqs, nil)

			got := next.received()
			assert.Zero(t, countEncoded(got), "the next consumer gets pdata only")
			assertSameBatches(t, sig, plain.received(), got)
			assertSameTelemetry(t, wantTel, gotTel)
		})
	}
}

func TestEncodedBatchMetadataKeys(t *testing.T) {
	tenants := []string{"a", "b", "c"}
	for _, sig := range testSignals {
		t.Run(sig.name, func(t *testing.T) {
			cfg := &Config{Timeout: longTimeout, SendBatchSize: 15, MetadataKeys: []string{"tenant"}, MetadataCardinalityLimit: 10}
			reqs := generateRequests(sig, context.Background(), 150)
			tenantOf := map[string]string{} // resource seq -> tenant
			for i := range reqs {
				tenant := tenants[(i+i/4)%len(tenants)]
				reqs[i].ctx = client.NewContext(context.Background(), client.Info{
					Metadata: client.NewMetadata(map[string][]string{"tenant": {tenant}}),
				})
				_, seqs, _ := sig.decode(t, reqs[i].payload)
				for _, s := range seqs {
					tenantOf[s] = tenant
				}
			}

			plain := &plainNext{}
			wantTel := run(t, sig, cfg, plain, reqs, nil)
			next := newEncodingNext()
			gotTel := run(t, sig, cfg, next, reqs, nil)

			got := next.received()
			assert.Equal(t, len(got), countEncoded(got), "every batch comes encoded")
			// Shards send concurrently: compare per tenant.
			for _, tenant := range tenants {
				var want, gotT []received
				for _, r := range plain.received() {
					if r.tenant == tenant {
						want = append(want, r)
					}
				}
				for _, r := range got {
					if r.tenant == tenant {
						gotT = append(gotT, r)
						_, seqs, _ := sig.decode(t, r.payload)
						for _, s := range seqs {
							assert.Equal(t, tenant, tenantOf[s], "resource %s batched for tenant %s", s, tenant)
						}
					}
				}
				require.NotEmpty(t, gotT)
				assertSameBatches(t, sig, want, gotT)
			}
			assertSameTelemetry(t, wantTel, gotTel)
		})
	}
}

func TestEncodedBatchWithProtoPooling(t *testing.T) {
	// With pdata's pools, data is recycled when its last reference goes.
	require.NoError(t, featuregate.GlobalRegistry().Set(pref.UseProtoPooling.ID(), true))
	defer func() { require.NoError(t, featuregate.GlobalRegistry().Set(pref.UseProtoPooling.ID(), false)) }()
	t.Run("as upstream", TestEncodedBatchesAsUpstream)
	t.Run("accepts flips", TestEncodedBatchAcceptsFlips)
	t.Run("next stops accepting", TestEncodedBatchNextStopsAccepting)
}

// Below, the batch of items itself, where the interleavings are deterministic
// (its code is the same for every signal: metrics stand for all).

// newTestItemBatch returns a batch of metrics items with next consumer next, and the logs it writes.
func newTestItemBatch(next testNext) (batch[item[pmetric.Metrics]], *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	e := newEncoder(metricsCodec, zap.New(core), next, &Config{})
	return e.newBatch(newMetricsBatch(next)), logs
}

func TestItemBatchKindsInterleaved(t *testing.T) {
	sig := testSignals[1]
	enc := func(seq, k int) item[pmetric.Metrics] {
		p := sig.generate(seq, k)
		n, _, _ := sig.decode(t, p)
		return item[pmetric.Metrics]{payload: p, n: n}
	}
	plain := func(seq, k int) item[pmetric.Metrics] {
		d, err := metricsCodec.unmarshal(sig.generate(seq, k))
		require.NoError(t, err)
		return item[pmetric.Metrics]{data: d}
	}
	for _, tc := range []struct {
		name    string
		items   []item[pmetric.Metrics]
		encoded bool
	}{
		{"encoded", []item[pmetric.Metrics]{enc(0, 5), enc(1, 2)}, true},
		{"encoded then pdata", []item[pmetric.Metrics]{enc(0, 5), enc(1, 2), plain(2, 3)}, false},
		{"pdata then encoded", []item[pmetric.Metrics]{plain(0, 5), enc(1, 2), enc(2, 3)}, false},
		{"alternating", []item[pmetric.Metrics]{enc(0, 5), plain(1, 2), enc(2, 3), plain(3, 1), enc(4, 4)}, false},
		{"empty pdata does not decode the batch", []item[pmetric.Metrics]{enc(0, 5), plain(1, 0), enc(2, 3)}, true},
		{"empty encoded", []item[pmetric.Metrics]{enc(0, 5), {payload: []byte{}}, enc(2, 3)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The expected batch: upstream's, with the same items as pdata.
			want := newMetricsBatch(&plainNext{})
			for _, it := range tc.items {
				if it.encoded() {
					d, err := metricsCodec.unmarshal(it.payload)
					require.NoError(t, err)
					want.add(d)
				} else {
					d := pmetric.NewMetrics()
					it.data.CopyTo(d)
					want.add(d)
				}
			}
			wantN, wantData := want.split(0)
			wantPayload, err := metricsCodec.marshal(wantData)
			require.NoError(t, err)

			b, logs := newTestItemBatch(newEncodingNext())
			for _, it := range tc.items {
				b.add(it)
			}
			require.Equal(t, wantN, b.itemCount())
			n, got := b.split(0)
			assert.Equal(t, wantN, n)
			assert.Zero(t, b.itemCount())
			assert.Equal(t, tc.encoded, got.encoded())
			payload := got.payload
			if !got.encoded() {
				payload, err = metricsCodec.marshal(got.data)
				require.NoError(t, err)
			} else {
				assert.Equal(t, wantN, got.n)
			}
			assert.Equal(t, wantPayload, payload)
			assert.Equal(t, len(wantPayload), b.sizeBytes(got))
			assert.Zero(t, logs.Len())

			// The next batch is encoded again.
			b.add(enc(9, 3))
			_, got = b.split(0)
			assert.True(t, got.encoded())
		})
	}
}

func TestItemBatchSplitEncodedOverMaxSize(t *testing.T) {
	sig := testSignals[1]
	b, _ := newTestItemBatch(newEncodingNext())
	var all []byte
	for i := range 4 {
		p := sig.generate(i, 10)
		n, _, _ := sig.decode(t, p)
		b.add(item[pmetric.Metrics]{payload: p, n: n})
		all = append(all, p...)
	}
	total := b.itemCount()
	wantData, err := metricsCodec.unmarshal(all)
	require.NoError(t, err)

	// Encoded items beyond the maximum size are split as pdata by upstream's split.
	var sent []pmetric.Metrics
	for b.itemCount() > 0 {
		n, it := b.split(7)
		require.False(t, it.encoded())
		require.LessOrEqual(t, n, 7)
		require.Equal(t, n, it.data.DataPointCount())
		sent = append(sent, it.data)
	}
	got := pmetric.NewMetrics()
	n := 0
	for _, d := range sent {
		n += d.DataPointCount()
		d.ResourceMetrics().MoveAndAppendTo(got.ResourceMetrics())
	}
	assert.Equal(t, total, n)
	assert.Equal(t, wantData.DataPointCount(), got.DataPointCount())
}

func TestItemBatchUndecodable(t *testing.T) {
	sig := testSignals[1]
	garbage := item[pmetric.Metrics]{payload: []byte{0xff, 0xff, 0xff}, n: 3}

	t.Run("export", func(t *testing.T) {
		next := newEncodingNext()
		next.accepts.Store(false)
		b, logs := newTestItemBatch(next)
		b.add(garbage)
		n, it := b.split(0)
		require.Equal(t, 3, n)
		require.Error(t, b.export(context.Background(), it))
		require.Equal(t, 1, logs.FilterLevelExact(zapcore.ErrorLevel).Len())
		assert.Equal(t, int64(3), logs.All()[0].ContextMap()["items"])
		assert.Empty(t, next.received())
	})
	t.Run("split over max size", func(t *testing.T) {
		next := newEncodingNext()
		b, logs := newTestItemBatch(next)
		b.add(garbage)
		n, it := b.split(2)
		require.Equal(t, 3, n, "the undecodable batch is sent whole")
		require.True(t, it.encoded())
		require.NoError(t, b.export(context.Background(), it))
		assert.Equal(t, 1, countEncoded(next.received()))
		assert.Zero(t, logs.Len())
	})
	t.Run("add", func(t *testing.T) {
		b, logs := newTestItemBatch(newEncodingNext())
		d, err := metricsCodec.unmarshal(sig.generate(0, 4))
		require.NoError(t, err)
		n := d.DataPointCount()
		b.add(item[pmetric.Metrics]{data: d})
		b.add(garbage)
		require.Equal(t, 1, logs.FilterLevelExact(zapcore.ErrorLevel).Len())
		assert.Equal(t, int64(3), logs.All()[0].ContextMap()["items"])
		assert.Equal(t, n, b.itemCount())
	})
}

func TestEncodedConsumerError(t *testing.T) {
	// An error of ConsumeEncoded is handled as upstream handles one of ConsumeX: logged, the batch dropped.
	sig := testSignals[0]
	next := &failingNext{encodingNext: newEncodingNext()}
	core, logs := observer.New(zapcore.WarnLevel)
	set := processortest.NewNopSettings(metadata.Type)
	set.Logger = zap.New(core)
	p, consume := sig.create(t, set, &Config{Timeout: longTimeout, SendBatchSize: 1}, next)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, consume(context.Background(), sig.generate(0, 2)))
	require.NoError(t, p.Shutdown(context.Background()))
	require.Equal(t, 1, logs.FilterMessage("Sender failed").Len())
}

// failingNext is an encodingNext whose ConsumeEncoded fails.
type failingNext struct {
	*encodingNext
}

func (*failingNext) ConsumeEncoded(context.Context, pipeline.Signal, []byte, int) error {
	return errors.New("failed")
}

// TestEncodedBatchWithRequestEncoder: with an encoder set (flowlua's writes
// into the scratch buffers), the batches are the same as upstream's, and
// a scratch buffer reused for the next request does not change a batch
// already holding its bytes.
func TestEncodedBatchWithRequestEncoder(t *testing.T) {
	var calls atomic.Int64
	SetRequestEncoder(func(dst []byte, data any) ([]byte, bool) {
		var b []byte
		var err error
		switch d := data.(type) {
		case ptrace.Traces:
			b, err = (&ptrace.ProtoMarshaler{}).MarshalTraces(d)
		case pmetric.Metrics:
			b, err = (&pmetric.ProtoMarshaler{}).MarshalMetrics(d)
		case plog.Logs:
			b, err = (&plog.ProtoMarshaler{}).MarshalLogs(d)
		default:
			return dst, false
		}
		if err != nil {
			return dst, false
		}
		calls.Add(1)
		return append(dst, b...), true
	})
	defer requestEncoder.Store(nil)
	t.Run("as upstream", TestEncodedBatchesAsUpstream)
	t.Run("accepts flips", TestEncodedBatchAcceptsFlips)
	require.Positive(t, calls.Load(), "the encoder was used")
}
