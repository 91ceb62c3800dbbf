package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
			build := exec.Command(goBin, "build", "-tags", tc.tags, "-o", bin, ".")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build -tags %s: %v\n%s", tc.tags, err, out)
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
			out, err := exec.Command(bin, "components").CombinedOutput()
			if err != nil {
				t.Fatalf("components: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "otelcol.receiver.prometheus") || !strings.Contains(string(out), "otelcol.receiver.otlp") {
				t.Errorf("components of a %s build: want the otlp receiver and the left-out prometheus receiver listed, got:\n%s", tc.tags, out)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
