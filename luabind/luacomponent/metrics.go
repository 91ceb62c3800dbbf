package luacomponent

import (
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	lua "github.com/yuin/gopher-lua"
)

// The bounds of the metrics a component defines from Lua. Label values
// come from data at run time (a path, a user id), so without a bound one
// component could make a metric of millions of series, each held in
// memory for good and written on every scrape.
const (
	// MetricSeriesLimit is how many series (sets of label values) one
	// metric may have, its overflow series included. Updates with label
	// values beyond it go to the overflow series, whose every label is
	// OverflowLabelValue, and are counted in
	// flowlua_lua_metric_series_overflow_total{metric}.
	MetricSeriesLimit = 1000
	// OverflowLabelValue is the value of every label of a metric's
	// overflow series.
	OverflowLabelValue = "__overflow__"
	// MaxMetrics is how many metrics one component may define.
	MaxMetrics = 100
	// MaxMetricLabels is how many labels one metric may have.
	MaxMetricLabels = 16
	// MaxMetricBuckets is how many buckets one histogram may have.
	MaxMetricBuckets = 100
	// MaxLabelValueLen is the longest label value, in bytes; a longer
	// one is cut to it.
	MaxLabelValueLen = 1024
)

// metricNameRE is what the name a component gives a metric matches.
var metricNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// metricSet holds the metrics a component instance defined from Lua and
// the host's own. They are registered when the component starts running
// (after its predecessor, when rebuilt, has stopped and unregistered its
// own), and at once when defined while it runs.
type metricSet struct {
	prefix   string                 // "<plugin>_<component>_"
	overflow *prometheus.CounterVec // updates sent to an overflow series, by metric

	mu         sync.Mutex
	reg        prometheus.Registerer // set once running
	byName     map[string]*metric
	collectors []prometheus.Collector // not registered yet
}

// metric is one metric defined from Lua. Its series are made on first use
// and kept in series, at most MetricSeriesLimit of them with the overflow
// series.
type metric struct {
	kind   string // counter, gauge, histogram
	name   string // full name
	help   string
	labels []string
	vec    prometheus.Collector

	overflowed prometheus.Counter // this metric's overflow count
	logger     *slog.Logger

	mu       sync.RWMutex
	series   map[string]any // by joined label values: prometheus.Counter, Gauge or Observer
	overflow any            // the overflow series, once in use (its first use is logged)
}

func newMetricSet(prefix string) *metricSet {
	s := &metricSet{prefix: prefix, byName: map[string]*metric{}}
	s.overflow = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "flowlua_lua_metric_series_overflow_total",
		Help: fmt.Sprintf("Updates of a metric a Lua component defines that went to its overflow series (every label %q), since their label values would have made more than %d series.", OverflowLabelValue, MetricSeriesLimit),
	}, []string{"metric"})
	s.collectors = append(s.collectors, s.overflow)
	return s
}

// add registers c now if running, else when running.
func (s *metricSet) add(c prometheus.Collector) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reg == nil {
		s.collectors = append(s.collectors, c)
		return nil
	}
	return s.reg.Register(c)
}

