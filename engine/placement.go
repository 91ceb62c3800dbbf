package engine

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// Placement in a cluster. The engine asks a service.Placement (the
// cluster service; found among the process's services) which node owns a
// key; without one, this node owns everything and nothing here runs.
//
// A component with `placement = "unique"`:
//
//  1. is built on every node, so that its exports exist everywhere;
//  2. runs (Run) only on the node that owns its key: its id, or the id of
//     the outermost unique module instance it was declared in, so that an
//     instance's components move together; on the other nodes it is held
//     built but not running: standby, shown in the API;
//  3. when membership changes, a node that lost the key stops its
//     instance (cancels Run and waits for it to drain) and builds a fresh
//     standby one (Run is called once per instance); a node that gained
//     the key runs its standby instance.
//
// `cluster.shard(list, key_fn)` is an expression (Op "shard") whose value
// is the part of the list this node owns; a node using it depends on the
// placement service, which is marked dirty on membership change, so the
// ordinary propagation re-evaluates it and updates the component.

// placementExport is how an expression reaches the placement service
// through a Lookup: the service node "exports" itself under this name.
const placementExport = "placement"

// placer is the controller's view of the placement service.
type placer struct {
	svc service.Placement
	// unique is svc when it places unique components on the nodes that
	// declare them only; nil otherwise.
	unique  service.UniquePlacement
	name    string // the service's name
	changes *prometheus.CounterVec
}

// newPlacer finds the placement service among svcs; nil when none.
func newPlacer(svcs []service.Service, reg prometheus.Registerer) *placer {
	for _, s := range svcs {
		if p, ok := s.(service.Placement); ok {
			pl := &placer{svc: p, name: s.Definition().Name, changes: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "flowlua_cluster_ownership_changes_total",
				Help: "Unique components this node started running (gained) or stopped running (lost) because membership changed.",
			}, []string{"change"})}
			_ = reg.Register(pl.changes)
			pl.unique, _ = p.(service.UniquePlacement)
			return pl
		}
	}
	return nil
}

// changed is the placement service's change channel, nil without one.
func (p *placer) changed() <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.svc.Changed()
}

// placementKey returns the key that places a component block, and
// whether it is placed at all (unique): the outermost unique module
// instance's id, else its own id when it is unique itself.
func placementKey(g *Graph, blk *script.Block) (string, bool) {
	if blk == nil || blk.Placement != "unique" {
		return "", false
	}
	scope := ""
	for _, inst := range blk.Instance {
		scope += inst
		if n := g.Nodes[scope]; n != nil && n.Block != nil && n.Block.Placement == "unique" {
			return scope, true
		}
		scope += "."
	}
	return blk.ID(), true
}

// ownership says whether this node runs the component, and who does.
func (c *Controller) ownership(g *Graph, blk *script.Block) (owns bool, owner string) {
	key, unique := placementKey(g, blk)
	if !unique || c.place == nil {
		return true, ""
	}
	if u := c.place.unique; u != nil {
		return u.OwnsUnique(key), u.UniqueOwner(key)
	}
	return c.place.svc.Owns(key), c.place.svc.Owner(key)
}

