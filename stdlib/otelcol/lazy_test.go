package otelcol

import (
	"reflect"
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
)

// TestLazyProcessors: what each lazy factory says without being built
// (type, stability of each signal, config type) is what the built
// factory says, and its default config is the built factory's.
func TestLazyProcessors(t *testing.T) {
	n := 0
	for _, name := range flowcomp.DefaultRegistry.Names() {
		reg, _ := flowcomp.DefaultRegistry.Get(name)
		args, ok := reg.Args.(Args)
		if !ok {
			continue
		}
		lazy, ok := args.kind.factory.(*LazyProcessor)
		if !ok {
			continue
		}
		n++
		built := lazy.build()
		if _, ok := built.(*LazyProcessor); ok {
			t.Fatalf("%s: built into a lazy factory", name)
		}
		if lazy.Type() != built.Type() ||
			lazy.TracesStability() != built.TracesStability() ||
			lazy.MetricsStability() != built.MetricsStability() ||
			lazy.LogsStability() != built.LogsStability() {
			t.Errorf("%s: lazy says %v %v %v %v, built %v %v %v %v", name,
				lazy.Type(), lazy.TracesStability(), lazy.MetricsStability(), lazy.LogsStability(),
				built.Type(), built.TracesStability(), built.MetricsStability(), built.LogsStability())
		}
		if got, want := lazy.ConfigType(), reflect.TypeOf(built.CreateDefaultConfig()); got != want {
			t.Errorf("%s: config type %v, built %v", name, got, want)
		}
		if !reflect.DeepEqual(lazy.CreateDefaultConfig(), built.CreateDefaultConfig()) {
			t.Errorf("%s: default configs differ", name)
		}
	}
	if n < 2 {
		t.Errorf("%d lazy processors registered, want transform and filter", n)
	}
}
