package otlpwire

import (
	"bytes"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestEditsAlike decodes requests with the fast path and with pdata, then
// edits every item of both the same way: appending an attribute,
// replacing a value, removing one, moving lists. An edit of one item must
// not show in another (the intern table shares strings, nothing else),
// and both must re-encode to the same bytes.
func TestEditsAlike(t *testing.T) {
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
		// Thirty gauges of ten points.
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

// editedAlike decodes in with pdata's decoder and with fast, edits both
// with edit (which re-encodes what it edited) and fails unless both give
// the same bytes.
func editedAlike[T any](t *testing.T, in []byte, pdata, fast func([]byte) (T, error), edit func(T) []byte) {
	t.Helper()
	want, err := pdata(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fast(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(edit(got), edit(want)) {
		t.Fatal("edited fast-decoded data differ from edited pdata-decoded data")
	}
}
