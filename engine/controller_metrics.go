package engine

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// controllerMetrics are flowlua's own metrics about loading and evaluating.
type controllerMetrics struct {
	loads       *prometheus.CounterVec
	lastSuccess prometheus.Gauge
	lastLoad    prometheus.Gauge
	loadSeconds prometheus.Histogram
	evalSeconds prometheus.Histogram
	components  prometheus.Gauge
	dropped     *prometheus.CounterVec
}

func newControllerMetrics(reg prometheus.Registerer) *controllerMetrics {
	m := &controllerMetrics{
		loads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_config_loads_total",
			Help: "Script loads (first load and reloads) by result.",
		}, []string{"result"}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowlua_config_last_load_successful",
			Help: "1 if the last load of the script succeeded, 0 if it was rejected.",
		}),
		lastLoad: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowlua_config_last_load_timestamp_seconds",
			Help: "When the script was last loaded, successfully or not.",
		}),
		loadSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "flowlua_config_load_duration_seconds",
			Help:    "Time to check and apply a script.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 8),
		}),
		evalSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "flowlua_component_update_duration_seconds",
			Help:    "Time components take to apply new arguments.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 8),
		}),
		components: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowlua_components",
			Help: "Components in the running graph.",
		}),
		// The controller owns it, not the component: the count of what a
		// removed component dropped while it stopped outlives it.
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_component_dropped_items_total",
			Help: "Items (spans, metric data points, log records) a component dropped, by signal and reason (drain_timeout, export_failed, unsupported_signal, on_error).",
		}, []string{"component_id", "signal", "reason"}),
	}
	for _, c := range []prometheus.Collector{m.loads, m.lastSuccess, m.lastLoad, m.loadSeconds, m.evalSeconds, m.components, m.dropped} {
		_ = reg.Register(c)
	}
	return m
}

func (m *controllerMetrics) observeLoad(err error, d time.Duration) {
	result := "success"
	if err != nil {
		result = "failure"
		m.lastSuccess.Set(0)
	} else {
		m.lastSuccess.Set(1)
	}
	m.loads.WithLabelValues(result).Inc()
	m.lastLoad.SetToCurrentTime()
	m.loadSeconds.Observe(d.Seconds())
}

func (m *controllerMetrics) observeEvaluation(d time.Duration) { m.evalSeconds.Observe(d.Seconds()) }

func (m *controllerMetrics) setComponents(n int) { m.components.Set(float64(n)) }

// countDropped counts n items of signal that component id dropped.
func (m *controllerMetrics) countDropped(id, signal, reason string, n int) {
	m.dropped.WithLabelValues(id, signal, reason).Add(float64(n))
}
