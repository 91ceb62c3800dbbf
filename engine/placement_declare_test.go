package engine

import (
	"slices"
	"sync"
	"testing"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// declaringPlacement places unique keys on this node when its script
// declares them, and owns no other key (so the test sees which of the
// two the engine asks).
type declaringPlacement struct {
	*fakePlacement
	mu       sync.Mutex
	declared [][]string // each DeclareUnique call's keys, sorted
}

func (p *declaringPlacement) Owns(string) bool { return false }
func (p *declaringPlacement) DeclareUnique(keys []string) {
	k := slices.Sorted(slices.Values(keys))
	p.mu.Lock()
	p.declared = append(p.declared, k)
	p.mu.Unlock()
}

func (p *declaringPlacement) last() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.declared) == 0 {
		return nil
	}
	return p.declared[len(p.declared)-1]
}

func (p *declaringPlacement) OwnsUnique(key string) bool { return slices.Contains(p.last(), key) }
func (p *declaringPlacement) UniqueOwner(key string) string {
	if p.OwnsUnique(key) {
		return p.self
	}
	return ""
}

// Each load declares the graph's unique keys (a unique module instance's
// id for its components) before its components start, and unique
// components are placed by OwnsUnique: here, where they are declared.
func TestPlacementDeclaresUnique(t *testing.T) {
	ev := &events{}
	p := &declaringPlacement{fakePlacement: newFakePlacement("node-a")}
	c, _, _ := runController(t, ControllerOptions{Registry: testRegistry(ev), Services: []service.Service{p}, DataPath: t.TempDir()})
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
	ev.waitFor(t, "run test.fake.u")
	ev.waitFor(t, "run gw.eu.test.fake.in")
	if got := p.last(); !slices.Equal(got, []string{"gw.eu", "test.fake.u"}) {
		t.Fatalf("declared %v", got)
	}
	waitInfo(t, c, "test.fake.u", func(sb, o string) bool { return sb == "" && o == "node-a" })

	// A load without test.fake.u no longer declares it.
	s = &script.Script{Blocks: []*script.Block{comp("test.fake", "all", 1, map[string]any{"value": "a"}), inst, inner}}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	if got := p.last(); !slices.Equal(got, []string{"gw.eu"}) {
		t.Fatalf("declared after the reload %v", got)
	}
}
