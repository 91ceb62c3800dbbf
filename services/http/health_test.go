package http

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/services"
)

func withHealth(id string, h component.HealthType, msg string) component.Info {
	return component.Info{ID: id, Health: component.Health{Health: h, Message: msg, UpdateTime: time.Unix(0, 0)}}
}

func TestAggregateHealth(t *testing.T) {
	r := aggregateHealth([]component.Info{
		withHealth("a.b.ok", component.HealthHealthy, "started"),
		withHealth("a.b.quiet", component.HealthUnknown, ""),
		withHealth("a.b.sick", component.HealthUnhealthy, "disk full"),
		withHealth("a.b.x", component.HealthExited, "run exited: boom"),
	})
	want := []string{"a.b.sick: unhealthy: disk full", "a.b.x: exited: run exited: boom"}
	if strings.Join(r.unhealthy, "|") != strings.Join(want, "|") {
		t.Fatalf("unhealthy = %q, want %q", r.unhealthy, want)
	}
	for h, n := range map[component.HealthType]int{
		component.HealthHealthy: 1, component.HealthUnknown: 1, component.HealthUnhealthy: 1, component.HealthExited: 1,
	} {
		if r.counts[h] != n {
			t.Errorf("counts[%s] = %d, want %d", h, r.counts[h], n)
		}
	}
}

func TestHealthyEndpoint(t *testing.T) {
	host := &fakeHost{}
	s := newHostedService(services.Options{}, host)
	host.set(withHealth("a.b.ok", component.HealthHealthy, ""), withHealth("a.b.sick", component.HealthUnhealthy, "disk full"))
	code, body := serve(s, "GET", "/-/healthy")
	if code != 503 || !strings.Contains(body, "a.b.sick: unhealthy: disk full") || strings.Contains(body, "a.b.ok") {
		t.Fatalf("with a sick component: %d %q", code, body)
	}
	host.set(withHealth("a.b.ok", component.HealthHealthy, ""), withHealth("a.b.sick", component.HealthHealthy, "recovered"))
	if code, body := serve(s, "GET", "/-/healthy"); code != 200 {
		t.Fatalf("all healthy: %d %q", code, body)
	}
	if code, _ := serve(New(services.Options{}), "GET", "/-/healthy"); code != 503 {
		t.Fatalf("before Run: %d, want 503", code)
	}
}

func TestReadyEndpoint(t *testing.T) {
	ready := errors.New("the first load has not been applied")
	s := New(services.Options{Ready: func() error { return ready }})
	if code, body := serve(s, "GET", "/-/ready"); code != 503 || body != "not ready: the first load has not been applied\n" {
		t.Fatalf("before the first load: %d %q, want 503 and the reason", code, body)
	}
	ready = nil
	if code, body := serve(s, "GET", "/-/ready"); code != 200 || body != "ready\n" {
		t.Fatalf("after the first load: %d %q", code, body)
	}
}

func TestNotAvailable(t *testing.T) {
	s := New(services.Options{})
	// Without a cluster service (an embedder's choice), the cluster API is 404.
	if code, body := serve(s, "GET", "/api/v0/cluster/peers"); code != 404 || !strings.Contains(body, "clustering is not available") {
		t.Errorf("cluster: %d %q", code, body)
	}
	// Without a livedebugging service (an embedder's choice), the stream is 404.
	if code, body := serve(s, "GET", "/api/v0/debug/a.b.c"); code != 404 || !strings.Contains(body, "live debugging is not available") {
		t.Errorf("debug: %d %q", code, body)
	}
}
