package main

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestExamples checks every pipeline of examples/ as `flowlua check` does
// (in this process: checking starts nothing).
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.lua")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"check", f}, &stdout, &stderr); code != 0 {
				t.Errorf("flowlua check %s: exit %d\n%s%s", f, code, stdout.String(), stderr.String())
			}
		})
	}
}
