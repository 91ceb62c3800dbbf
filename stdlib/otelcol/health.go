package otelcol

import (
	"sync"
	"time"

	flowcomp "github.com/flowlua/flowlua/engine/component"
)

// health is a component's health, safe for concurrent use.
type health struct {
	mu sync.Mutex
	h  flowcomp.Health
}

func (h *health) set(t flowcomp.HealthType, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.h = flowcomp.Health{Health: t, Message: msg, UpdateTime: time.Now()}
}

func (h *health) healthy(msg string)   { h.set(flowcomp.HealthHealthy, msg) }
func (h *health) unhealthy(msg string) { h.set(flowcomp.HealthUnhealthy, msg) }

// healthyUnless sets healthy unless the health is of type t (an error
// reported while starting stands).
func (h *health) healthyUnless(t flowcomp.HealthType, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.h.Health != t {
		h.h = flowcomp.Health{Health: flowcomp.HealthHealthy, Message: msg, UpdateTime: time.Now()}
	}
}

func (h *health) get() flowcomp.Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.h
}
