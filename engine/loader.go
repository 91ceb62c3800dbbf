package engine

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/dag"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/redact"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// Loader checks scripts into graphs against the registered components and
// the services of the process.
type Loader struct {
	Registry *component.Registry
	Services []service.Definition
}

// Build checks s and returns its graph. Every problem found is returned as
// a diagnostic with its position: unknown components, services and
// exports (with "did you mean" hints), arguments that do not decode,
// signals sent to components that do not take them, and cycles. A graph
// is returned only when there are no problems.
func (l *Loader) Build(s *script.Script) (*Graph, script.Diagnostics) {
	b := &builder{
		loader:   l,
		script:   s,
		nodes:    map[string]*Node{},
		services: map[string]service.Definition{},
		dag:      dag.New(),
		labels:   map[[2]string]map[string]bool{},
	}
	// Every phase runs even after errors, so that one check reports as
	// much as it can: a broken reference stands for a value of any type.
	b.addServices()
	b.addBlocks()
	b.addEdges()
	b.typecheck()
	b.checkSignals() // signals.go
	b.checkCycles()
	if len(b.diags) > 0 {
		b.diags.Sort()
		return nil, b.diags
	}
	return b.graph(), nil
}

type builder struct {
	loader   *Loader
	script   *script.Script
	nodes    map[string]*Node
	services map[string]service.Definition
	dag      *dag.Graph
	labels   map[[2]string]map[string]bool // (from, to) -> labels
	diags    script.Diagnostics
}

func (b *builder) errorf(pos script.Pos, format string, args ...any) {
	b.diags = append(b.diags, script.Errorf(pos, format, args...))
}

// addServices and addBlocks are the one place that turns declarations
// into nodes of a kind.
func (b *builder) addServices() {
	for _, def := range b.loader.Services {
		b.services[def.Name] = def
		b.nodes[def.Name] = &Node{ID: def.Name, Kind: &ServiceKind{Definition: def}}
		b.dag.AddNode(def.Name)
	}
}

func (b *builder) addBlocks() {
	first := map[string]*script.Block{}
	for _, blk := range b.script.Blocks {
		id := blk.ID()
		switch blk.Kind {
		case script.KindService:
			n, ok := b.nodes[blk.Name]
			if _, isService := b.services[blk.Name]; !ok || !isService {
				b.errorf(blk.Pos, "unknown service %q%s", blk.Name, script.DidYouMean(blk.Name, b.serviceNames()))
				continue
			}
			if prev := first[id]; prev != nil {
				b.errorf(blk.Pos, "duplicate service block %q: first declared at %s", id, prev.Pos)
				continue
			}
			n.Block = blk
		case script.KindModule:
			if !b.addNode(blk, id, first, &ModuleKind{Block: blk}) {
				continue
			}
		default:
			reg, ok := b.loader.Registry.Get(blk.Name)
			if !ok {
				b.errorf(blk.Pos, "unknown component %q%s", blk.Name, script.DidYouMean(blk.Name, b.loader.Registry.Names()))
				continue
			}
			if !b.addNode(blk, id, first, &ComponentKind{Registration: reg, Chain: blk.Chain()}) {
				continue
			}
		}
		first[id] = blk
	}
}

// addNode adds the node of a component or module instance block unless
// its id is taken.
func (b *builder) addNode(blk *script.Block, id string, first map[string]*script.Block, kind NodeKind) bool {
	if prev := first[id]; prev != nil {
		b.errorf(blk.Pos, "duplicate component %q: first declared at %s", id, prev.Pos)
		return false
	}
	if _, clash := b.services[id]; clash {
		b.errorf(blk.Pos, "component id %q clashes with the service of that name", id)
		return false
	}
	b.nodes[id] = &Node{ID: id, Block: blk, Kind: kind}
	b.dag.AddNode(id)
	return true
}

