package pdatalua

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

func TestMetricsExampleAccessors(t *testing.T) {
	mustRun(t, runMetrics(t, `
function on_metrics(batch)
  eq(batch:signal(), "metrics")
  eq(batch:metric_count(), 4)
  eq(batch:point_count(), 4)
  local ss = batch:resource(1):scope(1)
  eq(ss:name(), "my.library")
  eq(ss:metric_count(), 4)
  local m = ss:metric(1)
  eq(m:name(), "my.counter")
  eq(m:type(), "sum")
  eq(m:unit(), "1")
  eq(m:description(), "I am a Counter")
  eq(m:temporality(), "delta")
  eq(m:is_monotonic(), true)
  eq(m:point_count(), 1)
  local p = m:point(1)
  eq(p:value(), 5)
  eq(p:count(), nil)
  eq(p:time(), "1544712660300000000")
  eq(p:start_time(), "1544712660300000000")
  eq(p:attr("my.counter.attr"), "some value")
  eq(p:metric():name(), "my.counter")
  eq(m:point(2), nil)
  local g = ss:metric(2)
  eq(g:type(), "gauge")
  eq(g:temporality(), nil)
  eq(g:is_monotonic(), nil)
  eq(g:point(1):value(), 10)
  local h = ss:metric(3)
  eq(h:type(), "histogram")
  eq(h:point(1):count(), 2)
  eq(h:point(1):sum(), 2)
  eq(h:point(1):value(), nil)
  eq(h:point(1):attr("my.histogram.attr"), "some value")
  local e = ss:metric(4)
  eq(e:type(), "exponential_histogram")
  eq(e:point(1):count(), 3)
  eq(e:point(1):sum(), 10)
  eq(e:resource():attr("service.name"), "my.service")
  eq(e:scope():version(), "1.0.0")
  -- flat walks
  local names = {}
  for metric in batch:metrics() do names[#names + 1] = metric:name() end
  eq(table.concat(names, ","), "my.counter,my.gauge,my.histogram,my.exponential.histogram")
  eq(batch:metric(3):name(), "my.histogram")
  local types = {}
  for point in batch:points() do types[#types + 1] = point:metric():type() end
  eq(table.concat(types, ","), "sum,gauge,histogram,exponential_histogram")
  eq(batch:point(4):count(), 3)
  eq(batch:point(5), nil)
  eq(batch:each_point(function(p) end), 4)
  eq(batch:each_metric(function(m) end), 4)
  local c = 0
  for p in ss:metric(2):points() do c = c + 1 end
  eq(c, 1)
end`, exampleMetrics(t)))
}

// genMetrics builds one resource and scope with an int gauge of 3 points, a
// double sum of 2 points and a summary of 1 point.
func genMetrics() pmetric.Metrics {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	g := ms.AppendEmpty()
	g.SetName("requests")
	g.SetEmptyGauge()
	for i := range 3 {
		dp := g.Gauge().DataPoints().AppendEmpty()
		dp.SetIntValue(int64(i + 1))
		dp.Attributes().PutStr("route", "/"+itoa(i))
		dp.Attributes().PutStr("user.id", "u"+itoa(i))
	}
	s := ms.AppendEmpty()
	s.SetName("latency")
	s.SetEmptySum()
	for i := range 2 {
		dp := s.Sum().DataPoints().AppendEmpty()
		dp.SetDoubleValue(float64(i) + 0.5)
		dp.Attributes().PutStr("route", "/"+itoa(i))
	}
	sm := ms.AppendEmpty()
	sm.SetName("sizes")
	sp := sm.SetEmptySummary().DataPoints().AppendEmpty()
	sp.SetCount(1<<53 + 1)
	sp.SetSum(7)
	return md
}

func TestMetricsEdits(t *testing.T) {
	md := genMetrics()
	mustRun(t, runMetrics(t, `
function on_metrics(batch)
  eq(batch:point_count(), 6)
  local g = batch:metric(1)
  eq(g:name(), "requests")
  eq(g:point(1):value(), 1)
  g:point(1):set_value(10)
  g:point(2):set_value("9007199254740993")
  eq(g:point(2):value(), "9007199254740993")
  eq(pcall(g.point(g, 3).set_value, g:point(3), 1.5), false)
  g:point(3):set_attr("route", "/changed")
  g:set_name("http.requests")
  g:set_unit("{request}")
  g:set_description("requests served")
  local s = batch:metric(2)
  s:point(1):set_value(2)
  eq(s:point(1):value(), 2)
  local sm = batch:metric(3)
  eq(sm:point(1):count(), "9007199254740993")
  eq(sm:point(1):sum(), 7)
  local ok, err = pcall(sm:point(1).set_value, sm:point(1), 1)
  eq(ok, false)
  assert(tostring(err):find("has no value"), err)
end`, md))
	ms := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
	g := ms.At(0)
	if g.Name() != "http.requests" || g.Unit() != "{request}" || g.Description() != "requests served" {
		t.Errorf("metric fields %q %q %q", g.Name(), g.Unit(), g.Description())
	}
	pts := g.Gauge().DataPoints()
	if pts.At(0).IntValue() != 10 || pts.At(1).IntValue() != 1<<53+1 || pts.At(2).IntValue() != 3 {
		t.Errorf("int values %d %d %d", pts.At(0).IntValue(), pts.At(1).IntValue(), pts.At(2).IntValue())
	}
	if v, _ := pts.At(2).Attributes().Get("route"); v.Str() != "/changed" {
		t.Errorf("point attribute %q", v.Str())
	}
	if p := ms.At(1).Sum().DataPoints().At(0); p.ValueType() != pmetric.NumberDataPointValueTypeDouble || p.DoubleValue() != 2 {
		t.Errorf("double point became %v %v", p.ValueType(), p.DoubleValue())
	}
}

func TestMetricsDrops(t *testing.T) {
	md := genMetrics()
	mustRun(t, runMetrics(t, `
function on_metrics(batch)
  -- drop every point of "latency" (the metric goes with them), one of "requests"
  for p in batch:metric(2):points() do p:drop() end
  batch:point(2):drop()
  eq(batch:point(2):dropped(), true)
  eq(batch:point_count(), 6)
  batch:metric(3):drop()
end`, md))
	var got []string
	for _, m := range md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().All() {
		got = append(got, m.Name()+":"+itoa(pointCount(m)))
	}
	if strings.Join(got, " ") != "requests:2" {
		t.Errorf("metrics left: %v", got)
	}
	if v, _ := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Gauge().DataPoints().At(1).Attributes().Get("route"); v.Str() != "/2" {
		t.Errorf("wrong point dropped")
	}

	// dropping everything removes the scope and the resource
	md = genMetrics()
	mustRun(t, runMetrics(t, `
function on_metrics(batch)
  for p in batch:points() do p:drop() end
end`, md))
	if md.ResourceMetrics().Len() != 0 {
		t.Errorf("%d resources left", md.ResourceMetrics().Len())
	}
}
