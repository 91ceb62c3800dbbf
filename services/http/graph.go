package http

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
)

// graphJSON is GET /api/v0/graph: what the page draws, laid out.
type graphJSON struct {
	Time          time.Time    `json:"time"`
	Nodes         []nodeJSON   `json:"nodes"`
	Edges         []edgeJSON   `json:"edges"`
	Load          loadJSON     `json:"load"`
	Plugins       []pluginJSON `json:"plugins"`
	LiveDebugging bool         `json:"livedebugging"`
	// Groups are the module instances that declared components, sorted by
	// id: the page draws each as a box around its components.
	Groups []groupJSON `json:"groups"`
}

// groupJSON is a module instance on the page. Parent is the innermost
// enclosing instance among the groups ("" at the top level); Label is the
// instance's id relative to it ("gw.eu" in "a.x.gw.eu").
type groupJSON struct {
	ID     string `json:"id"`
	Parent string `json:"parent"`
	Label  string `json:"label"`
}

type nodeJSON struct {
	ID     string     `json:"id"`
	Kind   string     `json:"kind"` // "component" or "service"
	Name   string     `json:"name"`
	Health healthJSON `json:"health"`
	// ModuleInstance is the module instance that declared the component
	// ("a.x.gw.eu" for nested instances); "" at the top level.
	ModuleInstance string `json:"module_instance,omitempty"`
	// Layer and Row place the node: layers run left to right along the
	// flow of data (receivers to exporters), rows top to bottom.
	Layer int `json:"layer"`
	Row   int `json:"row"`
}

// edgeJSON is an edge along which something flows: data of a signal
// (Kind "data", with the items sent so far, for rates), a referenced
// export ("reference") or a service ("service").
type edgeJSON struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Kind   string `json:"kind"`
	Signal string `json:"signal,omitempty"`
	Items  uint64 `json:"items"`
}

type loadJSON struct {
	Time     time.Time `json:"time"`
	Duration float64   `json:"duration_seconds"`
	OK       bool      `json:"ok"`
	Error    string    `json:"error,omitempty"`
}

type pluginJSON struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Version   string `json:"version"`
}

// buildGraph describes the running graph for the page.
func buildGraph(host service.Host, infos []component.Info, liveDebugging bool) graphJSON {
	g := graphJSON{Time: time.Now(), Nodes: []nodeJSON{}, Edges: []edgeJSON{}, Plugins: []pluginJSON{}, LiveDebugging: liveDebugging, Groups: []groupJSON{}}
	l := host.LastLoad()
	g.Load = loadJSON{Time: l.Time, Duration: l.Duration.Seconds(), OK: l.Err == nil}
	if l.Err != nil {
		g.Load.Error = l.Err.Error()
	}
	for _, p := range l.Plugins {
		g.Plugins = append(g.Plugins, pluginJSON(p))
	}

	isComponent := map[string]bool{}
	for _, info := range infos {
		isComponent[info.ID] = true
	}
	services := map[string]bool{}
	type dataKey struct{ from, to, signal string }
	data := map[dataKey]int{} // index in g.Edges
	for _, info := range infos {
		g.Nodes = append(g.Nodes, nodeJSON{ID: info.ID, Kind: "component", Name: info.Name, Health: healthOf(info), ModuleInstance: info.ModuleInstance})
		sendsTo := map[string]bool{}
		for _, s := range info.Sends {
			if !isComponent[s.To] {
				continue
			}
			sendsTo[s.To] = true
			k := dataKey{info.ID, s.To, s.Signal}
			if i, ok := data[k]; ok {
				g.Edges[i].Items += s.Items
				continue
			}
			data[k] = len(g.Edges)
			g.Edges = append(g.Edges, edgeJSON{From: info.ID, To: s.To, Kind: "data", Signal: s.Signal, Items: s.Items})
		}
		for _, dep := range info.Dependencies {
			switch {
			case isComponent[dep] && !sendsTo[dep]:
				// A referenced export flows from dep to this component.
				g.Edges = append(g.Edges, edgeJSON{From: dep, To: info.ID, Kind: "reference"})
			case !isComponent[dep]:
				if _, ok := host.GetService(dep); ok {
					services[dep] = true
					g.Edges = append(g.Edges, edgeJSON{From: dep, To: info.ID, Kind: "service"})
				}
			}
		}
	}
	for _, name := range sortedKeys(services) {
		g.Nodes = append(g.Nodes, nodeJSON{ID: name, Kind: "service", Name: name, Health: healthJSON{State: "healthy", Message: "service"}})
	}
	layout(g.Nodes, g.Edges)
	g.Groups = groupsOf(infos)
	return g
}

// groupsOf returns the module instances of infos, each nested in the
// longest other one its id extends. An instance that declares no
// component of its own is not among them: its nested instances are drawn
// in its parent, under their id relative to it.
func groupsOf(infos []component.Info) []groupJSON {
	ids := map[string]bool{}
	for _, info := range infos {
		if info.ModuleInstance != "" {
			ids[info.ModuleInstance] = true
		}
	}
	out := []groupJSON{}
	for _, id := range sortedKeys(ids) {
		g := groupJSON{ID: id, Label: id}
		for other := range ids {
			if len(other) > len(g.Parent) && strings.HasPrefix(id, other+".") {
				g.Parent, g.Label = other, id[len(other)+1:]
			}
		}
		out = append(out, g)
	}
	return out
}

func healthOf(info component.Info) healthJSON {
	return healthJSON{State: info.Health.Health.String(), Message: info.Health.Message, UpdatedAt: info.Health.UpdateTime}
}

// layout gives each node the length of the longest path of edges that
// reaches it (its layer), so that everything flows left to right, and a
// row within its layer in id order. A cycle (a component that both sends
// to and reads an export of another) is cut where it closes.
func layout(nodes []nodeJSON, edges []edgeJSON) {
	in := map[string][]string{}
	for _, e := range edges {
		in[e.To] = append(in[e.To], e.From)
	}
	layer := map[string]int{}
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(id string) int
	visit = func(id string) int {
		switch state[id] {
		case 1:
			return -1 // a cycle: ignore the edge closing it
		case 2:
			return layer[id]
		}
		state[id] = 1
		l := 0
		for _, from := range in[id] {
			if fl := visit(from); fl >= 0 && fl+1 > l {
				l = fl + 1
			}
		}
		state[id], layer[id] = 2, l
		return l
	}
	order := make([]int, len(nodes))
	for i := range nodes {
		nodes[i].Layer = visit(nodes[i].ID)
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		na, nb := nodes[order[a]], nodes[order[b]]
		if na.Layer != nb.Layer {
			return na.Layer < nb.Layer
		}
		return na.ID < nb.ID
	})
	rows := map[int]int{}
	for _, i := range order {
		nodes[i].Row = rows[nodes[i].Layer]
		rows[nodes[i].Layer]++
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// serveGraph answers GET /api/v0/graph.
func (s *Service) serveGraph(w http.ResponseWriter, r *http.Request) {
	host := s.currentHost()
	if host == nil {
		http.Error(w, "not running yet", http.StatusServiceUnavailable)
		return
	}
	infos := host.ListComponents()
	s.routes.prune(infos)
	d := s.liveDebugger()
	writeJSON(w, http.StatusOK, buildGraph(host, infos, d != nil && d.Enabled()))
}