func (b *builder) edge(from, to, label string) {
	b.dag.AddEdge(from, to)
	key := [2]string{from, to}
	if b.labels[key] == nil {
		b.labels[key] = map[string]bool{}
	}
	b.labels[key][label] = true
}

func (b *builder) addEdges() {
	for _, id := range b.dag.Nodes() {
		n := b.nodes[id]
		for _, svc := range n.Kind.Needs() {
			if _, ok := b.services[svc]; !ok {
				b.errorf(n.Pos(), "%s needs unknown service %q", n.Kind.Title(id), svc)
				continue
			}
			b.edge(id, svc, "service")
		}
		if n.Block == nil {
			continue
		}
		for _, svc := range shardServices(n.Block) {
			if _, ok := b.services[svc]; !ok {
				b.errorf(n.Pos(), "%s uses %s.shard, but there is no %s service", n.Kind.Title(id), svc, svc)
				continue
			}
			b.edge(id, svc, "shard")
		}
		for _, ref := range n.Block.Refs() {
			exports, ok := b.exportsOf(ref.Component)
			if !ok {
				b.undeclared(ref)
				continue
			}
			if _, ok := exports[ref.Export]; !ok {
				b.errorf(ref.Pos, "component %q has no export %q%s", ref.Component, ref.Export, exportHint(ref.Export, exports))
				continue
			}
			b.edge(id, ref.Component, ref.Export)
		}
	}
}

// undeclared reports a reference to a node that does not exist or cannot
// be referenced. In a module's body, ids are the instance's: a component
// of the script outside is out of reach.
func (b *builder) undeclared(ref *script.Ref) {
	if ref.Scope != "" {
		written := strings.TrimPrefix(ref.Component, ref.Scope)
		instance := strings.TrimSuffix(ref.Scope, ".")
		if _, outside := b.exportsOf(written); outside {
			b.errorf(ref.Pos, "reference to %q from module instance %s: a module's body reaches only its own components and its arguments (pass %s as an argument)",
				written, instance, ref.String()[len(ref.Scope):])
			return
		}
		var local []string
		for _, id := range b.referableIDs() {
			if strings.HasPrefix(id, ref.Scope) {
				local = append(local, strings.TrimPrefix(id, ref.Scope))
			}
		}
		b.errorf(ref.Pos, "reference to undeclared component %q in module instance %s%s", written, instance, script.DidYouMean(written, local))
		return
	}
	b.errorf(ref.Pos, "reference to undeclared component %q%s", ref.Component, script.DidYouMean(ref.Component, b.referableIDs()))
}

// exportsOf returns the exports of the node id, if it may be referenced.
func (b *builder) exportsOf(id string) (map[string]reflect.Type, bool) {
	n, ok := b.nodes[id]
	if !ok {
		return nil, false
	}
	return n.Kind.ExportTypes()
}

func exportHint(name string, exports map[string]reflect.Type) string {
	names := script.SortedKeys(exports)
	if hint := script.DidYouMean(name, names); hint != "" {
		return hint
	}
	if len(names) == 0 {
		return " (it exports nothing)"
	}
	return fmt.Sprintf(" (it exports %s)", strings.Join(names, ", "))
}

// typecheck decodes every block's arguments with each reference standing
// for a placeholder of its export's type.
func (b *builder) typecheck() {
	lookup := func(ref *script.Ref) (any, error) {
		exports, _ := b.exportsOf(ref.Component)
		t := exports[ref.Export]
		return &script.Placeholder{Type: t, From: ref.String()}, nil
	}
	for _, id := range b.dag.Nodes() {
		n := b.nodes[id]
		if n.Block == nil {
			continue
		}
		if _, err := decodeBlock(n, lookup); err != nil {
			b.diags = append(b.diags, nodeDiagnostics(n, err, redact.URLs)...)
		}
	}
}

