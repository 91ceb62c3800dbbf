package http

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flowlua/flowlua/engine/component"
)

// serviceMetrics are the http service's own metrics: its requests, and the
// health of the graph's components, computed at scrape time.
type serviceMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

func newServiceMetrics(s *Service, reg prometheus.Registerer) *serviceMetrics {
	m := &serviceMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_http_requests_total",
			Help: "Requests to the http service by route, method and status code.",
		}, []string{"handler", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "flowlua_http_request_duration_seconds",
			Help:    "Time the http service took to answer, by route.",
			Buckets: prometheus.DefBuckets,
		}, []string{"handler"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowlua_http_requests_in_flight",
			Help: "Requests the http service is answering.",
		}),
	}
	if reg != nil {
		tlsOn := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "flowlua_http_tls_enabled",
			Help: "1 while the http service serves TLS (and refuses plaintext), 0 while it serves plaintext.",
		}, func() float64 {
			if s.tlsConfig.Load() != nil {
				return 1
			}
			return 0
		})
		for _, c := range []prometheus.Collector{m.requests, m.duration, m.inFlight, tlsOn, &healthCollector{s: s}} {
			if err := reg.Register(c); err != nil {
				s.logger.Warn("registering a metric failed", "err", err)
			}
		}
	}
	return m
}

// instrument counts and times the requests h answers under the route
// name handler (a pattern, so that the label's values are bounded).
func (m *serviceMetrics) instrument(handler string, h http.Handler) http.Handler {
	labels := prometheus.Labels{"handler": handler}
	h = promhttp.InstrumentHandlerDuration(m.duration.MustCurryWith(labels), h)
	h = promhttp.InstrumentHandlerCounter(m.requests.MustCurryWith(labels), h)
	return promhttp.InstrumentHandlerInFlight(m.inFlight, h)
}

var (
	runningComponentsDesc = prometheus.NewDesc(
		"flowlua_running_components",
		"Components of the running graph by health type (healthy, unhealthy, exited, unknown).",
		[]string{"health_type"}, nil)
	componentHealthyDesc = prometheus.NewDesc(
		"flowlua_component_healthy",
		"1 if the component is healthy, 0 otherwise (see /-/healthy and the API for why).",
		[]string{"component_id"}, nil)
)

// healthCollector reports the components' health when scraped.
type healthCollector struct{ s *Service }

// Describe sends the descriptors of the health metrics.
func (c *healthCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- runningComponentsDesc
	ch <- componentHealthyDesc
}

// Collect reads the graph's health from the host; before the service
// runs, every count is 0.
func (c *healthCollector) Collect(ch chan<- prometheus.Metric) {
	var infos []component.Info
	if host := c.s.currentHost(); host != nil {
		infos = host.ListComponents()
		c.s.routes.prune(infos)
	}
	report := aggregateHealth(infos)
	for _, h := range healthStates {
		ch <- prometheus.MustNewConstMetric(runningComponentsDesc, prometheus.GaugeValue, float64(report.counts[h]), h.String())
	}
	for _, info := range infos {
		v := 0.0
		if info.Health.Health == component.HealthHealthy {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(componentHealthyDesc, prometheus.GaugeValue, v, info.ID)
	}
}
