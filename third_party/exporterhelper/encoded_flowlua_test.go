// flowlua patch 2 (FLOWLUA.md): exporters take OTLP export requests still
// encoded.

package exporterhelper

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pipeline"
)

// encodedExporter is the surface the patch adds to an exporter.
type encodedExporter interface {
	exporter.Metrics
	AcceptsEncoded(pipeline.Signal) bool
	ConsumeEncoded(ctx context.Context, signal pipeline.Signal, payload []byte, items int) error
	SetEncodedPush(func(ctx context.Context, payload []byte) error)
}

// flowluaMetrics returns n points of one gauge, named name, and their
// encoding.
func flowluaMetrics(t *testing.T, name string, n int) (pmetric.Metrics, []byte) {
	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName(name)
	g := m.SetEmptyGauge()
	for i := range n {
		p := g.DataPoints().AppendEmpty()
		p.SetIntValue(int64(i))
		p.Attributes().PutStr("k", name)
	}
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	require.NoError(t, err)
	return md, b
}

// recorder records what an exporter pushes, as pdata and as bytes.
type recorder struct {
	mu      sync.Mutex
	pdata   []pmetric.Metrics
	encoded [][]byte
}

func (r *recorder) pushPdata(_ context.Context, md pmetric.Metrics) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pdata = append(r.pdata, md)
	return nil
}

func (r *recorder) pushEncoded(_ context.Context, b []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.encoded = append(r.encoded, b)
	return nil
}

func (r *recorder) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pdata), len(r.encoded)
}

func newFlowluaExporter(t *testing.T, r *recorder, queue configoptional.Optional[QueueBatchConfig]) encodedExporter {
	set := exportertest.NewNopSettings(component.MustNewType("test"))
	exp, err := NewMetrics(context.Background(), set, &struct{}{}, r.pushPdata, WithQueue(queue))
	require.NoError(t, err)
	e, ok := exp.(encodedExporter)
	require.True(t, ok, "the exporter takes encoded requests")
	require.NoError(t, e.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, e.Shutdown(context.Background())) })
	return e
}

func TestFlowluaEncodedWithoutPushIsDecoded(t *testing.T) {
	r := &recorder{}
	e := newFlowluaExporter(t, r, configoptional.None[QueueBatchConfig]())
	assert.False(t, e.AcceptsEncoded(pipeline.SignalMetrics), "no push: the batch processor keeps pdata")

	md, b := flowluaMetrics(t, "a", 3)
	require.NoError(t, e.ConsumeEncoded(context.Background(), pipeline.SignalMetrics, b, 3))
	require.Len(t, r.pdata, 1)
	assert.Equal(t, md, r.pdata[0])
	assert.Empty(t, r.encoded)
}

func TestFlowluaEncodedPushSendsTheBytes(t *testing.T) {
	r := &recorder{}
	e := newFlowluaExporter(t, r, configoptional.Some(NewDefaultQueueConfig()))
	e.SetEncodedPush(r.pushEncoded)
	assert.True(t, e.AcceptsEncoded(pipeline.SignalMetrics))
	assert.False(t, e.AcceptsEncoded(pipeline.SignalTraces))
	require.Error(t, e.ConsumeEncoded(context.Background(), pipeline.SignalTraces, []byte{}, 1), "a metrics exporter refuses encoded traces")

	_, b := flowluaMetrics(t, "a", 5)
	require.NoError(t, e.ConsumeEncoded(context.Background(), pipeline.SignalMetrics, b, 5))
	md, _ := flowluaMetrics(t, "pdata", 2)
	require.NoError(t, e.ConsumeMetrics(context.Background(), md))
	require.Eventually(t, func() bool { p, n := r.counts(); return p == 1 && n == 1 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, b, r.encoded[0], "sent as queued, not re-encoded")
	assert.Equal(t, md, r.pdata[0])
}

func TestFlowluaEncodedBatchedInTheQueueIsMerged(t *testing.T) {
	r := &recorder{}
	q := NewDefaultQueueConfig()
	q.Batch = configoptional.Some(BatchConfig{FlushTimeout: time.Hour, Sizer: RequestSizerTypeItems, MinSize: 7})
	e := newFlowluaExporter(t, r, configoptional.Some(q))
	e.SetEncodedPush(r.pushEncoded)

	a, ab := flowluaMetrics(t, "a", 3)
	b, bb := flowluaMetrics(t, "b", 4)
	require.NoError(t, e.ConsumeEncoded(context.Background(), pipeline.SignalMetrics, ab, 3))
	require.NoError(t, e.ConsumeEncoded(context.Background(), pipeline.SignalMetrics, bb, 4))
	require.Eventually(t, func() bool { p, _ := r.counts(); return p == 1 }, 10*time.Second, time.Millisecond)

	want := pmetric.NewMetrics()
	a.ResourceMetrics().MoveAndAppendTo(want.ResourceMetrics())
	b.ResourceMetrics().MoveAndAppendTo(want.ResourceMetrics())
	assert.Equal(t, want, r.pdata[0], "merged requests are decoded and pushed as pdata, in order")
	assert.Empty(t, r.encoded)
}
