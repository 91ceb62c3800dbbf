package otlpwire

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestCount: Count finds as many items in an encoded request as pdata
// counts in the batch, and refuses a request cut short.
func TestCount(t *testing.T) {
	td := ptrace.NewTraces()
	for r := range 3 {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("r", "x")
		for s := range r + 1 {
			ss := rs.ScopeSpans().AppendEmpty()
			for i := range s + 2 {
				sp := ss.Spans().AppendEmpty()
				sp.SetName("s")
				sp.Attributes().PutInt("i", int64(i))
			}
		}
	}
	md := pmetric.NewMetrics()
	sm := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty()
	g := sm.Metrics().AppendEmpty()
	g.SetName("g")
	g.SetEmptyGauge().DataPoints().AppendEmpty().SetDoubleValue(1)
	s := sm.Metrics().AppendEmpty()
	s.SetName("s")
	s.SetEmptySum().DataPoints().AppendEmpty().SetIntValue(2)
	s.Sum().DataPoints().AppendEmpty().SetIntValue(3)
	h := sm.Metrics().AppendEmpty()
	h.SetName("h")
	h.SetEmptyHistogram().DataPoints().AppendEmpty().SetCount(4)
	e := sm.Metrics().AppendEmpty()
	e.SetName("e")
	e.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().SetCount(5)
	q := sm.Metrics().AppendEmpty()
	q.SetName("q")
	q.SetEmptySummary().DataPoints().AppendEmpty().SetCount(6)
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for range 7 {
		lr.AppendEmpty().Body().SetStr("l")
	}

	tb, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	mb, _ := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	lb, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	for _, c := range []struct {
		signal string
		b      []byte
		want   int
	}{{"traces", tb, td.SpanCount()}, {"metrics", mb, md.DataPointCount()}, {"logs", lb, ld.LogRecordCount()}} {
		n, err := Count(c.signal, c.b)
		if err != nil || n != c.want {
			t.Errorf("%s: Count = %d, %v; pdata counts %d", c.signal, n, err, c.want)
		}
		if _, err := Count(c.signal, c.b[:len(c.b)-1]); err == nil {
			t.Errorf("%s: a request cut short counted without an error", c.signal)
		}
	}
	if n, err := Count("traces", nil); n != 0 || err != nil {
		t.Errorf("an empty request: %d, %v", n, err)
	}
}
