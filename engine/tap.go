package engine

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// Each component gets one dataplane.Tap, kept by id across reloads and
// rebuilds, and set on every dataplane.Output of its arguments: the
// fan-outs the component builds from them count what it sends (the rates
// of the graph's edges) and show it to live-debugging viewers, with no
// code in the component. The component also gets it in its Options, for
// what it sends otherwise (a Lua component's emit to a consumer argument).

// tapFor returns the tap of the component id, creating it.
func (c *Controller) tapFor(id string) *dataplane.Tap {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.taps[id]
	if t == nil {
		t = dataplane.NewTap(nil)
		c.taps[id] = t
	}
	return t
}

// Tap returns the tap on what the component id sends, or nil when no such
// component runs.
func (c *Controller) Tap(id string) *dataplane.Tap {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.live[id] == nil {
		return nil
	}
	return c.taps[id] // only components have taps
}

// closeRemovedTaps closes the taps of components that g no longer has
// (ending their viewers), and of components that never got committed.
func (c *Controller) closeRemovedTaps(g *Graph) {
	c.mu.Lock()
	var gone []*dataplane.Tap
	for id, t := range c.taps {
		if _, ok := g.Nodes[id]; !ok {
			gone = append(gone, t)
			delete(c.taps, id)
		}
	}
	c.mu.Unlock()
	for _, t := range gone {
		t.Close()
	}
}

var outputType = reflect.TypeFor[dataplane.Output]()

// maxArgsDepth bounds the walk of arguments for outputs.
const maxArgsDepth = 4

// withTap returns args with t set on every Output among its fields
// (nested structs included), copying the struct: args are a value the
// decoder just made, and stay DeepEqual across evaluations since the tap
// of an id never changes.
func withTap(args any, t *dataplane.Tap) any {
	rv := reflect.ValueOf(args)
	if !rv.IsValid() || rv.Kind() != reflect.Struct || !holdsOutput(rv.Type(), 0) {
		return args
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	setTap(cp, t, 0)
	return cp.Interface()
}

func holdsOutput(rt reflect.Type, depth int) bool {
	if rt == outputType {
		return true
	}
	if rt.Kind() != reflect.Struct || depth > maxArgsDepth {
		return false
	}
	for i := range rt.NumField() {
		if f := rt.Field(i); f.IsExported() && holdsOutput(f.Type, depth+1) {
			return true
		}
	}
	return false
}

func setTap(v reflect.Value, t *dataplane.Tap, depth int) {
	if v.Type() == outputType {
		v.Set(reflect.ValueOf(v.Interface().(dataplane.Output).WithTap(t)))
		return
	}
	if v.Kind() != reflect.Struct || depth > maxArgsDepth {
		return
	}
	for i := range v.NumField() {
		if f := v.Field(i); f.CanSet() {
			setTap(f, t, depth+1)
		}
	}
}

// outputsOf returns the Outputs among args' fields, in field order.
func outputsOf(args any) []dataplane.Output {
	var out []dataplane.Output
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if v.Type() == outputType {
			out = append(out, v.Interface().(dataplane.Output))
			return
		}
		if v.Kind() != reflect.Struct || depth > maxArgsDepth {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), depth+1)
			}
		}
	}
	if rv := reflect.ValueOf(args); rv.IsValid() {
		walk(rv, 0)
	}
	return out
}

