package main

import (
	"bytes"
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
