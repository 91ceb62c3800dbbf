package otelcol

import (
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
)

// host is the component.Host an adapter gives the upstream components it
// starts: it serves flowlua's running extensions and turns status reports
// into the component's health.
type host struct {
	health *health
}

var (
	_ component.Host           = (*host)(nil)
	_ componentstatus.Reporter = (*host)(nil)
)

// GetExtensions returns the extensions flowlua runs, by collector id.
func (h *host) GetExtensions() map[component.ID]component.Component {
	return runningExtensions.snapshot()
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
