package engine

import (
	"sort"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
)

// recordLoad records the outcome of a load (first load, reload or apply)
// for LastLoad and the metrics.
func (c *Controller) recordLoad(start time.Time, err error) {
	d := time.Since(start)
	c.metrics.observeLoad(err, d)
	c.mu.Lock()
	c.lastLoad = service.Load{Time: start, Duration: d, Err: err}
	c.mu.Unlock()
}

// LastLoad describes the last load of the script and the plugins of the
// running graph.
func (c *Controller) LastLoad() service.Load {
	c.mu.RLock()
	defer c.mu.RUnlock()
	l := c.lastLoad
	l.Plugins = c.plugins
	return l
}

// pluginsOf lists the plugins whose components reg holds, by namespace:
// the registrations whose Source is "plugin <name> <version>".
func pluginsOf(reg *component.Registry) []service.Plugin {
	seen := map[string]bool{}
	var out []service.Plugin
	for _, name := range reg.Names() {
		r, _ := reg.Get(name)
		f := strings.Fields(r.Source)
		if len(f) != 3 || f[0] != "plugin" {
			continue
		}
		ns := name[:strings.LastIndex(name, ".")]
		if seen[ns] {
			continue
		}
		seen[ns] = true
		out = append(out, service.Plugin{Namespace: ns, Name: f[1], Version: f[2]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}
