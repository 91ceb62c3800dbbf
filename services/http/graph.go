package http

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
)

// graphJSON is GET /api/v0/graph: everything the page shows of the
// running graph (the drawing, the component list, the cluster's unique
// components) in one answer. The page lays it out itself.
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

// The origins of a component: where its code comes from.
const (
	originBuiltin = "builtin"
	originLua     = "lua_plugin"
	originNative  = "native_plugin"
)

// pluginPackages map the Go package of a component's implementation to
// its origin: a Lua component is an instance of luacomponent, a native
// plugin's a proxy of stdlib/native. Everything else is built in.
var pluginPackages = map[string]string{
	"github.com/flowlua/flowlua/luabind/luacomponent": originLua,
	"github.com/flowlua/flowlua/stdlib/native":        originNative,
}

type nodeJSON struct {
	ID     string     `json:"id"`
	Kind   string     `json:"kind"` // "component" or "service"
	Name   string     `json:"name"`
	Origin string     `json:"origin,omitempty"` // a component's: originBuiltin, originLua or originNative
	Health healthJSON `json:"health"`
	// ModuleInstance is the module instance that declared the component
	// ("a.x.gw.eu" for nested instances); "" at the top level.
	ModuleInstance string `json:"module_instance,omitempty"`
	// Placement, Owner and Standby say where a component runs in a
	// cluster (see componentJSON).
	Placement string `json:"placement,omitempty"`
	Owner     string `json:"owner,omitempty"`
	Standby   string `json:"standby,omitempty"`
	// ItemsIn, ItemsOut and Errors count, since the component started,
	// the items it received (a receiver: accepted from its clients), the
	// items it sent on (an exporter: to its endpoint) and the items it
	// refused, failed to send or dropped, and its Lua errors. The page
	// turns them into rates.
	ItemsIn  uint64 `json:"items_in"`
	ItemsOut uint64 `json:"items_out"`
	Errors   uint64 `json:"errors"`
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

// buildGraph describes the running graph for the page; counts are the
// component counters read from the process's metrics (see readCounts).
func buildGraph(host service.Host, infos []component.Info, counts map[string]*counts, liveDebugging bool) graphJSON {
	g := graphJSON{Time: time.Now(), Nodes: []nodeJSON{}, Edges: []edgeJSON{}, Plugins: []pluginJSON{}, LiveDebugging: liveDebugging, Groups: []groupJSON{}}
	l := host.LastLoad()
	g.Load = loadJSON{Time: l.Time, Duration: l.Duration.Seconds(), OK: l.Err == nil}
	if l.Err != nil {
		g.Load.Error = l.Err.Error()
	}
	for _, p := range l.Plugins {
		g.Plugins = append(g.Plugins, pluginJSON(p))
	}

	index := make(map[string]int, len(infos)) // in g.Nodes
	for _, info := range infos {
		index[info.ID] = len(g.Nodes)
		g.Nodes = append(g.Nodes, nodeJSON{ID: info.ID, Kind: "component", Name: info.Name, Origin: originOf(info.Component),
			Health: healthOf(info), ModuleInstance: info.ModuleInstance, Placement: info.Placement, Owner: info.Owner, Standby: info.Standby})
	}
	services := map[string]bool{}
	type dataKey struct{ from, to, signal string }
	data := map[dataKey]int{} // index in g.Edges
	for i, info := range infos {
		sendsTo := map[string]bool{}
		for _, s := range info.Sends {
			g.Nodes[i].ItemsOut += s.Items
			to, ok := index[s.To]
			if !ok {
				continue
			}
			g.Nodes[to].ItemsIn += s.Items
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
			_, isComponent := index[dep]
			switch {
			case isComponent && !sendsTo[dep]:
				// A referenced export flows from dep to this component.
				g.Edges = append(g.Edges, edgeJSON{From: dep, To: info.ID, Kind: "reference"})
			case !isComponent:
				if _, ok := host.GetService(dep); ok {
					services[dep] = true
					g.Edges = append(g.Edges, edgeJSON{From: dep, To: info.ID, Kind: "service"})
				}
			}
		}
	}
	for i := range g.Nodes {
		c := counts[g.Nodes[i].ID]
		if c == nil {
			continue
		}
		if c.accepted > 0 { // a receiver: what its clients sent it
			g.Nodes[i].ItemsIn += c.accepted
		}
		if c.sent > 0 { // an exporter: what reached its endpoint
			g.Nodes[i].ItemsOut += c.sent
		}
		g.Nodes[i].Errors = c.errors
	}
	for _, name := range sortedKeys(services) {
		g.Nodes = append(g.Nodes, nodeJSON{ID: name, Kind: "service", Name: name, Health: healthJSON{State: "healthy", Message: "service"}})
	}
	g.Groups = groupsOf(infos)
	return g
}

// originOf says where a component's code comes from.
func originOf(c component.Component) string {
	if c == nil {
		return originBuiltin
	}
	t := reflect.TypeOf(c)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if o, ok := pluginPackages[t.PkgPath()]; ok {
		return o
	}
	return originBuiltin
}

// counts are a component's counters among the process's metrics.
type counts struct {
	accepted uint64 // items a receiver accepted from its clients
	sent     uint64 // items an exporter sent to its endpoint
	errors   uint64 // items refused, failed or dropped, and Lua errors
}

// counterKind says what a counter of a component counts: the collector's
// receivers count otelcol_receiver_accepted_* and _refused_* / _failed_*,
// its exporters otelcol_exporter_sent_* and _send_failed_* /
// _enqueue_failed_*, its processors otelcol_processor_*_refused_* /
// _dropped_*; flowlua counts drops and Lua errors. "" is none of them.
func counterKind(name string) string {
	switch {
	case strings.HasPrefix(name, "otelcol_receiver_accepted_"):
		return "accepted"
	case strings.HasPrefix(name, "otelcol_exporter_sent_"):
		return "sent"
	case strings.HasPrefix(name, "otelcol_receiver_refused_"), strings.HasPrefix(name, "otelcol_receiver_failed_"),
		strings.HasPrefix(name, "otelcol_exporter_send_failed_"), strings.HasPrefix(name, "otelcol_exporter_enqueue_failed_"),
		strings.HasPrefix(name, "otelcol_processor_") && (strings.Contains(name, "_refused_") || strings.Contains(name, "_dropped_")),
		name == "flowlua_component_dropped_items_total", name == "flowlua_lua_errors_total":
		return "errors"
	}
	return ""
}

// readCounts gathers the counters of every component, by id; nil when
// there are no metrics.
func readCounts(g prometheus.Gatherer) map[string]*counts {
	if g == nil {
		return nil
	}
	mfs, _ := g.Gather() // a partial result still counts
	out := map[string]*counts{}
	for _, mf := range mfs {
		kind := counterKind(mf.GetName())
		if kind == "" {
			continue
		}
		for _, m := range mf.GetMetric() {
			id := ""
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "component_id" {
					id = lp.GetValue()
					break
				}
			}
			if id == "" || m.GetCounter() == nil {
				continue
			}
			c := out[id]
			if c == nil {
				c = &counts{}
				out[id] = c
			}
			v := uint64(m.GetCounter().GetValue())
			switch kind {
			case "accepted":
				c.accepted += v
			case "sent":
				c.sent += v
			default:
				c.errors += v
			}
		}
	}
	return out
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
		// The enclosing instances of id are its prefixes that end at a dot.
		for i := strings.LastIndexByte(id, '.'); i > 0; i = strings.LastIndexByte(id[:i], '.') {
			if ids[id[:i]] {
				g.Parent, g.Label = id[:i], id[i+1:]
				break
			}
		}
		out = append(out, g)
	}
	return out
}

func healthOf(info component.Info) healthJSON {
	return healthJSON{State: info.Health.Health.String(), Message: info.Health.Message, UpdatedAt: info.Health.UpdateTime}
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
	writeJSON(w, http.StatusOK, buildGraph(host, infos, readCounts(s.opts.Metrics), d != nil && d.Enabled()))
}
