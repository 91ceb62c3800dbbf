package convert

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

// The script's lines map to the config's: each field to its key's line,
// each block to its component's, so that errors point into the config.
func TestTranslateLines(t *testing.T) {
	src := []byte(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:4317
exporters:
  debug:
    verbosity: detailed
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [debug]
`)
	tr, err := Translator{}.Translate("c.yaml", src, flowcomp.DefaultRegistry)
	if err != nil {
		t.Fatal(err)
	}
	lua, lines := tr.Script, tr.Lines
	want := map[string]int{
		`otelcol.receiver.otlp "default" {`:       2,
		`grpc = { endpoint = "127.0.0.1:4317" },`: 4,
		`otelcol.exporter.debug "default" {`:      7,
		`verbosity = "detailed",`:                 8,
	}
	got := strings.Split(string(lua), "\n")
	if len(lines) != len(got)-1 {
		t.Fatalf("%d lines mapped for a script of %d", len(lines), len(got)-1)
	}
	for i, l := range got[:len(lines)] {
		if w, ok := want[strings.TrimSpace(l)]; ok {
			if lines[i] != (script.Pos{File: "c.yaml", Line: w}) {
				t.Errorf("script line %d %q comes from %v, want c.yaml:%d", i+1, l, lines[i], w)
			}
			delete(want, strings.TrimSpace(l))
		}
	}
	if len(want) > 0 {
		t.Errorf("not in the script: %v\n%s", want, lua)
	}
}

// YAML that does not parse is an error at its line.
func TestTranslateYAMLError(t *testing.T) {
	_, err := Translator{}.Translate("c.yaml", []byte("receivers:\n  otlp:\n  - a\n  b: [\n"), flowcomp.DefaultRegistry)
	var ds script.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 || ds[0].Pos.File != "c.yaml" || ds[0].Pos.Line < 2 {
		t.Fatalf("err = %v, want one diagnostic at a line of c.yaml", err)
	}
}

func TestTranslates(t *testing.T) {
	for path, want := range map[string]bool{"a.yaml": true, "b.YML": true, "c.lua": false, "d": false} {
		if got := (Translator{}).Translates(path); got != want {
			t.Errorf("Translates(%q) = %v", path, got)
		}
	}
}

// ${file:PATH} becomes a file.read component, one per file, read as the
// collector's file provider reads a value: trimmed, and secret.
func TestFileProvider(t *testing.T) {
	res, err := Convert([]byte(`receivers: {otlp: {protocols: {grpc: }}}
exporters:
  otlp:
    endpoint: x:4317
    headers:
      authorization: Bearer ${file:/etc/collector/token}
      x-again: ${file:/etc/collector/token}
service: {pipelines: {traces: {receivers: [otlp], exporters: [otlp]}}}
`), Options{})
	if err != nil || len(res.Problems) > 0 {
		t.Fatalf("%v %s", err, res.Error())
	}
	for _, want := range []string{
		"file.read \"token\" {\n  filename = \"/etc/collector/token\",\n  is_secret = true,\n  trim_space = true,\n}",
		`authorization = "Bearer " .. file.read.token.content,`,
		`["x-again"] = file.read.token.content,`,
	} {
		if !strings.Contains(string(res.Script), want) {
			t.Errorf("script lacks %q:\n%s", want, res.Script)
		}
	}
	if n := strings.Count(string(res.Script), "file.read \""); n != 1 {
		t.Errorf("%d file.read components, want 1", n)
	}
}

// More configs merge over the file as the collector merges them, then
// --set; positions name the source each value came from.
func TestTranslateMerge(t *testing.T) {
	dir := t.TempDir()
	over := filepath.Join(dir, "over.yaml")
	if err := os.WriteFile(over, []byte("processors:\n  batch:\n    timeout: 1x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXTRA", "exporters:\n  debug:\n    verbosity: detailed\n")
	src := []byte(`receivers:
  otlp:
    protocols:
      grpc:
processors:
  batch:
    timeout: 1s
    send_batch_size: 10
exporters:
  debug: {}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [batch], exporters: [debug]}
`)
	tr := Translator{Also: []string{over, "env:EXTRA", "yaml:exporters::debug::sampling_initial: 7"}, Set: []string{"processors::batch::send_batch_size=20"}}
	res, err := tr.Translate("c.yaml", src, flowcomp.DefaultRegistry)
	if err != nil {
		t.Fatal(err)
	}
	lua := string(res.Script)
	for _, want := range []string{`timeout = "1x",`, `send_batch_size = 20,`, `verbosity = "detailed",`, `sampling_initial = 7,`, `grpc = {},`} {
		if !strings.Contains(lua, want) {
			t.Errorf("merged script lacks %q:\n%s", want, lua)
		}
	}
	at := func(frag string) script.Pos {
		for i, l := range strings.Split(lua, "\n") {
			if strings.Contains(l, frag) {
				return res.Lines[i]
			}
		}
		return script.Pos{}
	}
	for frag, want := range map[string]script.Pos{
		`timeout = "1x"`:                  {File: over, Line: 3},
		`verbosity = "detailed"`:          {File: "env:EXTRA", Line: 3},
		`send_batch_size = 20`:            {File: "--set processors::batch::send_batch_size=20", Line: 3},
		`otelcol.receiver.otlp "default"`: {File: "c.yaml", Line: 2},
	} {
		if got := at(frag); got != want {
			t.Errorf("%s comes from %v, want %v", frag, got, want)
		}
	}
	if _, ok := res.Files[over]; !ok {
		t.Errorf("Files = %v, want %s among them (watched)", res.Files, over)
	}
}

// A connector on one side of the pipelines only is refused, as the
// collector refuses it.
func TestConnectorOneSided(t *testing.T) {
	res, err := Convert([]byte(`receivers: {otlp: {protocols: {grpc: }}}
exporters: {debug: {}}
connectors:
  forward:
service:
  pipelines:
    traces: {receivers: [otlp], exporters: [debug]}
    traces/2: {receivers: [forward], exporters: [debug]}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Line != 4 || !strings.Contains(res.Problems[0].Msg, "connectors::forward: used as a receiver") {
		t.Fatalf("problems: %s", res.Error())
	}
}
