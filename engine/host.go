package engine

import (
	"fmt"
	"sort"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

var _ service.Host = (*Controller)(nil)

// GetComponent returns the component with the given id.
func (c *Controller) GetComponent(id string) (component.Info, error) {
	c.mu.RLock()
	ln, g := c.live[id], c.graph
	c.mu.RUnlock()
	if ln != nil {
		if i, ok := ln.info(g); ok {
			is := []component.Info{i}
			c.addSends(is)
			return is[0], nil
		}
	}
	return component.Info{}, fmt.Errorf("no component %q", id)
}

// ListComponents returns every component, sorted by id.
func (c *Controller) ListComponents() []component.Info {
	c.mu.RLock()
	g := c.graph
	ids := script.SortedKeys(c.live)
	nodes := make([]liveNode, len(ids))
	for i, id := range ids {
		nodes[i] = c.live[id]
	}
	c.mu.RUnlock()
	out := make([]component.Info, 0, len(nodes))
	for _, ln := range nodes {
		if i, ok := ln.info(g); ok {
			out = append(out, i)
		}
	}
	c.addSends(out)
	return out
}

// GetServiceConsumers returns the nodes that use a service, sorted by id.
func (c *Controller) GetServiceConsumers(name string) []service.Consumer {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.graph == nil {
		return nil
	}
	var out []service.Consumer
	for _, id := range c.graph.Dependants(name) {
		if ln, ok := c.live[id]; ok {
			out = append(out, ln.consumer())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// GetService returns a service by name.
func (c *Controller) GetService(name string) (service.Service, bool) {
	sn, ok := c.services[name]
	if !ok {
		return nil, false
	}
	return sn.svc, true
}

// Redact returns s with the secrets the controller learnt and the userinfo
// of URLs replaced by redact.Marker (service.Redactor).
func (c *Controller) Redact(s string) string { return c.secrets.String(s) }

var _ service.Redactor = (*Controller)(nil)
