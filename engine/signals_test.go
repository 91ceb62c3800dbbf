package engine

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

type outputArgs struct {
	Output dataplane.Output `lua:"output"`
}

type nopComponent struct{}

func (nopComponent) Run(ctx context.Context) error    { <-ctx.Done(); return nil }
func (nopComponent) Update(component.Arguments) error { return nil }

// signalRegistry has a source, a sink that takes metrics only and a
// processor that takes traces and metrics it has consumers for.
func signalRegistry(t *testing.T) *component.Registry {
	reg := component.NewRegistry()
	build := func(component.Options, component.Arguments) (component.Component, error) { return nopComponent{}, nil }
	takes := func(sigs ...dataplane.Signal) func(dataplane.Signal, [dataplane.NumSignals]bool) error {
		return func(s dataplane.Signal, _ [dataplane.NumSignals]bool) error {
			for _, t := range sigs {
				if t == s {
					return nil
				}
			}
			return fmt.Errorf("it takes %v", sigs)
		}
	}
	for _, r := range []component.Registration{
		{Name: "test.source", Args: outputArgs{}, Build: build},
		{Name: "test.metrics", Args: struct{}{}, Exports: dataplane.Exports{}, Build: build, Accepts: takes(dataplane.Metrics)},
		{Name: "test.any", Args: struct{}{}, Exports: dataplane.Exports{}, Build: build},
		{Name: "test.proc", Args: outputArgs{}, Exports: dataplane.Exports{}, Build: build,
			Accepts: func(s dataplane.Signal, outputs [dataplane.NumSignals]bool) error {
				if !outputs[s] {
					return fmt.Errorf("its output has no %s", s)
				}
				return nil
			}},
	} {
		if err := reg.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// anySchema is a module schema taking anything and exporting input.
type anySchema struct{}

func (anySchema) DecodeArgs(v any) (any, error) { return v, nil }
func (anySchema) ExportTypes() map[string]reflect.Type {
	return map[string]reflect.Type{"input": reflect.TypeFor[dataplane.Consumer]()}
}

// TestSignalMismatch checks that a reference in an output that sends a
// signal to a component that does not take it is an error at the
// reference, through module exports too, and that what fits passes.
func TestSignalMismatch(t *testing.T) {
	reg := signalRegistry(t)
	out := func(m map[string]any) map[string]any { return map[string]any{"output": m} }
	module := &script.Block{Kind: script.KindModule, Name: "gw", Label: "eu", Pos: script.Pos{File: "main.lua", Line: 20},
		Module: &script.ModuleInstance{
			Def:     &script.ModuleDef{Name: "gw", Schema: anySchema{}},
			Exports: map[string]any{"input": ref("gw.eu.test.metrics.m", "input", 23)},
		}}
	inModule := comp("test.metrics", "m", 22, nil)
	inModule.Instance = []string{"gw.eu"}
	tests := []struct {
		name   string
		blocks []*script.Block
		want   []string
	}{
		{"traces into a metrics-only input", []*script.Block{
			comp("test.source", "s", 1, out(map[string]any{
				"traces":  []any{ref("test.metrics.m", "input", 3)},
				"metrics": []any{ref("test.metrics.m", "input", 4)},
			})),
			comp("test.metrics", "m", 6, nil),
		}, []string{`main.lua:3: test.source.s: output.traces: test.metrics.m.input does not accept traces (it takes [metrics])`}},
		{"a processor without consumers of the signal", []*script.Block{
			comp("test.source", "s", 1, out(map[string]any{"logs": []any{ref("test.proc.p", "input", 2)}})),
			comp("test.proc", "p", 5, out(map[string]any{"traces": []any{ref("test.any.a", "input", 6)}, "logs": []any{}})),
			comp("test.any", "a", 8, nil),
		}, []string{`main.lua:2: test.source.s: output.logs: test.proc.p.input does not accept logs (its output has no logs)`}},
		{"through a module's export", []*script.Block{
			comp("test.source", "s", 1, out(map[string]any{"logs": []any{ref("gw.eu", "input", 2)}})),
			module, inModule,
		}, []string{`main.lua:2: test.source.s: output.logs: gw.eu.input (gw.eu.test.metrics.m.input) does not accept logs (it takes [metrics])`}},
		{"a named output", []*script.Block{
			comp("test.source", "s", 1, out(map[string]any{"traces/errors": []any{ref("test.metrics.m", "input", 2)}})),
			comp("test.metrics", "m", 6, nil),
		}, []string{`main.lua:2: test.source.s: output.traces/errors: test.metrics.m.input does not accept traces (it takes [metrics])`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Loader{Registry: reg}
			g, diags := l.Build(&script.Script{Blocks: tt.blocks})
			var got []string
			for _, d := range diags {
				if strings.Contains(d.Error(), "does not accept") {
					got = append(got, d.Error())
				}
			}
			if g != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}

	// What each component takes passes.
	l := &Loader{Registry: reg}
	blocks := []*script.Block{
		comp("test.source", "s", 1, out(map[string]any{
			"metrics": []any{ref("test.metrics.m", "input", 2), ref("gw.eu", "input", 3)},
			"traces":  []any{ref("test.proc.p", "input", 4), ref("test.any.a", "input", 5)},
		})),
		comp("test.metrics", "m", 6, nil),
		comp("test.proc", "p", 7, out(map[string]any{"traces": []any{ref("test.any.a", "input", 8)}})),
		comp("test.any", "a", 9, nil),
		module, inModule,
	}
	if _, diags := l.Build(&script.Script{Blocks: blocks}); len(diags) > 0 {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
}
