package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// fakeArgs/fakeExports are the arguments and exports of test components.
type fakeArgs struct {
	Value string   `lua:"value"`
	Count int      `lua:"count"`
	Flag  bool     `lua:"flag"`
	List  []string `lua:"list"`
}

type fakeExports struct {
	Out string `lua:"out"`
}

// events records what test components did, in order.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, fmt.Sprintf(format, args...))
}

func (e *events) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.list
	e.list = nil
	return out
}

// waitFor polls until the events recorded so far contain want.
func (e *events) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		e.mu.Lock()
		found := slices.Contains(e.list, want)
		e.mu.Unlock()
		if found {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("event %q not seen; events: %v", want, e.take())
}

type fakeComponent struct {
	id   string
	ev   *events
	opts component.Options
}

func (f *fakeComponent) Run(ctx context.Context) error {
	f.ev.add("run %s", f.id)
	<-ctx.Done()
	f.ev.add("stop %s", f.id)
	return nil
}

func (f *fakeComponent) Update(args component.Arguments) error {
	a := args.(fakeArgs)
	if a.Value == "fail-update" {
		return fmt.Errorf("refused")
	}
	f.ev.add("update %s %s", f.id, a.Value)
	f.opts.OnStateChange(fakeExports{Out: "out:" + a.Value})
	return nil
}

func testRegistry(ev *events) *component.Registry {
	reg := component.NewRegistry()
	build := func(opts component.Options, args component.Arguments) (component.Component, error) {
		a := args.(fakeArgs)
		if a.Value == "fail-build" {
			return nil, fmt.Errorf("cannot build")
		}
		ev.add("build %s %s", opts.ID, a.Value)
		opts.OnStateChange(fakeExports{Out: "out:" + a.Value})
		return &fakeComponent{id: opts.ID, ev: ev, opts: opts}, nil
	}
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(reg.Add(component.Registration{Name: "test.fake", Args: fakeArgs{}, Exports: fakeExports{}, Build: build}))
	must(reg.Add(component.Registration{Name: "test.user", Args: fakeArgs{}, Exports: fakeExports{}, NeedsServices: []string{"svc"}, Build: build}))
	return reg
}

type svcConfig struct {
	Value string `lua:"value"`
}

type fakeService struct {
	def service.Definition
	ev  *events
}

func (s *fakeService) Definition() service.Definition { return s.def }
func (s *fakeService) Run(ctx context.Context, host service.Host) error {
	s.ev.add("run service %s", s.def.Name)
	<-ctx.Done()
	return nil
}
func (s *fakeService) Update(cfg any) error {
	s.ev.add("update service %s %v", s.def.Name, cfg.(svcConfig).Value)
	return nil
}
func (s *fakeService) Data() any { return s.def.Name }

// comp declares a component block at line.
func comp(name, label string, line int, args map[string]any) *script.Block {
	return &script.Block{Kind: script.KindComponent, Name: name, Label: label, Pos: script.Pos{File: "main.lua", Line: line}, Args: args}
}

func ref(id, export string, line int) *script.Ref {
	return &script.Ref{Component: id, Export: export, Pos: script.Pos{File: "main.lua", Line: line}}
}

