package luacomponent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	lua "github.com/yuin/gopher-lua"
)

// metricNameRE is what the name a component gives a metric matches.
var metricNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// metricSet holds the metrics a component instance defined from Lua and
// the host's own. They are registered when the component starts running
// (after its predecessor, when rebuilt, has stopped and unregistered its
// own), and at once when defined while it runs.
type metricSet struct {
	prefix string // "<plugin>_<component>_"

	mu         sync.Mutex
	reg        prometheus.Registerer // set once running
	byName     map[string]*metric
	collectors []prometheus.Collector // not registered yet
}

// metric is one metric defined from Lua.
type metric struct {
	kind   string // counter, gauge, histogram
	help   string
	labels []string
	vec    prometheus.Collector
}

func newMetricSet(prefix string) *metricSet {
	return &metricSet{prefix: prefix, byName: map[string]*metric{}}
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
// state of a component shares it. A second definition must agree.
func (s *metricSet) define(kind, name, help string, labels []string, buckets []float64) (*metric, error) {
	if !metricNameRE.MatchString(name) {
		return nil, fmt.Errorf("invalid metric name %q: use lowercase letters, digits and _", name)
	}
	s.mu.Lock()
	m := s.byName[name]
	s.mu.Unlock()
	if m != nil {
		if m.kind != kind || !slices.Equal(m.labels, labels) {
			return nil, fmt.Errorf("metric %q is already a %s with labels %v", name, m.kind, m.labels)
		}
		return m, nil
	}
	full := s.prefix + name
	m = &metric{kind: kind, help: help, labels: labels}
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
		return prev, nil
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
			if m, err = v.inst.metrics.define(kind, name, help, labels, buckets); err != nil {
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
				values[i] = lua.LVAsString(t.RawGetString(l))
			}
		}
		if m.vec == nil {
			return 0
		}
		switch vec := m.vec.(type) {
		case *prometheus.CounterVec:
			if n < 0 {
				L.RaiseError("a counter only goes up, got %v", n)
			}
			vec.WithLabelValues(values...).Add(n)
		case *prometheus.GaugeVec:
			g := vec.WithLabelValues(values...)
			switch op {
			case "set":
				g.Set(n)
			case "dec":
				g.Sub(n)
			default:
				g.Add(n)
			}
		case *prometheus.HistogramVec:
			vec.WithLabelValues(values...).Observe(n)
		}
		return 0
	}
}