// start registers every collector with reg, and later ones at once.
func (s *metricSet) start(reg prometheus.Registerer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reg = reg
	for _, c := range s.collectors {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	s.collectors = nil
	return nil
}

// define returns the metric of a name, creating it on first use; every
// state of a component shares it. A second definition must agree. logger
// is told once when the metric's series overflow.
func (s *metricSet) define(kind, name, help string, labels []string, buckets []float64, logger *slog.Logger) (*metric, error) {
	if !metricNameRE.MatchString(name) {
		return nil, fmt.Errorf("invalid metric name %q: use lowercase letters, digits and _", name)
	}
	s.mu.Lock()
	m := s.byName[name]
	n := len(s.byName)
	s.mu.Unlock()
	if m != nil {
		if m.kind != kind || !slices.Equal(m.labels, labels) {
			return nil, fmt.Errorf("metric %q is already a %s with labels %v", name, m.kind, m.labels)
		}
		return m, nil
	}
	switch {
	case n >= MaxMetrics:
		return nil, fmt.Errorf("metric %q: a component defines at most %d metrics", name, MaxMetrics)
	case len(labels) > MaxMetricLabels:
		return nil, fmt.Errorf("metric %q: %d labels, at most %d", name, len(labels), MaxMetricLabels)
	case len(buckets) > MaxMetricBuckets:
		return nil, fmt.Errorf("metric %q: %d buckets, at most %d", name, len(buckets), MaxMetricBuckets)
	}
	full := s.prefix + name
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m = &metric{kind: kind, name: full, help: help, labels: labels, logger: logger, series: map[string]any{}}
	if len(labels) > 0 {
		m.overflowed = s.overflow.WithLabelValues(full) // shows 0 until the first overflow
	}
	switch kind {
	case "counter":
		m.vec = prometheus.NewCounterVec(prometheus.CounterOpts{Name: full, Help: help}, labels)
	case "gauge":
		m.vec = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: full, Help: help}, labels)
	case "histogram":
		m.vec = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: full, Help: help, Buckets: buckets}, labels)
	}
	s.mu.Lock()
	if prev := s.byName[name]; prev != nil { // defined meanwhile by another state
		s.mu.Unlock()
		if prev.kind != kind || !slices.Equal(prev.labels, labels) {
			return nil, fmt.Errorf("metric %q is already a %s with labels %v", name, prev.kind, prev.labels)
		}
		return prev, nil
	}
	if len(s.byName) >= MaxMetrics {
		s.mu.Unlock()
		return nil, fmt.Errorf("metric %q: a component defines at most %d metrics", name, MaxMetrics)
	}
	s.byName[name] = m
	s.mu.Unlock()
	if err := s.add(m.vec); err != nil {
		return nil, fmt.Errorf("registering metric %s: %w", full, err)
	}
	return m, nil
}

// openMetrics binds metrics.counter, metrics.gauge and metrics.histogram.
func (v *vm) openMetrics() {
	L := v.L
	mt := L.NewTypeMetatable(mtMetric)
	mt.RawSetString("__metatable", lua.LString("metric"))
	mt.RawSetString("__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"inc":     metricOp("inc"),
		"add":     metricOp("add"),
		"dec":     metricOp("dec"),
		"set":     metricOp("set"),
		"observe": metricOp("observe"),
	}))
	t := L.NewTable()
	for _, kind := range []string{"counter", "gauge", "histogram"} {
		t.RawSetString(kind, L.NewFunction(v.defineMetric(kind)))
	}
	L.SetGlobal("metrics", t)
}

// defineMetric is metrics.<kind>(name, help [, { labels = {...},
// buckets = {...} }]).
func (v *vm) defineMetric(kind string) lua.LGFunction {
	return func(L *lua.LState) int {
		name := L.CheckString(1)
		help := L.CheckString(2)
		var labels []string
		var buckets []float64
		if opts, ok := L.Get(3).(*lua.LTable); ok {
			l, err := stringList(opts.RawGetString("labels"), "labels")
			if err != nil {
				L.ArgError(3, err.Error())
			}
			labels = l
			if b, ok := opts.RawGetString("buckets").(*lua.LTable); ok && kind == "histogram" {
				for i := 1; i <= b.Len(); i++ {
					n, ok := b.RawGetInt(i).(lua.LNumber)
					if !ok {
						L.ArgError(3, "buckets: expected a list of numbers")
					}
					buckets = append(buckets, float64(n))
				}
			}
		} else if L.Get(3) != lua.LNil {
			L.ArgError(3, "expected a table { labels = { ... }, buckets = { ... } }")
		}
		var m *metric
		if v.inst != nil {
			var err error
			if m, err = v.inst.metrics.define(kind, name, help, labels, buckets, v.inst.logger); err != nil {
				L.RaiseError("metrics.%s: %v", kind, err)
			}
		} else {
			m = &metric{kind: kind, labels: labels} // the probe: nothing is recorded
		}
		L.Push(v.newUserData(m, mtMetric))
		return 1
	}
}

