package engine

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// fakePlacement is a placement service whose ownership the test sets.
type fakePlacement struct {
	mu      sync.Mutex
	self    string
	owners  map[string]string // key -> node; a missing key is owned by self
	changed chan struct{}
}

func newFakePlacement(self string) *fakePlacement {
	return &fakePlacement{self: self, owners: map[string]string{}, changed: make(chan struct{}, 1)}
}

func (p *fakePlacement) Definition() service.Definition                { return service.Definition{Name: "cluster"} }
func (p *fakePlacement) Run(ctx context.Context, _ service.Host) error { <-ctx.Done(); return nil }
func (p *fakePlacement) Update(any) error                              { return nil }
func (p *fakePlacement) Data() any                                     { return p }
func (p *fakePlacement) Changed() <-chan struct{}                      { return p.changed }
func (p *fakePlacement) Owns(key string) bool                          { return p.Owner(key) == p.self }
func (p *fakePlacement) Owner(key string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if o, ok := p.owners[key]; ok {
		return o
	}
	return p.self
}

// set changes ownership and tells the engine.
func (p *fakePlacement) set(owners map[string]string) {
	p.mu.Lock()
	p.owners = owners
	p.mu.Unlock()
	p.changed <- struct{}{}
}

func newPlacementController(t *testing.T, ev *events, p *fakePlacement) *Controller {
	t.Helper()
	c, _, _ := runController(t, ControllerOptions{Registry: testRegistry(ev), Services: []service.Service{p}, DataPath: t.TempDir()})
	return c
}

func unique(b *script.Block) *script.Block { b.Placement = "unique"; return b }