// declareUnique tells the placement service which unique keys the graph
// g holds, so that the cluster places them only on nodes that have them.
// It runs before g's components start.
func (c *Controller) declareUnique(g *Graph) {
	if c.place == nil || c.place.unique == nil {
		return
	}
	var keys []string
	for _, id := range g.Order {
		n := g.Nodes[id]
		if n == nil || n.Block == nil {
			continue
		}
		if key, unique := placementKey(g, n.Block); unique && !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	c.place.unique.DeclareUnique(keys)
}

// standbyReason is what a standby component's state says.
func standbyReason(owner string) string {
	if owner == "" {
		return "standby (waiting for the cluster)"
	}
	return "standby (owned by " + owner + ")"
}

// run starts a freshly committed component, or holds it standby when
// another node owns it.
func (n *componentNode) run() {
	n.c.mu.RLock()
	g := n.c.graph
	n.c.mu.RUnlock()
	n.mu.Lock()
	blk := n.decl.Block
	n.mu.Unlock()
	if owns, owner := n.c.ownership(g, blk); !owns {
		n.hold(owner)
		return
	}
	n.start()
}

// hold marks a built, not running component as standby.
func (n *componentNode) hold(owner string) {
	n.mu.Lock()
	n.live, n.standby, n.owner = true, standbyReason(owner), owner
	n.cancel, n.done = nil, nil
	n.mu.Unlock()
}

// placeable is a node that placement runs where its key is owned and
// holds standby elsewhere: a component. (The components of a unique
// module instance are placed by the instance's key.)
type placeable interface {
	liveNode
	// placeState returns the node's declaration, whether it is held
	// standby and whether it runs.
	placeState() (blk *script.Block, standby, running bool)
	// setOwner records the node that runs it; standby says that this
	// node holds it standby.
	setOwner(owner string, standby bool)
	// handOver stops the node, draining by deadline, and holds a fresh
	// standby instance.
	handOver(owner string, deadline time.Time) error
	// takeOver runs the node here.
	takeOver(owner string)
}

// placeAll makes every unique component of the running graph run where
// its key is owned: those this node lost stop first (dependants first),
// then those it gained start (dependencies first). The caller holds
// applyMu.
func (c *Controller) placeAll() {
	if c.place == nil {
		return
	}
	c.mu.RLock()
	g, live := c.graph, c.live
	c.mu.RUnlock()
	if g == nil {
		return
	}
	type move struct {
		n     placeable
		owner string
	}
	var lost, gained []move
	for _, id := range g.Order {
		n, ok := live[id].(placeable)
		if !ok {
			continue
		}
		blk, standby, running := n.placeState()
		if _, unique := placementKey(g, blk); !unique && !standby {
			continue
		}
		owns, owner := c.ownership(g, blk)
		switch {
		case owns && standby:
			gained = append(gained, move{n, owner})
		case !owns && running:
			lost = append(lost, move{n, owner})
		default:
			n.setOwner(owner, !owns)
		}
	}
	for _, m := range slices.Backward(lost) {
		id := blkID(m.n)
		c.logger.Info("handing a unique component over", "component_id", id, "owner", m.owner)
		if err := m.n.handOver(m.owner, time.Now().Add(c.opts.DrainTimeout)); err != nil {
			c.logger.Error("rebuilding a standby component failed", "component_id", id, "err", err)
		}
		c.markDirty(id) // the fresh instance's exports
		c.place.changes.WithLabelValues("lost").Inc()
	}
	for _, m := range gained {
		c.logger.Info("taking a unique component over", "component_id", blkID(m.n))
		m.n.takeOver(m.owner)
		c.place.changes.WithLabelValues("gained").Inc()
	}
}

func blkID(n placeable) string {
	blk, _, _ := n.placeState()
	return blk.ID()
}

func (n *componentNode) placeState() (*script.Block, bool, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.decl.Block, n.standby != "", n.cancel != nil
}

func (n *componentNode) setOwner(owner string, standby bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.owner = owner
	if standby {
		n.standby = standbyReason(owner)
	}
}

func (n *componentNode) handOver(owner string, deadline time.Time) error {
	n.stop("placed on "+owner, deadline)
	err := n.rebuild()
	n.hold(owner)
	return err
}

func (n *componentNode) takeOver(owner string) {
	n.mu.Lock()
	n.standby, n.owner = "", owner
	n.mu.Unlock()
	n.start()
}

// rebuild builds a fresh instance of a stopped component with its last
// arguments.
func (n *componentNode) rebuild() error {
	n.mu.Lock()
	decl, args := n.decl, n.args
	n.instance, n.exited, n.runErr = nil, false, nil
	n.mu.Unlock()
	return n.build(decl, args)
}

// replace re-runs placement after a membership change, then marks the
// placement service dirty so that cluster.shard expressions are
// re-evaluated by the ordinary propagation.
func (c *Controller) replace() {
	c.applyMu.Lock()
	c.placeAll()
	c.applyMu.Unlock()
	if c.place != nil {
		c.markDirty(c.place.name)
	}
}

// evalShard evaluates `cluster.shard(list, key_fn)`: the items of the
// list whose key this node owns, in order, in a list of the input's type.
// In check mode (placeholders) the result has the list's type.
func evalShard(x *script.Expr, lookup Lookup) (any, error) {
	fail := func(format string, a ...any) (any, error) {
		return nil, &ExprError{Pos: x.Pos, Err: fmt.Errorf("cluster.shard: "+format, a...)}
	}
	if len(x.Args) != 1 {
		return fail("expected a list")
	}
	list, err := Evaluate(x.Args[0], lookup)
	if err != nil {
		return nil, err
	}
	svc, err := lookup(&script.Ref{Component: x.Service, Export: placementExport, Pos: x.Pos})
	if err != nil {
		return nil, err
	}
	if p, ok := list.(*script.Placeholder); ok {
		if p.Type != nil && p.Type.Kind() != reflect.Slice && p.Type.Kind() != reflect.Array {
			return fail("expected a list, got %s (from %s)", p.Type, p.From)
		}
		return &script.Placeholder{Type: p.Type, From: "cluster.shard(" + p.From + ")"}, nil
	}
	rv := reflect.ValueOf(list)
	if !rv.IsValid() || rv.Kind() != reflect.Slice {
		return fail("expected a list, got %s", typeName(list))
	}
	place, ok := svc.(service.Placement)
	if !ok { // check mode: the list as it is
		return list, nil
	}
	out := reflect.MakeSlice(rv.Type(), 0, rv.Len()/2+1)
	for i := 0; i < rv.Len(); i++ {
		item := rv.Index(i)
		key, err := shardKey(x, item.Interface())
		if err != nil {
			return fail("item %d: %v", i+1, err)
		}
		if place.Owns(key) {
			out = reflect.Append(out, item)
		}
	}
	return out.Interface(), nil
}

// shardKey is an item's key: key_fn(item) when given, else the item.
// Strings and numbers are their text; other values their JSON (maps
// with sorted keys), so that equal items have equal keys on every node.
func shardKey(x *script.Expr, item any) (string, error) {
	if x.Func != nil {
		v, err := x.Func.Call([]any{item})
		if err != nil {
			return "", err
		}
		s, ok := concatString(v)
		if !ok {
			return "", fmt.Errorf("the key function returned a %s value, want a string", typeName(v))
		}
		return s, nil
	}
	if s, ok := concatString(item); ok {
		return s, nil
	}
	b, err := json.Marshal(item)
	if err != nil {
		return "", fmt.Errorf("a %s value has no key: pass a key function", typeName(item))
	}
	return string(b), nil
}

// shardServices returns the services a block's cluster.shard expressions
// use, sorted.
func shardServices(blk *script.Block) []string {
	var out []string
	visit := func(v any) {
		if x, ok := v.(*script.Expr); ok && x.Op == "shard" && !slices.Contains(out, x.Service) {
			out = append(out, x.Service)
		}
	}
	script.Walk(blk.Args, visit)
	if blk.Module != nil {
		script.Walk(blk.Module.Exports, visit)
	}
	slices.Sort(out)
	return out
}

// UniqueWithoutCluster is the warning about a component placed "unique"
// on a node that places nothing: without --cluster.enabled every node
// that runs the script runs the component.
const UniqueWithoutCluster = `placement = "unique" without --cluster.enabled: it runs on every node that runs this script`

// UniqueWarnings returns one line per component of g placed "unique"
// (itself or through its module instance), in g's order:
// "file:line: id: " + UniqueWithoutCluster. It is for callers that know
// clustering is off (flowlua check, and the controller of an unclustered
// run).
func UniqueWarnings(g *Graph) []string {
	var out []string
	for _, id := range g.Order {
		n := g.Nodes[id]
		if n == nil || n.Block == nil || n.Block.Kind != script.KindComponent {
			continue
		}
		if _, unique := placementKey(g, n.Block); unique {
			out = append(out, fmt.Sprintf("%s: %s: %s", n.Block.Pos, id, UniqueWithoutCluster))
		}
	}
	return out
}

// unclustered reports whether unique placement means nothing here: no
// placement service, or one that says it is not enabled.
func (p *placer) unclustered() bool {
	if p == nil {
		return true
	}
	e, ok := p.svc.(interface{ Enabled() bool })
	return ok && !e.Enabled()
}

// warnUnclustered logs UniqueWithoutCluster for every unique component of
// g a load added or changed to unique, when clustering is off.
func (c *Controller) warnUnclustered(g *Graph, old *Graph) {
	if !c.place.unclustered() {
		return
	}
	for _, id := range g.Order {
		n := g.Nodes[id]
		if n == nil || n.Block == nil || n.Block.Kind != script.KindComponent {
			continue
		}
		if _, unique := placementKey(g, n.Block); !unique {
			continue
		}
		if old != nil {
			if o := old.Nodes[id]; o != nil && o.Block != nil {
				if _, was := placementKey(old, o.Block); was {
					continue
				}
			}
		}
		c.logger.Warn(UniqueWithoutCluster, "component_id", id, "pos", n.Block.Pos.String())
	}
}