// metricMethods are the methods of each kind of metric.
var metricMethods = map[string][]string{"counter": {"inc", "add"}, "gauge": {"set", "inc", "dec", "add"}, "histogram": {"observe"}}

// metricOp is a method of a metric: counter:inc([n] [, labels]),
// counter:add(n [, labels]), gauge:set(v [, labels]), gauge:inc/dec,
// histogram:observe(v [, labels]).
func metricOp(op string) lua.LGFunction {
	return func(L *lua.LState) int {
		ud := L.CheckUserData(1)
		m, ok := ud.Value.(*metric)
		if !ok {
			L.ArgError(1, "expected a metric")
		}
		if !slices.Contains(metricMethods[m.kind], op) {
			L.RaiseError("a %s has no method %s (it has %s)", m.kind, op, strings.Join(metricMethods[m.kind], ", "))
		}
		n, labelArg := 1.0, 2
		if num, ok := L.Get(2).(lua.LNumber); ok {
			n, labelArg = float64(num), 3
		} else if op == "set" || op == "observe" || op == "add" {
			L.ArgError(2, "expected a number")
		}
		values := make([]string, len(m.labels))
		if t, ok := L.Get(labelArg).(*lua.LTable); ok {
			for i, l := range m.labels {
				values[i] = labelValue(lua.LVAsString(t.RawGetString(l)))
			}
		}
		if m.vec == nil {
			return 0
		}
		if m.kind == "counter" && n < 0 {
			L.RaiseError("a counter only goes up, got %v", n)
		}
		// A prometheus.Gauge is a prometheus.Counter too: go by the kind.
		switch c := m.child(values); m.kind {
		case "counter":
			c.(prometheus.Counter).Add(n)
		case "gauge":
			g := c.(prometheus.Gauge)
			switch op {
			case "set":
				g.Set(n)
			case "dec":
				g.Sub(n)
			default:
				g.Add(n)
			}
		case "histogram":
			c.(prometheus.Observer).Observe(n)
		}
		return 0
	}
}

// labelValue makes s a valid label value: valid UTF-8 (the client library
// refuses anything else) of at most MaxLabelValueLen bytes.
func labelValue(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= MaxLabelValueLen {
		return s
	}
	cut := MaxLabelValueLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// child returns the series of label values values: a prometheus.Counter,
// Gauge or Observer. A new set of values makes a new series while the
// metric has fewer than MetricSeriesLimit-1, and is else recorded in the
// overflow series; each such update is counted, and the first is logged.
func (m *metric) child(values []string) any {
	// The key joins the values with 0xff, which valid UTF-8 never holds;
	// looking up string(key) does not copy it.
	var buf [256]byte
	key := buf[:0]
	for i, v := range values {
		if i > 0 {
			key = append(key, 0xff)
		}
		key = append(key, v...)
	}
	m.mu.RLock()
	c, ok := m.series[string(key)]
	m.mu.RUnlock()
	if ok {
		return c
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.series[string(key)]; ok {
		return c
	}
	if len(m.series) < MetricSeriesLimit-1 || len(m.labels) == 0 {
		c = m.newChild(values)
		m.series[string(key)] = c
		return c
	}
	m.overflowed.Inc()
	if m.overflow == nil {
		m.logger.Warn("metric series limit reached: updates with new label values go to the overflow series",
			"metric", m.name, "limit", MetricSeriesLimit, "overflow_label_value", OverflowLabelValue)
		over := make([]string, len(values))
		for i := range over {
			over[i] = OverflowLabelValue
		}
		m.overflow = m.newChild(over)
	}
	return m.overflow
}

// newChild returns the series of values from the metric's vector.
func (m *metric) newChild(values []string) any {
	switch vec := m.vec.(type) {
	case *prometheus.CounterVec:
		return vec.WithLabelValues(values...)
	case *prometheus.GaugeVec:
		return vec.WithLabelValues(values...)
	case *prometheus.HistogramVec:
		return vec.WithLabelValues(values...)
	}
	return nil
}
