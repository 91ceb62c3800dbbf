package otlpwire

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestSlabLayout checks that the layout of pdata's internal types is the
// one the slabs expect, so that they are on with the pinned pdata.
func TestSlabLayout(t *testing.T) {
	if !layout.ok {
		t.Fatal("pdata's layout differs from what arena.go expects: slabs are off")
	}
	if !slabsOn() {
		t.Fatal("slabs off with the pooling gate off")
	}
}

// TestSlabsIndependent decodes requests with slabs and pdata, then edits
// every item of both the same way: appending an attribute, replacing a
// value, removing one. With slabs the items, maps and boxes of a request
// share allocations; an edit of one item must not show in another, and
// both must re-encode to the same bytes.
func TestSlabsIndependent(t *testing.T) {
	editMap := func(m pcommon.Map, i int) {
		m.PutStr("added", "x")
		m.PutInt("n", int64(i))
		m.Range(func(k string, v pcommon.Value) bool {
			if v.Type() == pcommon.ValueTypeStr {
				v.SetStr(v.Str() + "!")
			}
			return true
		})
		m.Remove("key")
	}
	t.Run("traces", func(t *testing.T) {
		in := oneAttrTraces(300)
		edit := func(td ptrace.Traces) []byte {
			spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
			for i := range spans.Len() {
				sp := spans.At(i)
				sp.SetName(sp.Name() + "?")
				editMap(sp.Attributes(), i)
			}
			spans.RemoveIf(func(sp ptrace.Span) bool { return sp.EndTimestamp()%3 == 0 })
			b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		editedAlike(t, in, (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces, newDecoder().traces, edit)
	})
	t.Run("metrics", func(t *testing.T) {
		in := oneAttrMetrics(300)
		edit := func(md pmetric.Metrics) []byte {
			dps := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Sum().DataPoints()
			for i := range dps.Len() {
				dp := dps.At(i)
				if i%2 == 0 {
					dp.SetDoubleValue(float64(dp.IntValue()) / 2)
				} else {
					dp.SetIntValue(dp.IntValue() * 3)
				}
				editMap(dp.Attributes(), i)
			}
			b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		editedAlike(t, in, (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics, newDecoder().metrics, edit)
	})
	t.Run("small metrics", func(t *testing.T) {
		// Thirty gauges of ten points: the metrics, their gauges and the
		// gauges' pointer slices are carved from shared chunks.
		in := smallMetrics(300)
		edit := func(md pmetric.Metrics) []byte {
			ms := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
			for i := range ms.Len() {
				m := ms.At(i)
				m.SetName(m.Name() + "?")
				dps := m.Gauge().DataPoints()
				dps.RemoveIf(func(dp pmetric.NumberDataPoint) bool { return dp.DoubleValue() == float64(i*10+3) })
				added := dps.AppendEmpty() // in the window's last slot
				added.SetIntValue(int64(i))
				dps.AppendEmpty().SetDoubleValue(-1) // beyond the window
				editMap(dps.At(0).Attributes(), i)
				switch i % 3 {
				case 1:
					m.SetEmptySum().DataPoints().AppendEmpty().SetIntValue(7)
				case 2:
					moved := pmetric.NewNumberDataPointSlice()
					dps.MoveAndAppendTo(moved)
					moved.MoveAndAppendTo(dps)
				}
			}
			ms.RemoveIf(func(m pmetric.Metric) bool { return m.Name() == "gen.4?" })
			b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		editedAlike(t, in, (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics, newDecoder().metrics, edit)
	})
	t.Run("logs", func(t *testing.T) {
		in := oneAttrLogs(300)
		edit := func(ld plog.Logs) []byte {
			lrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
			for i := range lrs.Len() {
				lr := lrs.At(i)
				lr.Body().SetStr(lr.Body().Str() + "?")
				editMap(lr.Attributes(), i)
			}
			moved := plog.NewLogRecordSlice()
			lrs.MoveAndAppendTo(moved)
			moved.MoveAndAppendTo(lrs)
			b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		editedAlike(t, in, (&plog.ProtoUnmarshaler{}).UnmarshalLogs, newDecoder().logs, edit)
	})
}

// editedAlike decodes in with pdata's decoder and with slabs, edits both
// with edit (which re-encodes what it edited) and fails unless both give
// the same bytes.
func editedAlike[T any](t *testing.T, in []byte, pdata, slabs func([]byte) (T, error), edit func(T) []byte) {
	t.Helper()
	want, err := pdata(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := slabs(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(edit(got), edit(want)) {
		t.Fatal("edited slab-decoded data differ from edited pdata-decoded data")
	}
}

// TestSlabsOffWithPooling checks that pdata's pooling gate turns the slabs
// off (pooling recycles items and boxes one by one).
func TestSlabsOffWithPooling(t *testing.T) {
	g := layout.pooling
	if g == nil {
		t.Skip("no pooling gate")
	}
	// The gate is process-wide: flip it only for this check.
	if err := setGate(g.ID(), true); err != nil {
		t.Skip(err)
	}
	defer func() { _ = setGate(g.ID(), false) }()
	if slabsOn() {
		t.Fatal("slabs on with pdata.useProtoPooling")
	}
}

func setGate(id string, on bool) error {
	return featuregate.GlobalRegistry().Set(id, on)
}

// TestPairs checks that an attribute recurring across items is decoded
// from the pair table, to the same data, request after request, and that
// a pair's value is still a box of its own in every item.
func TestPairs(t *testing.T) {
	d := newDecoder()
	in := oneAttrLogs(50)
	want, err := signals[2].pdata(in)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got, err := signals[2].fast(d, in)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got %v or different data", err)
		}
	}
	found := false
	for _, e := range d.pairs.slots {
		found = found || e.raw != "" && e.key == "key" && e.kind == 1 && e.s == "value"
	}
	if !found {
		t.Fatal("key=value not in the pair table")
	}
	ld, err := d.logs(in)
	if err != nil {
		t.Fatal(err)
	}
	lrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	v0, _ := lrs.At(0).Attributes().Get("key")
	v0.SetStr("changed")
	if v1, _ := lrs.At(1).Attributes().Get("key"); v1.Str() != "value" {
		t.Fatalf("a change of one item's value shows in another: %q", v1.Str())
	}
}

// TestSlabsAcrossRequests decodes requests one after another with one
// decoder, which carves the room a request leaves in its chunks for the
// next: the first item of a request sits right after the last of the one
// before. An edit of either request's items must not show in the other's,
// and a request the decoder declines drops the chunks.
func TestSlabsAcrossRequests(t *testing.T) {
	d := newDecoder()
	pointAt := func(md pmetric.Metrics, i int) uintptr {
		dp := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Sum().DataPoints().At(i)
		return uintptr(origOf(unsafe.Pointer(&dp)))
	}
	in := oneAttrMetrics(300)
	first, err := d.metrics(in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := d.metrics(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pointAt(second, 0), pointAt(first, 299)+layout.point.size; got != want {
		t.Fatalf("the second request's first point is at %#x, want %#x: right after the first request's last", got, want)
	}

	edit := func(md pmetric.Metrics, by int64) []byte {
		dps := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Sum().DataPoints()
		for i := range dps.Len() {
			dp := dps.At(i)
			dp.SetIntValue(dp.IntValue() + by)
			dp.Attributes().PutStr("key", fmt.Sprint("edited", by))
			dp.Attributes().PutInt("n", by)
		}
		b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := func(by int64) []byte {
		md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(in)
		if err != nil {
			t.Fatal(err)
		}
		return edit(md, by)
	}
	if !bytes.Equal(edit(first, 1), want(1)) {
		t.Fatal("the first request, edited, differs from pdata's")
	}
	if !bytes.Equal(edit(second, 2), want(2)) {
		t.Fatal("the second request, edited after the first, differs from pdata's")
	}
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(first)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want(1)) {
		t.Fatal("editing the second request changed the first")
	}

	if _, err := d.metrics(in[:len(in)-3]); err == nil {
		t.Fatal("a truncated request decoded")
	}
	if d.points != (chunk{}) || d.kvs != (chunk{}) || d.strs != (chunk{}) {
		t.Fatal("a declined request left its chunks to the next")
	}
}
