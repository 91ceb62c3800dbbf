package luacomponent

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

const metricsPlugin = `
-- p/plugin.lua --
return { name = "p", version = "1.0.0", components = { "card", "many" } }
-- p/card.lua --
local hits = metrics.counter("hits_total", "Hits.", { labels = { "user" } })
local level = metrics.gauge("level", "Level.", { labels = { "user", "kind" } })
local size = metrics.histogram("size", "Size.", { labels = { "user" }, buckets = { 1, 10 } })
local plain = metrics.counter("plain_total", "No labels.")
return {
  args = { n = "integer" },
  exports = { done = "integer" },
  start = function()
    for i = 1, args.n do
      local u = "u" .. i
      hits:inc({ user = u })
      level:set(i, { user = u, kind = "k" })
      size:observe(i, { user = u })
      plain:inc()
    end
    hits:inc({ user = "u1" }) -- an existing series still counts on its own
    hits:inc({ user = "\255\254" }) -- not UTF-8
    hits:inc({ user = string.rep("x", 5000) })
    set_exports{ done = args.n }
  end,
}
-- p/many.lua --
return {
  start = function()
    for i = 1, 101 do metrics.counter("m" .. i, "One of many.") end
  end,
}
`

// TestMetricSeriesAreBounded makes a component give five times
// MetricSeriesLimit label values to each of its metrics: each keeps MetricSeriesLimit series, the overflow
// series included, the overflow is counted and logged once per metric,
// and totals stay right.
func TestMetricSeriesAreBounded(t *testing.T) {
	const n = 5 * MetricSeriesLimit
	r := mustLoad(t, metricsPlugin, "p", "card", map[string]any{})
	e := newEnv("p.card.a")
	c := build(t, r, e, map[string]any{"n": n, "timeout": "60s"})
	run(t, c)
	eventually(t, "the loop", func() bool { d, _ := e.lastExports()["done"].(int64); return d == n })

	families, err := e.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]int{}
	for _, f := range families {
		series[f.GetName()] = len(f.GetMetric())
	}
	for _, name := range []string{"p_card_hits_total", "p_card_level", "p_card_size"} {
		if series[name] != MetricSeriesLimit {
			t.Errorf("%s has %d series, want %d", name, series[name], MetricSeriesLimit)
		}
	}
	if series["p_card_plain_total"] != 1 {
		t.Errorf("p_card_plain_total has %d series, want 1", series["p_card_plain_total"])
	}
	over := metricValue(t, e, "p_card_hits_total", map[string]string{"user": OverflowLabelValue})
	// n-(limit-1) new values, the non-UTF-8 and the long one overflow.
	wantOver := float64(n - (MetricSeriesLimit - 1) + 2)
	if over != wantOver {
		t.Errorf("overflow series = %v, want %v", over, wantOver)
	}
	if got := metricValue(t, e, "p_card_hits_total", map[string]string{"user": "u1"}); got != 2 {
		t.Errorf("u1 = %v, want 2", got)
	}
	if got := metricValue(t, e, "flowlua_lua_metric_series_overflow_total", map[string]string{"metric": "p_card_hits_total"}); got != wantOver {
		t.Errorf("overflow count of hits = %v, want %v", got, wantOver)
	}
	if got := metricValue(t, e, "flowlua_lua_metric_series_overflow_total", map[string]string{"metric": "p_card_level"}); got != n-(MetricSeriesLimit-1) {
		t.Errorf("overflow count of level = %v", got)
	}
	logs := e.logs.String()
	if got := strings.Count(logs, "metric series limit reached"); got != 3 {
		t.Errorf("the overflow was logged %d times, want once per metric (3):\n%s", got, logs)
	}
	if !strings.Contains(logs, "component_id=p.card.a") || !strings.Contains(logs, "metric=p_card_hits_total limit=1000") {
		t.Errorf("the log lacks the component or the metric:\n%s", logs)
	}
}

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{
		"ok":                           "ok",
		"\xff":                         "\uFFFD",
		strings.Repeat("é", 600):       strings.Repeat("é", 512),
		"x" + strings.Repeat("é", 600): "x" + strings.Repeat("é", 511),
	} {
		if got := labelValue(in); got != want {
			t.Errorf("labelValue(%.20q...) = %.20q... (%d bytes), want %d bytes", in, got, len(got), len(want))
		}
	}
}

func TestMetricCountIsBounded(t *testing.T) {
	r := mustLoad(t, metricsPlugin, "p", "many", map[string]any{})
	e := newEnv("p.many.a")
	c := build(t, r, e, map[string]any{})
	run(t, c)
	eventually(t, "unhealthy", func() bool {
		h := c.CurrentHealth()
		return strings.Contains(h.Message, `metrics.counter: metric "m101": a component defines at most 100 metrics`)
	})
}

// BenchmarkMetricChild measures finding an existing series, as every
// update of a labelled metric does, against the client library's own
// lookup.
func BenchmarkMetricChild(b *testing.B) {
	s := newMetricSet("p_c_")
	m, err := s.define("counter", "hits_total", "Hits.", []string{"user", "kind"}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	values := []string{"u1", "k"}
	m.child(values)
	b.Run("bounded", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.child(values).(prometheus.Counter).Inc()
			}
		})
	})
	b.Run("vec", func(b *testing.B) {
		vec := m.vec.(*prometheus.CounterVec)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				vec.WithLabelValues(values...).Inc()
			}
		})
	})
}
