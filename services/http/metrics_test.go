package http

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/services"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	host := &fakeHost{}
	host.set(withHealth("a.b.ok", component.HealthHealthy, ""), withHealth("a.b.sick", component.HealthUnhealthy, "disk full"))
	s := newHostedService(services.Options{Registerer: reg, Metrics: reg}, host)
	for range 2 {
		if code, _ := serve(s, "GET", "/-/healthy"); code != 503 {
			t.Fatalf("healthy: %d", code)
		}
	}
	serve(s, "GET", "/nowhere")

	code, body := serve(s, "GET", "/metrics")
	if code != 200 {
		t.Fatalf("metrics: %d %s", code, body)
	}
	for _, line := range []string{
		"# TYPE flowlua_component_healthy gauge",
		`flowlua_component_healthy{component_id="a.b.ok"} 1`,
		`flowlua_component_healthy{component_id="a.b.sick"} 0`,
		"# TYPE flowlua_http_requests_total counter",
		`flowlua_http_requests_total{code="404",handler="other",method="get"} 1`,
		`flowlua_http_requests_total{code="503",handler="/-/healthy",method="get"} 2`,
		`flowlua_http_request_duration_seconds_count{handler="/-/healthy"} 2`,
		"# TYPE flowlua_running_components gauge",
		`flowlua_running_components{health_type="exited"} 0`,
		`flowlua_running_components{health_type="healthy"} 1`,
		`flowlua_running_components{health_type="unhealthy"} 1`,
		`flowlua_running_components{health_type="unknown"} 0`,
		"flowlua_http_tls_enabled 0",
	} {
		if !strings.Contains(body, "\n"+line+"\n") {
			t.Errorf("no line %q in:\n%s", line, body)
		}
	}
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}
