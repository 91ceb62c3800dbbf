package http

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
)

// healthStates are the health types, in the order reports list them.
var healthStates = []component.HealthType{
	component.HealthHealthy,
	component.HealthUnhealthy,
	component.HealthExited,
	component.HealthUnknown,
}

// healthReport is the aggregated health of the graph.
type healthReport struct {
	// counts is the number of components by health type.
	counts map[component.HealthType]int
	// unhealthy lists "id: state: message" for each component that is
	// unhealthy or exited, sorted by id.
	unhealthy []string
}

// aggregateHealth aggregates the health of components (sorted by id, as
// ListComponents returns them). A component whose health is unknown is
// not counted as unhealthy: it has not said anything wrong.
func aggregateHealth(infos []component.Info) healthReport {
	r := healthReport{counts: map[component.HealthType]int{}}
	for _, info := range infos {
		h := info.Health.Health
		r.counts[h]++
		if h == component.HealthUnhealthy || h == component.HealthExited {
			r.unhealthy = append(r.unhealthy, fmt.Sprintf("%s: %s: %s", info.ID, h, info.Health.Message))
		}
	}
	return r
}

// serveHealthy answers 200 while every component is healthy, else 503
// with the unhealthy components, one a line.
func (s *Service) serveHealthy(w http.ResponseWriter, r *http.Request) {
	host := s.currentHost()
	if host == nil {
		http.Error(w, "not running yet", http.StatusServiceUnavailable)
		return
	}
	report := aggregateHealth(host.ListComponents())
	if len(report.unhealthy) > 0 {
		http.Error(w, "unhealthy components:\n"+strings.Join(report.unhealthy, "\n"), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "healthy")
}
