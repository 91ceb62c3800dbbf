package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestSmallerBuilds builds flowlua with each of the build tags that leave
// components out (see stdlib/otelcol/components.go) and checks that such a
// binary runs pipelines of the components it has, and that a pipeline
// using one it left out fails at check with the file, the line and the
// reason.
func TestSmallerBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	t.Parallel()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	dir := t.TempDir()
	otlp := filepath.Join(dir, "otlp.lua")
	prom := filepath.Join(dir, "prom.lua")
	kafka := filepath.Join(dir, "kafka.lua")
	writeFile(t, otlp, `otelcol.receiver.otlp "in" {
  protocols = { grpc = { endpoint = "127.0.0.1:0" } },
  output = { traces = { otelcol.processor.batch.b.input } },
}
otelcol.processor.batch "b" { output = { traces = { otelcol.exporter.debug.out.input } } }
otelcol.exporter.debug "out" {}
`)
	writeFile(t, prom, "-- scrapes nothing\notelcol.receiver.prometheus \"p\" { config = { scrape_configs = {} }, output = {} }\n")
	writeFile(t, kafka, "otelcol.receiver.kafka \"k\" { output = {} }\n")
	var listing strings.Builder
	if code := Main([]string{"components"}, &listing, &listing); code != 0 {
		t.Fatalf("components: exit %d\n%s", code, listing.String())
	}
	// The test binary also registers this package's testing.* components.
	defaultNames := slices.DeleteFunc(componentNames(listing.String()), func(n string) bool { return strings.HasPrefix(n, "testing.") })
	for _, tc := range []struct {
		tags    string
		absent  []string // scripts that must fail, as "file:line: component"
		present []string // scripts that must pass
	}{
		{tags: "flowlua_lean", absent: []string{prom + ":2: otelcol.receiver.prometheus.p"}, present: []string{otlp}},
		{tags: "flowlua_minimal", absent: []string{prom + ":2: otelcol.receiver.prometheus.p", kafka + ":1: otelcol.receiver.kafka.k"}, present: []string{otlp}},
	} {
		t.Run(tc.tags, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(dir, tc.tags)
			// As make build builds them (Makefile's GO_TAGS).
			build := exec.Command(goBin, "build", "-pgo=off", "-tags", "grpcnotrace,"+tc.tags, "-o", bin, ".")
			var stdout, stderr strings.Builder
			build.Stdout, build.Stderr = &stdout, &stderr
			if err := build.Run(); err != nil {
				t.Fatalf("go build -tags %s: %v\n%s%s", tc.tags, err, stdout.String(), lastLines(stderr.String(), 20))
			}
			for _, script := range tc.present {
				if out, err := exec.Command(bin, "check", script).CombinedOutput(); err != nil {
					t.Errorf("check %s: %v\n%s", script, err, out)
				}
			}
			for _, want := range tc.absent {
				script, _, _ := strings.Cut(want, ":")
				out, err := exec.Command(bin, "check", script).CombinedOutput()
				if err == nil {
					t.Errorf("check %s passed in a %s build:\n%s", script, tc.tags, out)
					continue
				}
				if !strings.Contains(string(out), want) || !strings.Contains(string(out), "is not in this build of flowlua (built with -tags") {
					t.Errorf("check %s: want %q and the reason, got:\n%s", script, want, out)
				}
			}
			// The minimal build has no gossip: --cluster.enabled is refused
			// at start with the reason (clustering itself is tested on the
			// default build, cluster_test.go).
			if tc.tags == "flowlua_minimal" {
				out, err := exec.Command(bin, "run", "--no-watch", "--http.listen-addr=127.0.0.1:0",
					"--cluster.enabled", "--cluster.listen-addr=127.0.0.1:0", otlp).CombinedOutput()
				if err == nil || !strings.Contains(string(out), "--cluster.enabled: clustering is not in this build of flowlua (built with -tags flowlua_minimal)") {
					t.Errorf("run --cluster.enabled in a minimal build: %v\n%s", err, out)
				}
			}
			// Every component of the default build (this test binary) is
			// a name in the smaller one, real or left out: the lists of
			// stdlib/otelcol/absent.go follow the component files.
			out, err := exec.Command(bin, "components").CombinedOutput()
			if err != nil {
				t.Fatalf("components: %v\n%s", err, out)
			}
			if got, want := componentNames(string(out)), defaultNames; !slices.Equal(got, want) {
				t.Errorf("components of a %s build:\n got %v\nwant %v (the default build's)", tc.tags, got, want)
			}
		})
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "")
}

// componentNames returns the names `flowlua components` lists, sorted.
func componentNames(listing string) []string {
	var names []string
	for line := range strings.Lines(listing) {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	slices.Sort(names)
	return names
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
