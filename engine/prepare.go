package engine

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"

	"github.com/flowlua/flowlua/engine/script"
)

// plan is what the first phase of an apply produced: components built but
// not started, updates not applied, services configured (with how to undo
// that).
type plan struct {
	mu        sync.Mutex
	staged    map[string]*runningNode
	updates   []pendingUpdate
	rollbacks []func()
}

// discard throws the plan away: built components are dropped and service
// configurations restored.
func (p *plan) discard() {
	for _, rn := range p.staged {
		rn.metrics.unregisterAll()
	}
	for _, undo := range slices.Backward(p.rollbacks) {
		undo()
	}
}

// prepare evaluates every node of g level by level, dependencies first,
// and builds the components old does not have. Nodes of one level do not
// depend on each other, so their components are evaluated and built
// concurrently; services are configured one at a time, before the
// components of their level, since Build may read their data. On failure
// everything prepared is discarded and the running graph is untouched.
func (c *Controller) prepare(g *Graph, old map[string]*runningNode) (*plan, error) {
	p := &plan{staged: map[string]*runningNode{}}
	lookup := func(ref *script.Ref) (any, error) {
		p.mu.Lock()
		rn := p.staged[ref.Component]
		p.mu.Unlock()
		if rn == nil {
			rn = old[ref.Component]
		}
		if rn == nil {
			return nil, &ExprError{Pos: ref.Pos, Err: fmt.Errorf("component %s is not built", ref.Component)}
		}
		v, ok := rn.export(ref.Export)
		if !ok {
			return nil, &ExprError{Pos: ref.Pos, Err: fmt.Errorf("%s has not exported %q yet", ref.Component, ref.Export)}
		}
		return v, nil
	}
	for _, level := range g.levels {
		var components []string
		for _, id := range level {
			n := g.Nodes[id]
			if n.Kind != script.KindService {
				components = append(components, id)
				continue
			}
			cfg, err := DecodeBlock(n, lookup)
			if err != nil {
				p.discard()
				return nil, blockDiagnostics(n, err)
			}
			undo, err := c.configureService(id, cfg)
			if err != nil {
				p.discard()
				return nil, script.Diagnostics{script.Errorf(n.Pos(), "%v", err)}
			}
			if undo != nil {
				p.rollbacks = append(p.rollbacks, undo)
			}
		}
		diags := make([]script.Diagnostics, len(components))
		forEach(len(components), func(i int) {
			diags[i] = c.prepareComponent(p, g.Nodes[components[i]], old[components[i]], lookup)
		})
		var all script.Diagnostics
		for _, d := range diags {
			all = append(all, d...)
		}
		if len(all) > 0 {
			p.discard()
			return nil, all
		}
	}
	// Updates are applied in dependency order: levels in order, ids sorted.
	order := make(map[string]int, len(g.Order))
	for i, id := range g.Order {
		order[id] = i
	}
	slices.SortFunc(p.updates, func(a, b pendingUpdate) int { return order[a.rn.id] - order[b.rn.id] })
	return p, nil
}

// prepareComponent evaluates one component: a running one gets a pending
// update if its arguments changed, a new one is built.
func (c *Controller) prepareComponent(p *plan, n *Node, running *runningNode, lookup Lookup) script.Diagnostics {
	args, err := DecodeBlock(n, lookup)
	if err != nil {
		return blockDiagnostics(n, err)
	}
	if running != nil {
		running.mu.Lock()
		same := reflect.DeepEqual(running.args, args)
		running.mu.Unlock()
		if !same {
			p.mu.Lock()
			p.updates = append(p.updates, pendingUpdate{rn: running, args: args})
			p.mu.Unlock()
		}
		return nil
	}
	rn, err := c.build(n, args)
	if err != nil {
		return script.Diagnostics{script.Errorf(n.Pos(), "%s: %v", n.ID, err)}
	}
	p.mu.Lock()
	p.staged[n.ID] = rn
	p.mu.Unlock()
	return nil
}

// forEach calls fn(0..n-1) on up to GOMAXPROCS goroutines; small batches
// run inline.
func forEach(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 || n < 4 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
