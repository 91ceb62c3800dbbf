// Package dag holds the graph algorithms of the engine: a deterministic
// topological order and cycle finding. Every walk breaks ties by sorted id,
// so that output never depends on map order.
package dag

import (
	"slices"
	"sort"
)

// Graph is a directed graph over string ids. An edge from -> to means
// "from depends on to".
type Graph struct {
	nodes map[string]struct{}
	out   map[string]map[string]struct{}
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{nodes: map[string]struct{}{}, out: map[string]map[string]struct{}{}}
}

// AddNode adds a node; adding it twice is harmless.
func (g *Graph) AddNode(id string) { g.nodes[id] = struct{}{} }

// AddEdge adds an edge from -> to, adding both nodes.
func (g *Graph) AddEdge(from, to string) {
	g.AddNode(from)
	g.AddNode(to)
	if g.out[from] == nil {
		g.out[from] = map[string]struct{}{}
	}
	g.out[from][to] = struct{}{}
}

// Nodes returns every node, sorted.
func (g *Graph) Nodes() []string { return sortedKeys(g.nodes) }

// Out returns the nodes id depends on, sorted.
func (g *Graph) Out(id string) []string { return sortedKeys(g.out[id]) }

// In returns the nodes that depend on id, sorted.
func (g *Graph) In(id string) []string {
	var in []string
	for from, tos := range g.out {
		if _, ok := tos[id]; ok {
			in = append(in, from)
		}
	}
	sort.Strings(in)
	return in
}

// TopoSort returns the nodes dependencies first, breaking ties by id. It
// returns ok=false when the graph has a cycle; the order then holds only
// the nodes outside cycles and what depends on nothing in one.
func (g *Graph) TopoSort() (order []string, ok bool) {
	pending := make(map[string]int, len(g.nodes)) // unmet dependencies
	dependants := make(map[string][]string, len(g.nodes))
	for id := range g.nodes {
		pending[id] = len(g.out[id])
		for to := range g.out[id] {
			dependants[to] = append(dependants[to], id)
		}
	}
	var ready []string
	for id, n := range pending {
		if n == 0 {
			ready = append(ready, id)
		}
	}
	sort.Strings(ready)
	for len(ready) > 0 {
		id := ready[0]
		ready = ready[1:]
		order = append(order, id)
		var next []string
		for _, d := range dependants[id] {
			pending[d]--
			if pending[d] == 0 {
				next = append(next, d)
			}
		}
		if len(next) > 0 {
			ready = append(ready, next...)
			sort.Strings(ready)
		}
	}
	return order, len(order) == len(g.nodes)
}

// Cycles returns one cycle through each strongly connected component that
// has one (including self-loops), as a path of ids whose last element
// repeats the first. Each cycle is rotated to start at its smallest id and
// the list is sorted, so the same graph always prints the same cycles.
func (g *Graph) Cycles() [][]string {
	var cycles [][]string
	for _, scc := range g.sccs() {
		member := make(map[string]bool, len(scc))
		for _, id := range scc {
			member[id] = true
		}
		if len(scc) == 1 {
			if _, self := g.out[scc[0]][scc[0]]; !self {
				continue
			}
			cycles = append(cycles, []string{scc[0], scc[0]})
			continue
		}
		cycles = append(cycles, g.cycleIn(scc[0], member))
	}
	sort.Slice(cycles, func(i, j int) bool { return slices.Compare(cycles[i], cycles[j]) < 0 })
	return cycles
}

// cycleIn finds a shortest cycle through start (the smallest id of its
// strongly connected component) by breadth-first search inside the
// component, visiting neighbours in sorted order.
func (g *Graph) cycleIn(start string, member map[string]bool) []string {
	prev := map[string]string{}
	queue := []string{start}
	seen := map[string]bool{start: true}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, to := range g.Out(id) {
			if !member[to] {
				continue
			}
			if to == start {
				path := []string{start}
				for n := id; n != start; n = prev[n] {
					path = append(path, n)
				}
				slices.Reverse(path[1:])
				return append(path, start)
			}
			if !seen[to] {
				seen[to] = true
				prev[to] = id
				queue = append(queue, to)
			}
		}
	}
	return []string{start, start} // unreachable for a real component
}

// sccs returns the strongly connected components (Tarjan), each sorted,
// visiting nodes in sorted order.
func (g *Graph) sccs() [][]string {
	index := 0
	indices := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(id string)
	visit = func(id string) {
		indices[id], low[id] = index, index
		index++
		stack = append(stack, id)
		onStack[id] = true
		for _, to := range g.Out(id) {
			if _, seen := indices[to]; !seen {
				visit(to)
				low[id] = min(low[id], low[to])
			} else if onStack[to] {
				low[id] = min(low[id], indices[to])
			}
		}
		if low[id] == indices[id] {
			var scc []string
			for {
				n := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[n] = false
				scc = append(scc, n)
				if n == id {
					break
				}
			}
			sort.Strings(scc)
			out = append(out, scc)
		}
	}
	for _, id := range g.Nodes() {
		if _, seen := indices[id]; !seen {
			visit(id)
		}
	}
	return out
}

func sortedKeys(m map[string]struct{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
