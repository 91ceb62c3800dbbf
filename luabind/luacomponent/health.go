package luacomponent

import (
	"fmt"
	"sync"
	"time"

	"github.com/flowlua/flowlua/engine/component"
)

// health is a Lua component's health: what its code said with set_health,
// overridden while one of its hooks fails. A hook's failure (a Lua error
// or a time-limit overrun) lasts until that hook next succeeds.
type health struct {
	mu     sync.Mutex
	user   component.Health // from set_health; HealthUnknown until then
	faults map[string]fault // by hook
	since  time.Time
}

type fault struct {
	msg string
	at  time.Time
}

func newHealth() *health {
	return &health{faults: map[string]fault{}, since: time.Now()}
}

// fail records a hook's failure and reports whether it is news (the hook
// was not failing with that message), for logging.
func (h *health) fail(hook, msg string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	prev, failing := h.faults[hook]
	h.faults[hook] = fault{msg: msg, at: time.Now()}
	return !failing || prev.msg != msg
}

// ok records that a hook succeeded.
func (h *health) ok(hook string) {
	h.mu.Lock()
	if len(h.faults) > 0 {
		delete(h.faults, hook)
	}
	h.mu.Unlock()
}

// set records what the component says of itself.
func (h *health) set(t component.HealthType, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.user = component.Health{Health: t, Message: msg, UpdateTime: time.Now()}
}

// current returns the health: unhealthy with the latest failure while a
// hook fails, else what the component said, else healthy.
func (h *health) current() component.Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.faults) > 0 {
		var latest fault
		for _, f := range h.faults {
			if f.at.After(latest.at) {
				latest = f
			}
		}
		msg := latest.msg
		if n := len(h.faults); n > 1 {
			msg = fmt.Sprintf("%s\n(%d hooks are failing)", msg, n)
		}
		return component.Health{Health: component.HealthUnhealthy, Message: msg, UpdateTime: latest.at}
	}
	if h.user.Health != component.HealthUnknown {
		return h.user
	}
	return component.Health{Health: component.HealthHealthy, Message: "running", UpdateTime: h.since}
}
