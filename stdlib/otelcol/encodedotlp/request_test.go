package encodedotlp

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exporterhelper/xexporterhelper"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/testdata"
)

func tracesRequest(t *testing.T, td ptrace.Traces) *request {
	t.Helper()
	r, err := encodeTraces(context.Background(), td)
	if err != nil {
		t.Fatal(err)
	}
	return r.(*request)
}

// spanNames returns the names of the spans a list of requests carries,
// in order, with their resources' and scopes' attributes, and checks each
// request's item count against its decoding.
func spanNames(t *testing.T, rs []xexporterhelper.Request) []string {
	t.Helper()
	var names []string
	for _, x := range rs {
		r := x.(*request)
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(r.bytes())
		if err != nil {
			t.Fatal(err)
		}
		if td.SpanCount() != r.items {
			t.Fatalf("a request says %d spans and holds %d", r.items, td.SpanCount())
		}
		for _, rs := range td.ResourceSpans().All() {
			res := rs.Resource().Attributes().AsRaw()
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					names = append(names, s.Name()+"|"+ss.Scope().Name()+"|"+fmt.Sprint(res))
				}
			}
		}
	}
	return names
}

// manyResources returns traces of n resources, each of two scopes of
// spansPer spans, every span named after its place.
func manyResources(n, spansPer int) ptrace.Traces {
	td := ptrace.NewTraces()
	for i := range n {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", string(rune('a'+i)))
		for j := range 2 {
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(string(rune('A' + j)))
			for k := range spansPer {
				ss.Spans().AppendEmpty().SetName(string(rune('a'+i)) + string(rune('A'+j)) + string(rune('0'+k)))
			}
		}
	}
	return td
}

// TestMergeConcatenates: two requests within the limit merge into one
// whose bytes are the two encodings one after the other, and which
// decodes to both requests' spans in order.
func TestMergeConcatenates(t *testing.T) {
	a, b := tracesRequest(t, manyResources(1, 2)), tracesRequest(t, manyResources(2, 1))
	want := append(spanNames(t, []xexporterhelper.Request{a}), spanNames(t, []xexporterhelper.Request{b})...)
	got, err := a.MergeSplit(context.Background(), 100, exporterhelper.RequestSizerTypeItems, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ItemsCount() != 8 {
		t.Fatalf("got %d requests, first of %d items; want one of 8", len(got), got[0].ItemsCount())
	}
	if got[0].BytesSize() != a.BytesSize()+b.BytesSize() {
		t.Errorf("merged %d bytes, want %d + %d", got[0].BytesSize(), a.BytesSize(), b.BytesSize())
	}
	if names := spanNames(t, got); !equal(names, want) {
		t.Errorf("merged spans %v, want %v", names, want)
	}
	if a.items != 4 || b.items != 4 {
		t.Error("merging changed its inputs")
	}
}

// TestSplitByItems: a merge over the limit is cut into full requests and
// a last smaller one, every span kept once, in order, with its resource
// and scope.
func TestSplitByItems(t *testing.T) {
	a, b := tracesRequest(t, manyResources(3, 5)), tracesRequest(t, manyResources(2, 4))
	want := append(spanNames(t, []xexporterhelper.Request{a}), spanNames(t, []xexporterhelper.Request{b})...)
	got, err := a.MergeSplit(context.Background(), 7, exporterhelper.RequestSizerTypeItems, b)
	if err != nil {
		t.Fatal(err)
	}
	// 30 + 16 spans: six of 7 and one of 4.
	if len(got) != 7 {
		t.Fatalf("got %d requests, want 7", len(got))
	}
	for i, r := range got {
		if n := r.ItemsCount(); n > 7 || i < 6 && n != 7 || i == 6 && n != 4 {
			t.Errorf("request %d holds %d spans", i, n)
		}
	}
	if names := spanNames(t, got); !equal(names, want) {
		t.Errorf("split spans\n%v\nwant\n%v", names, want)
	}
}

// TestSplitByBytes: with a limit in bytes, every request but one holding
// a single larger span fits it, and nothing is lost.
func TestSplitByBytes(t *testing.T) {
	td := testdata.GenerateTraces(200)
	big := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(100)
	big.Attributes().PutStr("blob", string(make([]byte, 5000)))
	r := tracesRequest(t, td)
	want := spanNames(t, []xexporterhelper.Request{r})
	got, err := r.MergeSplit(context.Background(), 2000, exporterhelper.RequestSizerTypeBytes, nil)
	if err != nil {
		t.Fatal(err)
	}
	over := 0
	for _, p := range got {
		if p.BytesSize() > 2000 {
			over++
			if p.ItemsCount() != 1 {
				t.Errorf("a request of %d bytes holds %d spans", p.BytesSize(), p.ItemsCount())
			}
		}
	}
	if over != 1 {
		t.Errorf("%d requests over the limit, want 1 (the large span alone)", over)
	}
	if names := spanNames(t, got); !equal(names, want) {
		t.Errorf("split lost or reordered spans: %d, want %d", len(names), len(want))
	}
}

// TestSplitMetricsEveryType: data points of every metric type are cut
// within a metric, which keeps its name, unit, type and temporality.
func TestSplitMetricsEveryType(t *testing.T) {
	md := testdata.GenerateMetricsAllTypes()
	total := md.DataPointCount()
	r, err := encodeMetrics(context.Background(), md)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.MergeSplit(context.Background(), 1, exporterhelper.RequestSizerTypeItems, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != total {
		t.Fatalf("%d requests of one data point, want %d", len(got), total)
	}
	merged := pmetric.NewMetrics()
	for _, p := range got {
		m, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(p.(*request).bytes())
		if err != nil {
			t.Fatal(err)
		}
		if m.DataPointCount() != 1 {
			t.Fatalf("a piece holds %d data points", m.DataPointCount())
		}
		m.ResourceMetrics().MoveAndAppendTo(merged.ResourceMetrics())
	}
	// The pieces hold the same metrics as the original, point for point.
	want := flatMetrics(testdata.GenerateMetricsAllTypes())
	if gotFlat := flatMetrics(merged); !equal(gotFlat, want) {
		t.Errorf("pieces\n%v\nwant\n%v", gotFlat, want)
	}
}

// flatMetrics describes every data point by its metric's name, type,
// unit, temporality and the point's own encoding.
func flatMetrics(md pmetric.Metrics) []string {
	var out []string
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				head := m.Name() + "|" + m.Type().String() + "|" + m.Unit()
				switch m.Type() {
				case pmetric.MetricTypeSum:
					head += "|" + m.Sum().AggregationTemporality().String()
					for range m.Sum().DataPoints().All() {
						out = append(out, head)
					}
				case pmetric.MetricTypeGauge:
					for _, dp := range m.Gauge().DataPoints().All() {
						out = append(out, head+"|"+dp.Timestamp().String())
					}
				case pmetric.MetricTypeHistogram:
					head += "|" + m.Histogram().AggregationTemporality().String()
					for _, dp := range m.Histogram().DataPoints().All() {
						out = append(out, head+"|"+dp.Timestamp().String())
					}
				case pmetric.MetricTypeExponentialHistogram:
					head += "|" + m.ExponentialHistogram().AggregationTemporality().String()
					for _, dp := range m.ExponentialHistogram().DataPoints().All() {
						out = append(out, head+"|"+dp.Timestamp().String())
					}
				case pmetric.MetricTypeSummary:
					for _, dp := range m.Summary().DataPoints().All() {
						out = append(out, head+"|"+dp.Timestamp().String())
					}
				}
			}
		}
	}
	return out
}

