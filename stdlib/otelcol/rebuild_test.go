package otelcol

import (
	"context"
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine"
	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

// TestRebuildsLeakNothing removes an exporter from the script and adds it
// back 200 times through the engine: each time the component is stopped
// and dropped, then built again. Its metrics (the queue's size and
// capacity, reported through its MeterProvider) must be unregistered with
// it, its MeterProvider shut down: the /metrics series and the heap stay
// flat.
func TestRebuildsLeakNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("200 rebuilds")
	}
	const id = "otelcol.exporter.otlp.out"
	reg := prometheus.NewRegistry()
	ctrl := engine.NewController(engine.ControllerOptions{Registerer: reg, DataPath: t.TempDir()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	with := &script.Script{Path: "main.lua", Blocks: []*script.Block{{
		Kind: script.KindComponent, Name: "otelcol.exporter.otlp", Label: "out",
		Pos: script.Pos{File: "main.lua", Line: 1},
		Args: map[string]any{
			"endpoint": "127.0.0.1:1",
			"tls":      map[string]any{"insecure": true},
		},
	}}}
	without := &script.Script{Path: "main.lua"}

	// cycle adds the exporter, waits for its queue metrics, and removes
	// it; it returns the series seen while it ran.
	cycle := func() int {
		t.Helper()
		if err := ctrl.Apply(with); err != nil {
			t.Fatal(err)
		}
		var n int
		eventually(t, func() bool {
			n = countSeries(t, reg, id)
			return n > 0
		}, "metrics of %s", id)
		total := countSeries(t, reg, "")
		if err := ctrl.Apply(without); err != nil {
			t.Fatal(err)
		}
		if left := countSeries(t, reg, id); left != 0 {
			t.Fatalf("%d series of %s left after it was removed", left, id)
		}
		return total
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}

	for range 10 { // warm up: pools, caches, lazily created state
		cycle()
	}
	seriesBefore, heapBefore := cycle(), heap()
	seriesAfter := 0
	for range 200 {
		seriesAfter = cycle()
	}
	heapAfter := heap()
	t.Logf("series with the exporter running: %d before, %d after 200 rebuilds; heap %d KiB before, %d KiB after",
		seriesBefore, seriesAfter, heapBefore>>10, heapAfter>>10)
	if seriesAfter != seriesBefore {
		t.Errorf("series: %d after 200 rebuilds, %d before", seriesAfter, seriesBefore)
	}
	// A leaked component (its bridge, MeterProvider, exporter and queue)
	// costs tens of KiB: 200 of them would pass 2 MiB.
	if grown := int64(heapAfter) - int64(heapBefore); grown > 2<<20 {
		t.Errorf("heap grew by %d KiB over 200 rebuilds", grown>>10)
	}
}

// countSeries counts the series reg exposes; those of component id alone
// when id is set.
func countSeries(t *testing.T, reg *prometheus.Registry, id string) int {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if id == "" || label(m, "component_id") == id {
				n++
			}
		}
	}
	return n
}

// TestExtensionReplaced: through the engine, an exporter references a
// file_storage extension by its id. Updating the exporter alone keeps the
// extension; new arguments for the extension start a new instance under a
// new handle, and the exporter is updated onto it.
func TestExtensionReplaced(t *testing.T) {
	ctrl := engine.NewController(engine.ControllerOptions{DataPath: t.TempDir()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	pipeline := func(timeout, extTimeout string) *script.Script {
		return &script.Script{Path: "main.lua", Blocks: []*script.Block{{
			Kind: script.KindComponent, Name: "otelcol.exporter.otlp", Label: "out",
			Pos: script.Pos{File: "main.lua", Line: 1},
			Args: map[string]any{
				"endpoint":      "127.0.0.1:1",
				"timeout":       timeout,
				"tls":           map[string]any{"insecure": true},
				"sending_queue": map[string]any{"storage": &script.Ref{Component: "otelcol.extension.file_storage.q", Export: "id", Pos: script.Pos{File: "main.lua", Line: 4}}},
			},
		}, {
			Kind: script.KindComponent, Name: "otelcol.extension.file_storage", Label: "q",
			Pos:  script.Pos{File: "main.lua", Line: 6},
			Args: map[string]any{"timeout": extTimeout},
		}}}
	}
	adapterOf := func(id string) *adapter {
		info, err := ctrl.GetComponent(id)
		if err != nil {
			t.Fatal(err)
		}
		return info.Component.(*adapter)
	}
	// served returns the extension the exporter's running instance is
	// served, once it runs healthy on it.
	served := func() *Extension {
		t.Helper()
		exp := adapterOf("otelcol.exporter.otlp.out")
		var ext *Extension
		eventually(t, func() bool {
			exp.mu.Lock()
			defer exp.mu.Unlock()
			if exp.cur == nil || len(exp.cur.host.extensions) != 1 || exp.health.get().Health != flowcomp.HealthHealthy {
				return false
			}
			ext = exp.cur.host.extensions[0]
			return ext.component() != nil
		}, "the exporter running on a started extension")
		return ext
	}

	if err := ctrl.Apply(pipeline("5s", "1s")); err != nil {
		t.Fatal(err)
	}
	first := served()
	if first.String() != "file_storage/q" {
		t.Errorf("extension id %s", first)
	}

	// The exporter alone changes: same extension.
	if err := ctrl.Apply(pipeline("6s", "1s")); err != nil {
		t.Fatal(err)
	}
	if again := served(); again != first {
		t.Error("updating the exporter changed its extension")
	}

	// The extension changes: a new instance, a new handle, and the
	// exporter follows.
	if err := ctrl.Apply(pipeline("6s", "2s")); err != nil {
		t.Fatal(err)
	}
	var second *Extension
	eventually(t, func() bool { second = served(); return second != first }, "the exporter on the new extension")
	if first.component() != nil {
		t.Error("the replaced extension is still served")
	}
}
