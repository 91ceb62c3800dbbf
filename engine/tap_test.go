package engine

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

type pipeArgs struct {
	Output dataplane.Output `lua:"output"`
}

// pipe exports an input that forwards to its output's fan-out.
type pipe struct {
	in *dataplane.Indirect
}

func (p *pipe) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (p *pipe) Update(args component.Arguments) error {
	p.in.Set(dataplane.FanOut(args.(pipeArgs).Output))
	return nil
}

func pipeRegistry() *component.Registry {
	reg := component.NewRegistry()
	if err := reg.Add(component.Registration{
		Name: "test.pipe", Args: pipeArgs{}, Exports: dataplane.Exports{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			p := &pipe{in: dataplane.NewIndirect()}
			_ = p.Update(args)
			opts.OnStateChange(dataplane.Exports{Input: p.in})
			return p, nil
		},
	}); err != nil {
		panic(err)
	}
	return reg
}

// Every component's outputs are tapped by the engine: the items it sends
// are counted per consumer (Sends, the metric) and a viewer sees them;
// removing the component closes its tap.
func TestControllerTapsOutputs(t *testing.T) {
	c := NewController(ControllerOptions{Registry: pipeRegistry()})
	t.Cleanup(c.shutdown)
	out := func(to string) map[string]any {
		return map[string]any{"output": map[string]any{"traces": []any{ref(to, "input", 1)}}}
	}
	s := &script.Script{Blocks: []*script.Block{
		comp("test.pipe", "a", 1, out("test.pipe.b")),
		comp("test.pipe", "b", 2, map[string]any{}),
	}}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	tap := c.Tap("test.pipe.a")
	if tap == nil {
		t.Fatal("no tap for test.pipe.a")
	}
	v, err := tap.Watch(dataplane.ViewOptions{Buffer: 4})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := c.GetComponent("test.pipe.a")
	// the component's own input: send through the fan-out of its output
	in := a.Exports.(dataplane.Exports).Input
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("s")
	if err := in.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if got := (<-v.Samples()).Items; got != 1 {
		t.Errorf("viewer saw %d items", got)
	}
	a, _ = c.GetComponent("test.pipe.a")
	want := []component.Send{{Signal: "traces", To: "test.pipe.b", Items: 1}}
	if len(a.Sends) != 1 || a.Sends[0] != want[0] {
		t.Errorf("sends = %+v, want %+v", a.Sends, want)
	}

	if err := c.Apply(&script.Script{Blocks: []*script.Block{comp("test.pipe", "b", 2, map[string]any{})}}); err != nil {
		t.Fatal(err)
	}
	<-v.Done()
	if c.Tap("test.pipe.a") != nil {
		t.Error("a removed component still has a tap")
	}
}

// LastLoad reports the last load, accepted or rejected.
func TestControllerLastLoad(t *testing.T) {
	c := NewController(ControllerOptions{Registry: pipeRegistry()})
	t.Cleanup(c.shutdown)
	if !c.LastLoad().Time.IsZero() {
		t.Fatal("a load before any")
	}
	if err := c.Apply(&script.Script{Blocks: []*script.Block{comp("test.pipe", "b", 2, map[string]any{})}}); err != nil {
		t.Fatal(err)
	}
	if l := c.LastLoad(); l.Time.IsZero() || l.Err != nil {
		t.Fatalf("last load %+v", l)
	}
	_ = c.Apply(&script.Script{Blocks: []*script.Block{comp("test.pipe", "b", 7, map[string]any{"nope": 1})}})
	if l := c.LastLoad(); l.Err == nil || !strings.Contains(l.Err.Error(), "main.lua:7") {
		t.Fatalf("last load %+v", l)
	}
}

type sendArgs struct {
	To dataplane.Consumer `lua:"to"`
}

// sender sends to a consumer argument through its options' tap, as a Lua
// component's emit does.
type sender struct {
	tap *dataplane.Tap
	to  dataplane.Consumer
}

func (s *sender) Run(ctx context.Context) error         { <-ctx.Done(); return nil }
func (s *sender) Update(args component.Arguments) error { return nil }

// A component that sends to a consumer argument through the tap of its
// options is observed like an output: the engine lists the send, with its
// items, once something was sent.
func TestControllerTapsConsumerArguments(t *testing.T) {
	reg := pipeRegistry()
	var built *sender
	if err := reg.Add(component.Registration{
		Name: "test.send", Args: sendArgs{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			built = &sender{tap: opts.Tap, to: args.(sendArgs).To}
			return built, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	c := NewController(ControllerOptions{Registry: reg})
	t.Cleanup(c.shutdown)
	s := &script.Script{Blocks: []*script.Block{
		comp("test.send", "a", 1, map[string]any{"to": ref("test.pipe.b", "input", 1)}),
		comp("test.pipe", "b", 2, map[string]any{}),
	}}
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	if built.tap == nil || built.tap != c.Tap("test.send.a") {
		t.Fatal("the component's options do not hold its tap")
	}
	if a, _ := c.GetComponent("test.send.a"); len(a.Sends) != 0 {
		t.Errorf("sends before anything was sent: %+v", a.Sends)
	}
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("s")
	out := dataplane.OutputTraces(dataplane.Output{Traces: []dataplane.Consumer{built.to}}.WithTap(built.tap))
	if err := out.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	a, _ := c.GetComponent("test.send.a")
	want := component.Send{Signal: "traces", To: "test.pipe.b", Items: 1}
	if len(a.Sends) != 1 || a.Sends[0] != want {
		t.Errorf("sends = %+v, want %+v", a.Sends, want)
	}
}