func TestLoaderDiagnostics(t *testing.T) {
	reg := testRegistry(&events{})
	defs := []service.Definition{
		{Name: "svc", ConfigType: svcConfig{}, DependsOn: []string{"base"}},
		{Name: "base", ConfigType: svcConfig{}},
	}
	tests := []struct {
		name   string
		blocks []*script.Block
		want   []string
	}{
		{"undeclared reference", []*script.Block{
			comp("test.fake", "alpha", 1, nil),
			comp("test.fake", "b", 2, map[string]any{"value": ref("test.fake.alpah", "out", 3)}),
		}, []string{`main.lua:3: reference to undeclared component "test.fake.alpah" (did you mean "test.fake.alpha"?)`}},
		{"unknown export", []*script.Block{
			comp("test.fake", "a", 1, nil),
			comp("test.fake", "b", 2, map[string]any{"value": ref("test.fake.a", "uot", 4)}),
		}, []string{`main.lua:4: component "test.fake.a" has no export "uot" (did you mean "out"?)`}},
		{"wrong type from a reference", []*script.Block{
			comp("test.fake", "a", 1, nil),
			comp("test.fake", "b", 2, map[string]any{"flag": ref("test.fake.a", "out", 5)}),
		}, []string{`main.lua:2: test.fake.b: flag: expected boolean, got string (from test.fake.a.out)`}},
		{"concatenation of a reference is a string", []*script.Block{
			comp("test.fake", "a", 1, nil),
			comp("test.fake", "b", 2, map[string]any{"count": &script.Expr{Op: "..", Args: []any{"x", ref("test.fake.a", "out", 6)}}}),
		}, []string{`main.lua:2: test.fake.b: count: expected integer, got string (from an expression with ..)`}},
		{"component cycle", []*script.Block{
			comp("test.fake", "a", 1, map[string]any{"value": ref("test.fake.b", "out", 1)}),
			comp("test.fake", "b", 2, map[string]any{"value": ref("test.fake.a", "out", 2)}),
		}, []string{`cycle: test.fake.a (main.lua:1) -> test.fake.b (main.lua:2) -> test.fake.a`}},
		{"component to service to component cycle", []*script.Block{
			comp("test.user", "u", 3, nil),
			{Kind: script.KindService, Name: "svc", Pos: script.Pos{File: "main.lua", Line: 7},
				Args: map[string]any{"value": ref("test.user.u", "out", 8)}},
		}, []string{`cycle: service "svc" (main.lua:7) -> test.user.u (main.lua:3) -> service "svc"`}},
		{"service block of an unknown service", []*script.Block{
			{Kind: script.KindService, Name: "sv", Pos: script.Pos{File: "main.lua", Line: 1}},
		}, []string{`main.lua:1: unknown service "sv" (did you mean "svc"?)`}},
		{"several errors at once, sorted by line", []*script.Block{
			comp("test.fake", "a", 1, map[string]any{"value": ref("other.thing.zz", "out", 9)}),
			comp("test.fake", "b", 2, map[string]any{"value": ref("test.fake.a", "nope", 4)}),
		}, []string{
			`main.lua:4: component "test.fake.a" has no export "nope" (it exports out)`,
			`main.lua:9: reference to undeclared component "other.thing.zz"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Loader{Registry: reg, Services: defs}
			g, diags := l.Build(&script.Script{Blocks: tt.blocks})
			if g != nil {
				t.Fatalf("got a graph, want diagnostics %v", tt.want)
			}
			var got []string
			for _, d := range diags {
				got = append(got, d.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestServiceDependsOnCycle(t *testing.T) {
	l := &Loader{Registry: component.NewRegistry(), Services: []service.Definition{
		{Name: "a", DependsOn: []string{"b"}},
		{Name: "b", DependsOn: []string{"a"}},
	}}
	_, diags := l.Build(&script.Script{})
	if len(diags) != 1 || diags[0].Error() != `cycle: service "a" -> service "b" -> service "a"` {
		t.Fatalf("diagnostics = %v", diags)
	}
}

func TestGraphOrderAndEdges(t *testing.T) {
	reg := testRegistry(&events{})
	l := &Loader{Registry: reg, Services: []service.Definition{{Name: "svc", ConfigType: svcConfig{}}}}
	g, diags := l.Build(&script.Script{Blocks: []*script.Block{
		comp("test.user", "u", 1, map[string]any{"value": ref("test.fake.b", "out", 1)}),
		comp("test.fake", "b", 2, map[string]any{"value": &script.Expr{Op: "..", Args: []any{ref("test.fake.a", "out", 2), "!"}}}),
		comp("test.fake", "a", 3, nil),
	}})
	if diags != nil {
		t.Fatal(diags)
	}
	want := []string{"svc", "test.fake.a", "test.fake.b", "test.user.u"}
	if !reflect.DeepEqual(g.Order, want) {
		t.Fatalf("order = %v, want %v", g.Order, want)
	}
	wantEdges := []Edge{
		{From: "test.fake.b", To: "test.fake.a", Label: "out"},
		{From: "test.user.u", To: "svc", Label: "service"},
		{From: "test.user.u", To: "test.fake.b", Label: "out"},
	}
	if !reflect.DeepEqual(g.Edges, wantEdges) {
		t.Fatalf("edges = %v, want %v", g.Edges, wantEdges)
	}
}

func newTestController(t *testing.T, ev *events) (*Controller, context.CancelFunc, chan struct{}) {
	t.Helper()
	svc := &fakeService{def: service.Definition{Name: "svc", ConfigType: svcConfig{}}, ev: ev}
	return runController(t, ControllerOptions{Registry: testRegistry(ev), Services: []service.Service{svc}, DataPath: t.TempDir()})
}

// runController runs a controller of opts until the test ends (or cancel
// is called; done is closed once Run returned), failing the test if Run
// returns an error.
func runController(t *testing.T, opts ControllerOptions) (*Controller, context.CancelFunc, chan struct{}) {
	t.Helper()
	c := NewController(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return c, cancel, done
}

func TestControllerReloadKeepsUpdatesRemovesAndStarts(t *testing.T) {
	ev := &events{}
	c, _, _ := newTestController(t, ev)
	v1 := &script.Script{Blocks: []*script.Block{
		comp("test.fake", "keep", 1, map[string]any{"value": "k"}),
		comp("test.fake", "change", 2, map[string]any{"value": "1"}),
		comp("test.fake", "gone", 3, map[string]any{"value": "g"}),
	}}
	if err := c.Apply(v1); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"keep", "change", "gone"} {
		ev.waitFor(t, "run test.fake."+id)
	}
	ev.waitFor(t, "run service svc") // started with the graph, in its own goroutine
	ev.take()

	v2 := &script.Script{Blocks: []*script.Block{
		comp("test.fake", "keep", 1, map[string]any{"value": "k"}),
		comp("test.fake", "change", 2, map[string]any{"value": "2"}),
		comp("test.fake", "new", 3, map[string]any{"value": "n"}),
	}}
	if err := c.Apply(v2); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.fake.new")
	got := ev.take()
	want := []string{"stop test.fake.gone", "build test.fake.new n", "update test.fake.change 2", "run test.fake.new"}
	// build happens before anything is touched; stop before update and run.
	wantOrder := []string{"build test.fake.new n", "stop test.fake.gone", "update test.fake.change 2", "run test.fake.new"}
	if !reflect.DeepEqual(got, wantOrder) {
		t.Fatalf("events = %v, want %v (the set %v)", got, wantOrder, want)
	}
}

func TestControllerFailedApplyLeavesGraphUntouched(t *testing.T) {
	ev := &events{}
	c, _, _ := newTestController(t, ev)
	if err := c.Apply(&script.Script{Blocks: []*script.Block{comp("test.fake", "a", 1, map[string]any{"value": "1"})}}); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.fake.a")
	ev.waitFor(t, "run service svc") // started with the graph, in its own goroutine
	ev.take()
	bad := &script.Script{Blocks: []*script.Block{
		comp("test.fake", "a", 1, map[string]any{"value": "2"}),
		comp("test.fake", "b", 2, map[string]any{"value": "fail-build"}),
	}}
	err := c.Apply(bad)
	if err == nil || !strings.Contains(err.Error(), "main.lua:2: test.fake.b: building: cannot build") {
		t.Fatalf("err = %v", err)
	}
	if got := ev.take(); len(got) != 0 {
		t.Fatalf("a failed apply touched the running graph: %v", got)
	}
	if _, err := c.GetComponent("test.fake.b"); err == nil {
		t.Fatal("test.fake.b exists after a failed apply")
	}
	info, _ := c.GetComponent("test.fake.a")
	if info.Arguments.(fakeArgs).Value != "1" {
		t.Fatalf("arguments changed to %v", info.Arguments)
	}
}

func TestControllerPropagatesExportChanges(t *testing.T) {
	ev := &events{}
	c, _, _ := newTestController(t, ev)
	s := &script.Script{Blocks: []*script.Block{
		comp("test.fake", "src", 1, map[string]any{"value": "a"}),
		comp("test.fake", "dst", 2, map[string]any{"value": &script.Expr{Op: "..", Args: []any{ref("test.fake.src", "out", 2), "!"}}}),
	}}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.fake.dst")
	if got := ev.take(); !slices.Contains(got, "build test.fake.dst out:a!") {
		t.Fatalf("dst was not built from src's export: %v", got)
	}
	// src's exports change: dst is updated, not rebuilt.
	src, _ := c.GetComponent("test.fake.src")
	if err := src.Component.Update(fakeArgs{Value: "b"}); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "update test.fake.dst out:b!")
	for _, e := range ev.take() {
		if strings.HasPrefix(e, "build") || strings.HasPrefix(e, "stop") {
			t.Fatalf("dst was restarted: %s", e)
		}
	}
}

func TestControllerServicesFirstAndShutdownInReverse(t *testing.T) {
	ev := &events{}
	c, cancel, done := newTestController(t, ev)
	s := &script.Script{Blocks: []*script.Block{
		comp("test.user", "u", 1, map[string]any{"value": ref("test.fake.a", "out", 1)}),
		comp("test.fake", "a", 2, map[string]any{"value": "x"}),
		{Kind: script.KindService, Name: "svc", Pos: script.Pos{File: "main.lua", Line: 3}, Args: map[string]any{"value": "cfg"}},
	}}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.user.u")
	ev.waitFor(t, "run service svc")
	cancel()
	<-done
	got := ev.take()
	idx := func(e string) int {
		i := slices.Index(got, e)
		if i < 0 {
			t.Fatalf("missing %q in %v", e, got)
		}
		return i
	}
	if idx("update service svc cfg") > idx("build test.user.u out:x") {
		t.Fatalf("the service was not configured before its user was built: %v", got)
	}
	if idx("stop test.user.u") > idx("stop test.fake.a") {
		t.Fatalf("the dependant did not stop first: %v", got)
	}
}

func TestControllerRebuildsWhenImplementationChanges(t *testing.T) {
	ev := &events{}
	c, _, _ := newTestController(t, ev)
	withFingerprint := func(fp string) *component.Registry {
		reg := testRegistry(ev)
		r, _ := reg.Get("test.fake")
		reg.Remove("test.fake")
		r.Fingerprint = fp
		if err := reg.Add(r); err != nil {
			t.Fatal(err)
		}
		return reg
	}
	s := &script.Script{Blocks: []*script.Block{
		comp("test.fake", "a", 1, map[string]any{"value": "x"}),
		comp("test.fake", "b", 2, map[string]any{"value": ref("test.fake.a", "out", 2)}),
	}}
	if err := c.ApplyWith(s, withFingerprint("v1")); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.fake.a")
	ev.waitFor(t, "run test.fake.b")
	ev.waitFor(t, "run service svc") // started with the graph, in its own goroutine
	ev.take()
	// Same script, same fingerprint: nothing happens.
	if err := c.ApplyWith(s, withFingerprint("v1")); err != nil {
		t.Fatal(err)
	}
	if got := ev.take(); len(got) != 0 {
		t.Fatalf("an unchanged reload did %v", got)
	}
	// A new implementation: both are rebuilt, dependants after dependencies.
	if err := c.ApplyWith(s, withFingerprint("v2")); err != nil {
		t.Fatal(err)
	}
	ev.waitFor(t, "run test.fake.a")
	ev.waitFor(t, "run test.fake.b")
	got := ev.take()
	want := []string{"build test.fake.a x", "build test.fake.b out:x", "stop test.fake.b", "stop test.fake.a"}
	if len(got) != 6 || !reflect.DeepEqual(got[:4], want) ||
		!slices.Contains(got[4:], "run test.fake.a") || !slices.Contains(got[4:], "run test.fake.b") {
		t.Fatalf("events = %v, want %v then both runs", got, want)
	}
}
