package http

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/services"
)

// bigPipeline is n components in module instances of five (a receiver,
// three processors, an exporter, in a chain), each with an unhealthy one
// in ten, and a registry holding ten series per component, as the
// collector's components and flowlua report them.
func bigPipeline(n int) (*fakeHost, *prometheus.Registry) {
	h := &fakeHost{}
	reg := prometheus.NewRegistry()
	names := []string{"otelcol_receiver_accepted_spans_total", "otelcol_receiver_refused_spans_total",
		"otelcol_exporter_sent_spans_total", "otelcol_exporter_send_failed_spans_total", "flowlua_component_dropped_items_total",
		"otelcol_processor_incoming_items_total", "otelcol_processor_outgoing_items_total", "otelcol_exporter_queue_size_total",
		"otelcol_exporter_queue_capacity_total", "flowlua_component_update_seconds_total"}
	vecs := make([]*prometheus.CounterVec, len(names))
	for i, name := range names {
		vecs[i] = prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: name}, []string{"component_id"})
		reg.MustRegister(vecs[i])
	}
	stages := []string{"otelcol.receiver.otlp.in", "otelcol.processor.memory_limiter.m", "otelcol.processor.attributes.a", "otelcol.processor.batch.b", "otelcol.exporter.otlp.out"}
	var infos []component.Info
	for i := 0; i < n; i++ {
		inst := fmt.Sprintf("gateway.region_%03d", i/len(stages))
		id := inst + "." + stages[i%len(stages)]
		info := component.Info{ID: id, Name: stages[i%len(stages)], ModuleInstance: inst, Component: &nopComponent{},
			Health: component.Health{Health: component.HealthHealthy, Message: "running"}, Dependencies: []string{ServiceName}}
		if i%10 == 9 {
			info.Health = component.Health{Health: component.HealthUnhealthy, Message: "sending failed: connection refused"}
		}
		if i%len(stages) != len(stages)-1 {
			next := inst + "." + stages[i%len(stages)+1]
			info.Sends = []component.Send{{Signal: "traces", To: next, Items: uint64(i)}, {Signal: "logs", To: next, Items: uint64(i)}}
			info.Dependencies = append(info.Dependencies, next)
		}
		infos = append(infos, info)
		for _, v := range vecs {
			v.WithLabelValues(id).Add(float64(i))
		}
	}
	h.set(infos...)
	return h, reg
}

// BenchmarkGraph500 answers GET /api/v0/graph for a 500-component
// pipeline: what the page needs in one request (target: under 50 ms).
func BenchmarkGraph500(b *testing.B) {
	h, reg := bigPipeline(500)
	s := newHostedService(services.Options{Metrics: reg}, h)
	handler := s.handler()
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v0/graph", nil))
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
		b.SetBytes(int64(rec.Body.Len()))
	}
}
