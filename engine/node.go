package engine

import (
	"context"
	"reflect"
	"sync"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
)

// runningNode is a component of the running graph.
type runningNode struct {
	id   string
	node *Node // the current declaration

	mu       sync.Mutex
	instance component.Component
	args     component.Arguments
	exports  map[string]any // by export name
	rawExp   component.Exports
	evalErr  error // last failed evaluation or update, nil when the last one worked
	runErr   error // Run's error once it returned
	exited   bool
	since    time.Time
	live     bool // committed to the running graph: export changes propagate
	metrics  *trackingRegisterer
	cancel   context.CancelFunc
	done     chan struct{}
	onChange func(id string) // called when a live node's exports change
}

// setExports records new exports and reports whether they changed.
func (n *runningNode) setExports(e component.Exports) {
	values := decode.ExportValues(e)
	n.mu.Lock()
	changed := !reflect.DeepEqual(values, n.exports)
	n.exports, n.rawExp = values, e
	live, notify := n.live, n.onChange
	n.mu.Unlock()
	if changed && live && notify != nil {
		notify(n.id)
	}
}

func (n *runningNode) export(name string) (any, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.exports[name]
	return v, ok
}

func (n *runningNode) setEvalErr(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if (err == nil) != (n.evalErr == nil) || (err != nil && err.Error() != n.evalErr.Error()) {
		n.since = time.Now()
	}
	n.evalErr = err
}

// health combines the engine's view of the node with the component's own.
func (n *runningNode) health() component.Health {
	n.mu.Lock()
	inst, evalErr, runErr, exited, since := n.instance, n.evalErr, n.runErr, n.exited, n.since
	n.mu.Unlock()
	switch {
	case exited:
		msg := "run exited"
		if runErr != nil {
			msg = "run exited: " + runErr.Error()
		}
		return component.Health{Health: component.HealthExited, Message: msg, UpdateTime: since}
	case evalErr != nil:
		return component.Health{Health: component.HealthUnhealthy, Message: evalErr.Error(), UpdateTime: since}
	}
	if hc, ok := inst.(component.HealthComponent); ok {
		h := hc.CurrentHealth()
		if h.Health != component.HealthUnknown {
			return h
		}
	}
	return component.Health{Health: component.HealthHealthy, Message: "started", UpdateTime: since}
}