// decodeBlock evaluates a node's block with lookup and decodes it into a
// fresh value of the node's arguments (or config) type.
func decodeBlock(n *Node, lookup Lookup) (any, error) {
	var args map[string]any
	if n.Block != nil {
		args = n.Block.Args
	}
	value, err := Evaluate(args, lookup)
	if err != nil {
		return nil, err
	}
	m, _ := value.(map[string]any)
	return n.Kind.Decode(m)
}

// nodeDiagnostics turns an error from evaluating, decoding or staging a
// node into positioned diagnostics: `<id>: <field path>: <message>` at the
// field's line. red redacts what the error says (redact.Set.String): the
// position, the id and the field path come from the script and are kept as
// written, so that a short secret cannot garble them; diagnostics that
// arrive positioned are redacted whole.
func nodeDiagnostics(n *Node, err error, red func(string) string) script.Diagnostics {
	var positioned script.Diagnostics
	if errors.As(err, &positioned) {
		out := make(script.Diagnostics, len(positioned))
		for i, d := range positioned {
			out[i] = script.Diagnostic{Pos: d.Pos, Message: red(d.Message)}
		}
		return out
	}
	name := n.ID
	if n.Block != nil {
		name = n.Block.Chain() // "gateway.eu → otelcol.processor.batch.default" in a module
	}
	var exprErr *ExprError
	if errors.As(err, &exprErr) {
		return script.Diagnostics{script.Errorf(exprErr.Pos, "%s: %s", name, red(exprErr.Err.Error()))}
	}
	var ds script.Diagnostics
	add := func(e *decode.Error) {
		msg := red(e.Message)
		if e.Path != "" {
			msg = e.Path + ": " + msg
		}
		ds = append(ds, script.Errorf(n.Block.PosOf(e.Where()), "%s: %s", name, msg))
	}
	var many decode.Errors
	var one *decode.Error
	switch {
	case errors.As(err, &many):
		for _, e := range many {
			add(e)
		}
	case errors.As(err, &one):
		add(one)
	default:
		ds = append(ds, script.Errorf(n.Pos(), "%s: %s", name, red(err.Error())))
	}
	return ds
}

func (b *builder) checkCycles() {
	for _, cycle := range b.dag.Cycles() {
		parts := make([]string, len(cycle))
		for i, id := range cycle {
			if i == len(cycle)-1 {
				parts[i] = b.nodes[id].Kind.Title(id)
				break
			}
			parts[i] = b.nodes[id].Describe()
		}
		b.diags = append(b.diags, script.Diagnostic{Message: "cycle: " + strings.Join(parts, " -> ")})
	}
}

func (b *builder) graph() *Graph {
	g := &Graph{
		Script:     b.script,
		Nodes:      b.nodes,
		deps:       map[string][]string{},
		dependants: map[string][]string{},
	}
	for _, id := range b.dag.Nodes() {
		for _, to := range b.dag.Out(id) {
			g.deps[id] = append(g.deps[id], to)
			g.dependants[to] = append(g.dependants[to], id)
			for _, label := range script.SortedKeys(b.labels[[2]string{id, to}]) {
				g.Edges = append(g.Edges, Edge{From: id, To: to, Label: label})
			}
		}
	}
	for _, ds := range g.dependants {
		sort.Strings(ds)
	}
	g.Order, _ = b.dag.TopoSort()
	depth := map[string]int{}
	for _, id := range g.Order {
		d := 0
		for _, dep := range g.deps[id] {
			d = max(d, depth[dep]+1)
		}
		depth[id] = d
		for len(g.levels) <= d {
			g.levels = append(g.levels, nil)
		}
		g.levels[d] = append(g.levels[d], id)
	}
	return g
}

func (b *builder) serviceNames() []string { return script.SortedKeys(b.services) }

// referableIDs returns the ids references may name, sorted.
func (b *builder) referableIDs() []string {
	var ids []string
	for id := range b.nodes {
		if _, ok := b.exportsOf(id); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
