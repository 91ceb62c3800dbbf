package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/parse"
)

// TestLuaLSParses checks that the annotations of every component are Lua
// that gopher-lua's parser reads, the same on every run.
func TestLuaLSParses(t *testing.T) {
	t.Parallel()
	var a, b, stderr bytes.Buffer
	if code := Main([]string{"components", "--luals"}, &a, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := Main([]string{"components", "--luals"}, &b, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two runs wrote different annotations")
	}
	if _, err := parse.Parse(bytes.NewReader(a.Bytes()), "flowlua.lua"); err != nil {
		t.Fatalf("the annotations do not parse: %v", err)
	}
	for _, want := range []string{
		"---@meta\n",
		"---@class file.read.Args\n---@field filename string path of the file to read\n",
		"---@class otelcol.processor.batch\n---@field [string] otelcol.processor.batch.Exports\n---@operator call(string): fun(args: otelcol.processor.batch.Args)\n",
		"---@field timeout? string Timeout sets the time after which a batch will be sent regardless of size. (a duration: \"200ms\", \"5s\") (default \"200ms\")\n",
		"---@field action? \"mask\"|\"hash\"|\"delete\" ",
		"---@class integrations.otlp_gateway\n",
		"---@type ns.otelcol\notelcol = {}\n",
	} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("the annotations lack %q", want)
		}
	}
}

// TestComponentsJSONDescribesOtelcol checks that every argument of every
// otelcol component is typed, and that most have the upstream's
// description.
func TestComponentsJSONDescribesOtelcol(t *testing.T) {
	t.Parallel()
	var out, stderr bytes.Buffer
	if code := Main([]string{"components", "--json"}, &out, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc componentsDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	total, described := 0, 0
	for _, c := range doc.Components {
		if !strings.HasPrefix(c.Name, "otelcol.") || c.Source == "not in this build" {
			continue
		}
		if c.Upstream == "" || len(c.Stability) == 0 {
			t.Errorf("%s: no upstream package or stability", c.Name)
		}
		for _, a := range c.Arguments {
			total++
			if a.Type == "" {
				t.Errorf("%s: %s has no type", c.Name, a.Path)
			}
			if a.Doc != "" {
				described++
			}
		}
	}
	// 71% at the v0.158.0 pin (2,669 of 3,776): the rest are fields the
	// upstream packages leave uncommented (kafka's and the prometheus
	// receiver's nested configs, TLS, keepalive). A drop below 70% means
	// the generated descriptions went stale: run go generate ./stdlib/otelcol.
	if total == 0 || described*100 < total*70 {
		t.Errorf("%d of %d otelcol arguments are described, want 70%% (upstream leaves the rest uncommented)", described, total)
	}
}
