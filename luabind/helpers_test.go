package luabind_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

// testComponents are the component names the tests register.
var testComponents = []string{
	"file.read",
	"otelcol.receiver.otlp",
	"otelcol.processor.batch",
	"otelcol.exporter.otlp",
	"otelcol.extension.file_storage",
}

// testOptions returns load options with the test components, the http
// service and a fixed environment.
func testOptions() luabind.LoadOptions {
	env := map[string]string{"UPSTREAM": "10.0.0.1:4317", "EMPTY": ""}
	return luabind.LoadOptions{
		Components: testComponents,
		Services:   []string{"http"},
		Print:      io.Discard,
		Getenv: func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		},
	}
}

// load loads src as main.lua with the test options.
func load(t *testing.T, src string) (*script.Script, error) {
	t.Helper()
	return luabind.LoadSource("main.lua", []byte(src), testOptions())
}

// mustLoad loads src and fails the test on an error.
func mustLoad(t *testing.T, src string) *script.Script {
	t.Helper()
	s, err := load(t, src)
	if err != nil {
		t.Fatalf("load failed:\n%v", err)
	}
	return s
}

// diagLines returns the diagnostics of err as "file:line: message" lines;
// it fails the test if err is not script.Diagnostics.
func diagLines(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		t.Fatal("load succeeded, want an error")
	}
	var ds script.Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("error is %T, want script.Diagnostics: %v", err, err)
	}
	lines := make([]string, len(ds))
	for i, d := range ds {
		if d.Pos.File == "" || d.Pos.Line <= 0 {
			t.Errorf("diagnostic without a position: %q", d.Error())
		}
		lines[i] = d.Error()
	}
	return lines
}

// writeFiles writes files (path relative to dir → content) and returns dir.
func writeFiles(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// chdir changes the working directory for the test.
func chdir(t *testing.T, dir string) {
	t.Helper()
	t.Chdir(dir)
}

// block returns the block with id, or fails.
func block(t *testing.T, s *script.Script, id string) *script.Block {
	t.Helper()
	for _, b := range s.Blocks {
		if b.ID() == id {
			return b
		}
	}
	t.Fatalf("no block %q", id)
	return nil
}

// pos is a shorthand for a position in main.lua.
func pos(line int) script.Pos { return script.Pos{File: "main.lua", Line: line} }