// TestSplitLogs: logs are cut like spans.
func TestSplitLogs(t *testing.T) {
	r, err := encodeLogs(context.Background(), testdata.GenerateLogs(25))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.MergeSplit(context.Background(), 10, exporterhelper.RequestSizerTypeItems, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, p := range got {
		ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(p.(*request).bytes())
		if err != nil {
			t.Fatal(err)
		}
		if ld.LogRecordCount() != p.ItemsCount() || p.ItemsCount() > 10 {
			t.Errorf("a piece holds %d records, says %d", ld.LogRecordCount(), p.ItemsCount())
		}
		sum += ld.LogRecordCount()
	}
	if len(got) != 3 || sum != 25 {
		t.Errorf("%d pieces of %d records, want 3 of 25", len(got), sum)
	}
}

// TestMergeRefusesOtherSignals: requests of two signals do not merge.
func TestMergeRefusesOtherSignals(t *testing.T) {
	tr := tracesRequest(t, manyResources(1, 1))
	lr, _ := encodeLogs(context.Background(), testdata.GenerateLogs(1))
	if _, err := tr.MergeSplit(context.Background(), 0, exporterhelper.RequestSizerTypeItems, lr); err == nil {
		t.Fatal("traces merged with logs")
	}
}

// TestQueueEncodingRoundTrip: a persistent queue stores the bytes and
// reads back the same request with its item count.
func TestQueueEncodingRoundTrip(t *testing.T) {
	r := tracesRequest(t, manyResources(2, 3))
	enc := queueEncoding{signal: r.signal}
	b, err := enc.Marshal(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	_, back, err := enc.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.ItemsCount() != 12 || back.BytesSize() != r.BytesSize() {
		t.Errorf("read back %d items, %d bytes; want 12, %d", back.ItemsCount(), back.BytesSize(), r.BytesSize())
	}
	if _, _, err := enc.Unmarshal([]byte{0xff, 0xff}); err == nil {
		t.Error("garbage read back as a request")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
