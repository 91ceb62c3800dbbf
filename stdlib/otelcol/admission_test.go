package otelcol

import (
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestAdmission checks the budget's arithmetic: requests are admitted
// while their bytes fit, a request larger than the whole budget only when
// nothing else is in flight, refusals are counted, and released bytes are
// admitted again.
func TestAdmission(t *testing.T) {
	tel := componenttest.NewTelemetry()
	defer func() { _ = tel.Shutdown(t.Context()) }()
	a := newAdmission(100, tel.NewTelemetrySettings().MeterProvider, "http")
	c1, ok := a.take(60)
	if !ok || c1 != 60 {
		t.Fatalf("first: %d %v", c1, ok)
	}
	if _, ok := a.take(41); ok {
		t.Fatal("admitted past the budget")
	}
	c2, ok := a.take(40)
	if !ok {
		t.Fatal("refused what fits")
	}
	a.release(c1)
	a.release(c2)
	big, ok := a.take(1000)
	if !ok || big != 100 {
		t.Fatalf("a body over the budget, nothing in flight: %d %v", big, ok)
	}
	if _, ok := a.take(1); ok {
		t.Fatal("admitted beside a body that takes the whole budget")
	}
	a.release(big)
	if a.inFlight.Load() != 0 {
		t.Fatalf("%d bytes still in flight", a.inFlight.Load())
	}
	m, err := tel.GetMetric("flowlua_otlp_receiver_throttled_requests")
	if err != nil {
		t.Fatal(err)
	}
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok || len(sum.DataPoints) != 1 || sum.DataPoints[0].Value != 2 {
		t.Fatalf("refusals counted: %+v, want 2", m.Data)
	}
}
