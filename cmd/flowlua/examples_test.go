package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamples runs the tests shipped with the example pipelines
// (examples/*_test.lua), as `flowlua test examples/` does.
func TestExamples(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"test", "../../examples"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("flowlua test examples: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !bytes.Contains(stdout.Bytes(), []byte("ok: ")) {
		t.Fatalf("no summary:\n%s", stdout.String())
	}
}

// TestExamplesCheck checks every pipeline of examples/ as `flowlua check`
// does (in this process: checking starts nothing), with the first-party
// plugins found as bin/flowlua finds them beside it.
func TestExamplesCheck(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.lua")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	prom, err := firstPartyPlugin("prometheus")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.lua") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"check", "--plugins.path=" + filepath.Dir(prom), f}, &stdout, &stderr); code != 0 {
				t.Errorf("flowlua check %s: exit %d\n%s%s", f, code, stdout.String(), stderr.String())
			}
		})
	}
}
