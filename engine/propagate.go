package engine

import (
	"context"
	"fmt"

	"github.com/flowlua/flowlua/engine/script"
)

// markDirty records that a running node's exports changed; Run
// re-evaluates its dependants.
func (c *Controller) markDirty(id string) {
	c.dirtyMu.Lock()
	c.dirty[id] = true
	c.dirtyMu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Run propagates export changes until ctx ends, then shuts everything
// down: components in reverse dependency order, then services.
func (c *Controller) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			c.shutdown()
			return nil
		case <-c.wake:
			c.propagate()
		case <-c.place.changed():
			c.replace()
		}
	}
}

// propagate re-evaluates the dependants of every node whose exports
// changed, in dependency order, and applies what changed. Dependants whose
// exports change in turn are marked dirty again by their components. A
// node whose evaluation fails keeps its last arguments.
func (c *Controller) propagate() {
	c.dirtyMu.Lock()
	dirty := c.dirty
	c.dirty = map[string]bool{}
	c.dirtyMu.Unlock()
	if len(dirty) == 0 {
		return
	}
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.RLock()
	g, live := c.graph, c.live
	c.mu.RUnlock()
	if g == nil {
		return
	}
	todo := map[string]bool{}
	for id := range dirty {
		if _, ok := live[id]; !ok {
			continue // removed meanwhile
		}
		for _, d := range g.Dependants(id) {
			todo[d] = true
		}
	}
	lookup := c.liveLookup(live)
	for _, id := range g.Order {
		if !todo[id] {
			continue
		}
		decl, ln := g.Nodes[id], live[id]
		st, err := ln.stage(decl, lookup)
		if err != nil {
			ln.evalFailed(nodeDiagnostics(decl, err, c.secrets.String))
			continue
		}
		if st.commit != nil {
			st.commit()
		}
	}
}

// liveLookup resolves references against the exports of nodes. The
// exports of a secret component (component.SecretComponent) come wrapped
// in a Secret, whose strings, and those derived from them, the
// controller's secrets keep.
func (c *Controller) liveLookup(nodes map[string]liveNode) Lookup {
	return func(ref *script.Ref) (any, error) {
		ln := nodes[ref.Component]
		if ln == nil {
			return nil, &ExprError{Pos: ref.Pos, Err: fmt.Errorf("component %s is not running", ref.Component)}
		}
		v, ok := ln.export(ref.Export)
		if !ok {
			return nil, &ExprError{Pos: ref.Pos, Err: fmt.Errorf("%s has not exported %q yet", ref.Component, ref.Export)}
		}
		if cn, ok := ln.(*componentNode); ok && cn.secret() {
			return Secret{Value: v, Keep: func(s string) { c.secrets.Add(s) }}, nil
		}
		return v, nil
	}
}
