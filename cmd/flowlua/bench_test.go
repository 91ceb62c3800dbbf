package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/scriptload"
)

func init() {
	component.Register(component.Registration{
		Name:    "testing.noop",
		Args:    noopArgs{},
		Exports: recorderExports{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			opts.OnStateChange(recorderExports{Value: args.(noopArgs).Value})
			return noop{}, nil
		},
	})
}

type noopArgs struct {
	Value   string         `lua:"value"`
	Inputs  []string       `lua:"inputs"`
	Options map[string]any `lua:"options"`
}

type noop struct{}

func (noop) Run(ctx context.Context) error    { <-ctx.Done(); return nil }
func (noop) Update(component.Arguments) error { return nil }

// bigScript declares n components, each referencing three others declared
// before it (3n references in all); variant changes one component's value.
func bigScript(n int, variant string) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "testing.noop \"c%04d\" {\n", i)
		value := "v"
		if i == n/2 {
			value = variant
		}
		fmt.Fprintf(&sb, "  value = %q,\n  inputs = {", value)
		for k := 1; k <= 3; k++ {
			j := (i + n - k) % n
			if j < i {
				fmt.Fprintf(&sb, " testing.noop.c%04d.value,", j)
			} else {
				fmt.Fprintf(&sb, " %q,", "literal")
			}
		}
		sb.WriteString(" },\n  options = { retries = 3, mode = \"fast\" },\n}\n")
	}
	return sb.String()
}

func loadBig(b *testing.B, dir, src string) *script.Script {
	path := filepath.Join(dir, "main.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	s, _, err := scriptload.Load(path, scriptload.Options{Registry: component.DefaultRegistry})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkCheck1000 loads and checks a script of 1,000 components with
// about 3,000 references: what `flowlua check` and every reload pay.
func BenchmarkCheck1000(b *testing.B) {
	dir := b.TempDir()
	src := bigScript(1000, "v")
	if refs := strings.Count(src, ".value,"); refs < 2990 {
		b.Fatalf("only %d references", refs)
	}
	loader := &engine.Loader{Registry: component.DefaultRegistry}
	b.ReportAllocs()
	for b.Loop() {
		s := loadBig(b, dir, src)
		if _, diags := loader.Build(s); diags != nil {
			b.Fatal(diags)
		}
	}
}

// BenchmarkReload1000 applies a 1,000-component script in which one
// component changed to a running graph: load, check, diff and Update.
func BenchmarkReload1000(b *testing.B) {
	dir := b.TempDir()
	ctrl := engine.NewController(engine.ControllerOptions{DataPath: dir})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = ctrl.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	if err := ctrl.Apply(loadBig(b, dir, bigScript(1000, "v"))); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := ctrl.Apply(loadBig(b, dir, bigScript(1000, fmt.Sprint("v", i)))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApply1000 is the apply step alone of a reload of a
// 1,000-component graph in which one component changed: check, evaluate,
// diff and one Update (the scripts are loaded beforehand).
func BenchmarkApply1000(b *testing.B) {
	dir := b.TempDir()
	ctrl := engine.NewController(engine.ControllerOptions{DataPath: dir})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = ctrl.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	scripts := []*script.Script{loadBig(b, dir, bigScript(1000, "v1")), loadBig(b, dir, bigScript(1000, "v2"))}
	if err := ctrl.Apply(scripts[0]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := ctrl.Apply(scripts[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// groupScripts returns the same 1,000 components twice: as 100 instances
// of a 10-component module, and written flat with the ids the instances
// give them. Each component references up to three declared before it in
// its group, as bigScript does.
func groupScripts(instances int) (modules, flat string) {
	var m, f strings.Builder
	m.WriteString("module \"group\" {\n  args = { value = \"string\" },\n  body = function(args)\n")
	component := func(sb *strings.Builder, indent, prefix string, i int, value string) {
		fmt.Fprintf(sb, "%stesting.noop \"c%d\" {\n%s  value = %s,\n%s  inputs = {", indent, i, indent, value, indent)
		for k := 1; k <= 3 && i-k >= 0; k++ {
			fmt.Fprintf(sb, " %stesting.noop.c%d.value,", prefix, i-k)
		}
		fmt.Fprintf(sb, " },\n%s  options = { retries = 3, mode = \"fast\" },\n%s}\n", indent, indent)
	}
	for i := 0; i < 10; i++ {
		component(&m, "    ", "", i, "args.value")
	}
	m.WriteString("  end,\n}\n")
	for g := 0; g < instances; g++ {
		fmt.Fprintf(&m, "group \"g%03d\" { value = \"v\" }\n", g)
		for i := 0; i < 10; i++ {
			// The flat ids are those the instances give: group.gNNN.testing.noop.cN.
			var sb strings.Builder
			component(&sb, "", "", i, `"v"`)
			f.WriteString(strings.NewReplacer(
				`testing.noop "`, fmt.Sprintf(`testing.noop "g%03d_`, g),
				"testing.noop.c", fmt.Sprintf("testing.noop.g%03d_c", g),
			).Replace(sb.String()))
		}
	}
	return m.String(), f.String()
}

// BenchmarkCheckModules compares loading and checking 1,000 components
// declared by 100 instances of a 10-component module with the same
// components written flat.
func BenchmarkCheckModules(b *testing.B) {
	modules, flat := groupScripts(100)
	for _, c := range []struct{ name, src string }{{"flat", flat}, {"modules", modules}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			loader := &engine.Loader{Registry: component.DefaultRegistry}
			b.ReportAllocs()
			for b.Loop() {
				s := loadBig(b, dir, c.src)
				g, diags := loader.Build(s)
				if diags != nil {
					b.Fatal(diags)
				}
				if n := len(g.Components()); n != 1000 {
					b.Fatalf("%d components, want 1000", n)
				}
			}
		})
	}
}
