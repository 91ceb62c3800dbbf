package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/flowlua/flowlua/bench/internal/wire"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestProcReaders reads this test process's own CPU time, peak RSS and the
// machine's busy time.
func TestProcReaders(t *testing.T) {
	pid := os.Getpid()
	c0, err := cpuSeconds(pid)
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	c1, err := cpuSeconds(pid)
	if err != nil || c1 < c0 {
		t.Fatalf("cpu %v then %v (%v)", c0, c1, err)
	}
	if rss, err := peakRSSMB(pid); err != nil || rss <= 0 {
		t.Fatalf("peak RSS %v (%v)", rss, err)
	}
	if b, err := busySeconds(); err != nil || b <= 0 {
		t.Fatalf("busy %v (%v)", b, err)
	}
}

func TestFreePortsDistinct(t *testing.T) {
	addrs, err := freePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if seen[a] {
			t.Fatalf("duplicate %s in %v", a, addrs)
		}
		seen[a] = true
	}
}

// TestPollDeadline checks a wait that never succeeds gives up on time.
func TestPollDeadline(t *testing.T) {
	start := time.Now()
	err := poll(context.Background(), 100*time.Millisecond, 10*time.Millisecond, "never", func() (bool, error) { return false, nil })
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

func TestSkipMissingFlowlua(t *testing.T) {
	o := &options{benchDir: t.TempDir(), flowluaBin: "/nonexistent/flowlua"}
	if _, err := command(o, "flowlua", "passthrough"); err == nil {
		t.Fatal("want a skip for a missing binary")
	} else if _, ok := err.(skipError); !ok {
		t.Fatalf("want a skipError, got %T %v", err, err)
	}
	if _, err := command(o, "collector", "nope"); err == nil {
		t.Fatal("want a skip for a missing collector config")
	}
}

// TestScaledItems: the suite lengthens the small and one-attribute loads,
// shortens the OTLP/JSON ones, and leaves the options' own counts alone.
func TestScaledItems(t *testing.T) {
	o := &options{items: map[wire.Signal]int64{wire.Traces: 4, wire.Metrics: 8}, suiteSmallScale: 2, suiteJSONScale: 0.25}
	for _, proto := range []string{"grpc", "http"} {
		if got := scaledItems(o, "realistic", proto); got[wire.Traces] != 4 || got[wire.Metrics] != 8 {
			t.Errorf("realistic %s: %v", proto, got)
		}
	}
	for _, p := range []string{"small", "oneattr"} {
		if got := scaledItems(o, p, "grpc"); got[wire.Traces] != 8 || got[wire.Metrics] != 16 {
			t.Errorf("%s: %v", p, got)
		}
	}
	if got := scaledItems(o, "realistic", "http-json"); got[wire.Traces] != 1 || got[wire.Metrics] != 2 {
		t.Errorf("realistic http-json: %v", got)
	}
	if o.items[wire.Traces] != 4 {
		t.Errorf("the options' items changed: %v", o.items)
	}
}

// TestPprofFlag: flowlua runs with --no-http.enable-pprof unless -pprof,
// and only where its binary has the flag (an older baseline does not).
func TestPprofFlag(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pipelines"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pipelines", "p.lua"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fake := func(name, help string) string {
		bin := filepath.Join(dir, name)
		script := "#!/bin/sh\n[ \"$2\" = --help ] && echo '" + help + "'\nexit 0\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return bin
	}
	newer := fake("newer", "--[no-]http.enable-pprof  Serve the Go profiler")
	older := fake("older", "--[no-]watch")
	for _, c := range []struct {
		bin   string
		pprof bool
		want  bool
	}{{newer, false, true}, {newer, true, false}, {older, false, false}} {
		o := &options{benchDir: dir, flowluaBin: c.bin, pprof: c.pprof}
		args, err := command(o, "flowlua", "p")
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(args, "--no-http.enable-pprof"); got != c.want {
			t.Errorf("%s, -pprof=%v: args %v", filepath.Base(c.bin), c.pprof, args)
		}
	}
}
