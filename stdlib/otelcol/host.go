package otelcol

import (
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
)

// host is the component.Host an adapter gives the upstream components of
// one instance: it serves the extensions the instance's config referenced
// and turns status reports into the component's health.
type host struct {
	health     *health
	extensions []*Extension
}

var (
	_ component.Host           = (*host)(nil)
	_ componentstatus.Reporter = (*host)(nil)
)

// GetExtensions returns the running extensions the config referenced, by
// collector id.
func (h *host) GetExtensions() map[component.ID]component.Component {
	m := make(map[component.ID]component.Component, len(h.extensions))
	for _, e := range h.extensions {
		if c := e.component(); c != nil {
			m[e.id] = c
		}
	}
	return m
}

// Report records a status event: errors make the component unhealthy, OK
// makes it healthy again.
func (h *host) Report(ev *componentstatus.Event) {
	switch st := ev.Status(); {
	case componentstatus.StatusIsError(st):
		msg := st.String()
		if ev.Err() != nil {
			msg = ev.Err().Error()
		}
		h.health.unhealthy(msg)
	case st == componentstatus.StatusOK:
		h.health.healthy("running")
	}
}
