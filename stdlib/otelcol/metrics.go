package otelcol

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The collector's components report their own metrics (accepted, refused,
// sent, failed, queue size and capacity) through an OpenTelemetry
// MeterProvider. go.opentelemetry.io/otel/exporters/prometheus is not in
// the module graph, so a small bridge does its job: an SDK MeterProvider
// with a ManualReader, read by a prometheus.Collector at scrape time.
// Monotonic sums become counters (with a _total suffix), other sums and
// gauges become gauges, histograms histograms; attributes become labels.
// Units are not appended to names.

// metricsBridge is a prometheus.Collector over an SDK MeterProvider.
//
// It is a checked collector, so that a registry can unregister it: its
// Describe sends one descriptor of its own, unique to the bridge, that no
// metric it collects uses (a registry checks collected metrics against
// described ones only when pedantic). A rebuilt component's new bridge
// can therefore be registered before the old one is unregistered.
type metricsBridge struct {
	provider *sdkmetric.MeterProvider
	reader   *sdkmetric.ManualReader
	desc     *prometheus.Desc
	reg      prometheus.Registerer // where it is registered; nil: nowhere

	mu     sync.Mutex
	closed bool
}

// newMetricsBridge returns a bridge registered into reg (nil: metrics are
// kept but not exposed). close unregisters it and shuts the provider down.
func newMetricsBridge(reg prometheus.Registerer) (*metricsBridge, error) {
	reader := sdkmetric.NewManualReader()
	b := &metricsBridge{
		provider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithView(normalLevelViews()...)),
		reader:   reader,
	}
	b.desc = prometheus.NewDesc("flowlua_otelcol_component_metrics",
		"The metrics of one hosted collector component (never collected itself).",
		nil, prometheus.Labels{"bridge": fmt.Sprintf("%p", b)})
	if reg != nil {
		if err := reg.Register(b); err != nil {
			_ = b.provider.Shutdown(context.Background())
			return nil, err
		}
		b.reg = reg
	}
	return b, nil
}

// MeterProvider returns the provider to give components.
func (b *metricsBridge) MeterProvider() metric.MeterProvider { return b.provider }

// close unregisters the bridge and shuts the provider down, which drops
// its readers and instruments. It is idempotent.
func (b *metricsBridge) close() {
	b.mu.Lock()
	closed := b.closed
	b.closed = true
	b.mu.Unlock()
	if closed {
		return
	}
	if b.reg != nil {
		b.reg.Unregister(b)
	}
	_ = b.provider.Shutdown(context.Background())
}

// Describe sends the bridge's own descriptor (see metricsBridge).
func (b *metricsBridge) Describe(ch chan<- *prometheus.Desc) { ch <- b.desc }

// Collect reads the components' metrics and sends them as Prometheus
// metrics.
func (b *metricsBridge) Collect(ch chan<- prometheus.Metric) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return
	}
	var rm metricdata.ResourceMetrics
	if err := b.reader.Collect(context.Background(), &rm); err != nil {
		return
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			collectMetric(m, ch)
		}
	}
}

func collectMetric(m metricdata.Metrics, ch chan<- prometheus.Metric) {
	name := promName(m.Name)
	help := m.Description
	if help == "" {
		help = m.Name
	}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		sendSum(ch, name, help, d.IsMonotonic, d.DataPoints)
	case metricdata.Sum[float64]:
		sendSum(ch, name, help, d.IsMonotonic, d.DataPoints)
	case metricdata.Gauge[int64]:
		sendPoints(ch, name, help, prometheus.GaugeValue, d.DataPoints)
	case metricdata.Gauge[float64]:
		sendPoints(ch, name, help, prometheus.GaugeValue, d.DataPoints)
	case metricdata.Histogram[int64]:
		sendHistogram(ch, name, help, d.DataPoints)
	case metricdata.Histogram[float64]:
		sendHistogram(ch, name, help, d.DataPoints)
	}
}

func sendSum[N int64 | float64](ch chan<- prometheus.Metric, name, help string, monotonic bool, points []metricdata.DataPoint[N]) {
	if !monotonic {
		sendPoints(ch, name, help, prometheus.GaugeValue, points)
		return
	}
	if !strings.HasSuffix(name, "_total") {
		name += "_total"
	}
	sendPoints(ch, name, help, prometheus.CounterValue, points)
}

func sendPoints[N int64 | float64](ch chan<- prometheus.Metric, name, help string, vt prometheus.ValueType, points []metricdata.DataPoint[N]) {
	for _, p := range points {
		keys, values := labels(p.Attributes)
		m, err := prometheus.NewConstMetric(prometheus.NewDesc(name, help, keys, nil), vt, float64(p.Value), values...)
		if err == nil {
			ch <- m
		}
	}
}

func sendHistogram[N int64 | float64](ch chan<- prometheus.Metric, name, help string, points []metricdata.HistogramDataPoint[N]) {
	for _, p := range points {
		keys, values := labels(p.Attributes)
		buckets := make(map[float64]uint64, len(p.Bounds))
		var cum uint64
		for i, bound := range p.Bounds {
			if i < len(p.BucketCounts) {
				cum += p.BucketCounts[i]
			}
			buckets[bound] = cum
		}
		m, err := prometheus.NewConstHistogram(prometheus.NewDesc(name, help, keys, nil), p.Count, float64(p.Sum), buckets, values...)
		if err == nil {
			ch <- m
		}
	}
}

// labels turns attributes into label names and values.
func labels(set attribute.Set) (keys, values []string) {
	for _, kv := range set.ToSlice() {
		keys = append(keys, promName(string(kv.Key)))
		values = append(values, kv.Value.Emit())
	}
	return keys, values
}

// promName replaces what Prometheus names cannot hold with '_'.
func promName(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r == ':' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
			b.WriteRune(r)
		case '0' <= r && r <= '9' && i > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