// addSends fills the Sends of infos from their arguments' outputs, naming
// each consumer by the component that exports it. A consumer handed to a
// component as an argument of its own (a Lua component's argument of type
// consumer, which emit sends to through the component's tap) is a send of
// each signal the tap counted items of.
func (c *Controller) addSends(infos []component.Info) {
	var exporters map[dataplane.Consumer]string
	name := func(to dataplane.Consumer) string {
		if exporters == nil {
			exporters = c.consumerExporters()
		}
		if reflect.TypeOf(to).Comparable() {
			return exporters[to]
		}
		return ""
	}
	for i := range infos {
		outs := outputsOf(infos[i].Arguments)
		type edge struct {
			s  dataplane.Signal
			to dataplane.Consumer
		}
		listed := map[edge]bool{}
		for _, o := range outs {
			for _, s := range dataplane.AllSignals {
				for _, to := range o.Consumers(s) {
					if to == nil {
						continue
					}
					send := component.Send{Signal: s.String(), To: name(to)}
					if t := o.Tap(); t != nil {
						send.Items = t.Items(s, to)
					}
					if reflect.TypeOf(to).Comparable() {
						listed[edge{s, to}] = true
					}
					infos[i].Sends = append(infos[i].Sends, send)
				}
			}
		}
		cs := consumersOf(infos[i].Arguments)
		if len(cs) == 0 {
			continue
		}
		c.mu.RLock()
		t := c.taps[infos[i].ID]
		c.mu.RUnlock()
		if t == nil {
			continue
		}
		for _, to := range cs {
			for _, s := range dataplane.AllSignals {
				if listed[edge{s, to}] {
					continue
				}
				if n := t.Items(s, to); n > 0 {
					infos[i].Sends = append(infos[i].Sends, component.Send{Signal: s.String(), To: name(to), Items: n})
				}
			}
		}
	}
}

var consumerType = reflect.TypeFor[dataplane.Consumer]()

// maxConsumers bounds the consumers consumersOf collects.
const maxConsumers = 64

// consumersOf returns the consumers among args' values outside its
// Outputs (fields, list items, map values, dynamic values), in argument
// order (map values in key order), each once. Only comparable consumers
// are returned: the others cannot be told apart, nor counted by a tap.
func consumersOf(args any) []dataplane.Consumer {
	var out []dataplane.Consumer
	seen := map[dataplane.Consumer]bool{}
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if !v.IsValid() || depth > 2*maxArgsDepth || len(out) >= maxConsumers || v.Type() == outputType {
			return
		}
		if v.Type() == consumerType || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return
			}
			if tc, ok := v.Interface().(dataplane.Consumer); ok {
				if reflect.TypeOf(tc).Comparable() && !seen[tc] {
					seen[tc] = true
					out = append(out, tc)
				}
				return
			}
			walk(v.Elem(), depth+1)
			return
		}
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), depth+1)
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), depth+1)
			}
		case reflect.Map:
			keys := v.MapKeys()
			if v.Type().Key().Kind() == reflect.String {
				slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			}
			for _, k := range keys {
				walk(v.MapIndex(k), depth+1)
			}
		}
	}
	walk(reflect.ValueOf(args), 0)
	return out
}

// consumerExporters maps every consumer a running node exports to that
// node's id. A module instance exports its components' consumers: the
// component, whose id is longer than its instance's, is named.
func (c *Controller) consumerExporters() map[dataplane.Consumer]string {
	c.mu.RLock()
	nodes := maps.Clone(c.live)
	c.mu.RUnlock()
	out := map[dataplane.Consumer]string{}
	for id, n := range nodes {
		for _, v := range n.exportValues() {
			if tc, ok := v.(dataplane.Consumer); ok && reflect.TypeOf(tc).Comparable() {
				if prev, taken := out[tc]; !taken || len(id) > len(prev) {
					out[tc] = id
				}
			}
		}
	}
	return out
}

var sentItemsDesc = prometheus.NewDesc(
	"flowlua_component_sent_items_total",
	"Items (spans, data points, log records) a component sent to a consumer, counted at its fan-out: the rate of an edge of the graph.",
	[]string{"component_id", "signal", "consumer_id"}, nil)

// sendsCollector reports every component's Sends when scraped.
type sendsCollector struct{ c *Controller }

func (s sendsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- sentItemsDesc }

func (s sendsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, info := range s.c.ListComponents() {
		seen := map[[2]string]bool{}
		for _, send := range info.Sends {
			k := [2]string{send.Signal, send.To}
			if send.To == "" || seen[k] {
				continue // one series per edge, even if listed twice
			}
			seen[k] = true
			ch <- prometheus.MustNewConstMetric(sentItemsDesc, prometheus.CounterValue, float64(send.Items), info.ID, send.Signal, send.To)
		}
	}
}
