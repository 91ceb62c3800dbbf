package engine

import (
	"runtime"
	"slices"
	"sync"

	"github.com/flowlua/flowlua/engine/script"
)

// plan is what the first phase of an apply produced: every node staged
// (components built but not started, updates not applied, services
// configured), with how to commit or discard each.
type plan struct {
	mu       sync.Mutex
	commits  map[string]func()
	discards []func() // in staging order
}

func (p *plan) add(id string, st staged) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st.commit != nil {
		p.commits[id] = st.commit
	}
	if st.discard != nil {
		p.discards = append(p.discards, st.discard)
	}
}

// discard throws the plan away: built components are dropped and service
// configurations restored, last staged first.
func (p *plan) discard() {
	for _, undo := range slices.Backward(p.discards) {
		undo()
	}
}

// prepare stages every node of g, level by level, dependencies first. The
// nodes of one level do not depend on each other, so they are staged
// concurrently, except those that apply their change when staged
// (services): those go one at a time, before the rest of their level,
// which may read their data. On failure everything staged is discarded and
// the running graph is untouched.
func (c *Controller) prepare(g *Graph, next map[string]liveNode) (*plan, error) {
	p := &plan{commits: map[string]func(){}}
	lookup := c.liveLookup(next)
	stage := func(id string) script.Diagnostics {
		decl := g.Nodes[id]
		st, err := next[id].stage(decl, lookup)
		if err != nil {
			return nodeDiagnostics(decl, err, c.secrets.String)
		}
		p.add(id, st)
		return nil
	}
	for _, level := range g.levels {
		var concurrent []string
		for _, id := range level {
			if !next[id].appliesOnStage() {
				concurrent = append(concurrent, id)
			} else if diags := stage(id); len(diags) > 0 {
				p.discard()
				return nil, diags
			}
		}
		diags := make([]script.Diagnostics, len(concurrent))
		forEach(len(concurrent), func(i int) { diags[i] = stage(concurrent[i]) })
		var all script.Diagnostics
		for _, d := range diags {
			all = append(all, d...)
		}
		if len(all) > 0 {
			p.discard()
			return nil, all
		}
	}
	return p, nil
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