// waitInfo polls a component until cond holds.
func waitInfo(t *testing.T, c *Controller, id string, cond func(standby, owner string) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var standby, owner string
	for time.Now().Before(deadline) {
		info, err := c.GetComponent(id)
		if err == nil {
			standby, owner = info.Standby, info.Owner
			if cond(standby, owner) {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: standby %q owner %q", id, standby, owner)
}

// A unique component runs only where its key is owned; elsewhere it is
// built and held standby, and it moves when ownership does: the loser
// stops it and builds a fresh standby instance, the gainer runs its own.
func TestPlacementUniqueMoves(t *testing.T) {
	ev := &events{}
	p := newFakePlacement("node-a")
	p.owners = map[string]string{"test.fake.u": "node-b", "gw.eu": "node-b"}
	c := newPlacementController(t, ev, p)
	inst := &script.Block{Kind: script.KindModule, Name: "gw", Label: "eu", Pos: script.Pos{File: "main.lua", Line: 3}, Placement: "unique",
		Module: &script.ModuleInstance{Def: &script.ModuleDef{Name: "gw", Schema: noSchema{}}}}
	inner := unique(comp("test.fake", "in", 4, map[string]any{"value": "i"}))
	inner.Instance = []string{"gw.eu"}
	s := &script.Script{Blocks: []*script.Block{
		comp("test.fake", "all", 1, map[string]any{"value": "a"}),
		unique(comp("test.fake", "u", 2, map[string]any{"value": "u"})),
		inst, inner,
	}}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.fake.all")
	waitInfo(t, c, "test.fake.u", func(sb, o string) bool { return sb == "standby (owned by node-b)" && o == "node-b" })
	waitInfo(t, c, "gw.eu.test.fake.in", func(sb, o string) bool { return sb == "standby (owned by node-b)" })
	info, _ := c.GetComponent("test.fake.u")
	if info.Health.Message != "standby (owned by node-b)" || info.Exports == nil {
		t.Fatalf("standby info: %+v", info)
	}
	for _, e := range ev.take() {
		if e == "run test.fake.u" || e == "run gw.eu.test.fake.in" {
			t.Fatalf("a component owned by node-b ran here: %v", e)
		}
	}

	// node-b leaves: this node takes both over.
	p.set(map[string]string{})
	ev.waitFor(t, "run test.fake.u")
	ev.waitFor(t, "run gw.eu.test.fake.in")
	waitInfo(t, c, "test.fake.u", func(sb, o string) bool { return sb == "" && o == "node-a" })
	ev.take()

	// node-c joins and wins test.fake.u: it stops and drains here, and a
	// fresh standby instance is built.
	p.set(map[string]string{"test.fake.u": "node-c"})
	ev.waitFor(t, "stop test.fake.u")
	ev.waitFor(t, "build test.fake.u u")
	waitInfo(t, c, "test.fake.u", func(sb, o string) bool { return sb == "standby (owned by node-c)" })
	for _, e := range ev.take() {
		if strings.Contains(e, "test.fake.all") || strings.Contains(e, "gw.eu") {
			t.Fatalf("a move touched another component: %s", e)
		}
	}
}

// noSchema is a module schema without arguments or exports.
type noSchema struct{}

func (noSchema) DecodeArgs(any) (any, error)          { return nil, nil }
func (noSchema) ExportTypes() map[string]reflect.Type { return nil }

// cluster.shard evaluates to the items this node owns, keeps the list's
// type, and is re-evaluated (an Update, no restart) when ownership moves.
func TestPlacementShard(t *testing.T) {
	ev := &events{}
	p := newFakePlacement("node-a")
	p.owners = map[string]string{"t2": "node-b", "t3": "node-b"}
	c := newPlacementController(t, ev, p)
	shard := &script.Expr{Op: "shard", Service: "cluster", Args: []any{[]any{"t1", "t2", "t3", "t4"}}, Pos: script.Pos{File: "main.lua", Line: 1}}
	s := &script.Script{Blocks: []*script.Block{comp("test.fake", "s", 1, map[string]any{"list": shard})}}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.fake.s")
	list := func() []string {
		info, _ := c.GetComponent("test.fake.s")
		return info.Arguments.(fakeArgs).List
	}
	if got := list(); !reflect.DeepEqual(got, []string{"t1", "t4"}) {
		t.Fatalf("shard = %v", got)
	}
	if deps := c.graph.Dependencies("test.fake.s"); !reflect.DeepEqual(deps, []string{"cluster"}) {
		t.Fatalf("dependencies = %v", deps)
	}
	p.set(map[string]string{"t1": "node-b"})
	deadline := time.Now().Add(10 * time.Second)
	for !reflect.DeepEqual(list(), []string{"t2", "t3", "t4"}) {
		if time.Now().After(deadline) {
			t.Fatalf("shard after the move = %v", list())
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, e := range ev.take() {
		if strings.HasPrefix(e, "stop") || strings.HasPrefix(e, "build test.fake.s") && e != "build test.fake.s " {
			t.Fatalf("a shard move restarted the component: %s", e)
		}
	}

	// Check time: a shard of something that is not a list is an error at
	// its line; one of a list keeps the list's type.
	bad := &script.Script{Blocks: []*script.Block{comp("test.fake", "s", 1, map[string]any{
		"list": &script.Expr{Op: "shard", Service: "cluster", Args: []any{ref("test.fake.o", "out", 1)}, Pos: script.Pos{File: "main.lua", Line: 1}},
	}), comp("test.fake", "o", 2, nil)}}
	_, diags := (&Loader{Registry: testRegistry(ev), Services: []service.Definition{p.Definition()}}).Build(bad)
	if len(diags) != 1 || !strings.Contains(diags[0].Error(), "main.lua:1: test.fake.s: cluster.shard: expected a list, got string (from test.fake.o.out)") {
		t.Fatalf("diags = %v", diags)
	}
	_, diags = (&Loader{Registry: testRegistry(ev)}).Build(s)
	if len(diags) != 1 || !strings.Contains(diags[0].Error(), "uses cluster.shard, but there is no cluster service") {
		t.Fatalf("diags without the service = %v", diags)
	}
}
