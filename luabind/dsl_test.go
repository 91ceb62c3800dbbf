package luabind_test

import (
	"reflect"
	"testing"

	"github.com/flowlua/flowlua/engine/script"
)

func TestDeclarations(t *testing.T) {
	s := mustLoad(t, `
file.read "token" { filename = "/etc/token" }
otelcol.receiver.otlp "default" {
  protocols = { grpc = { endpoint = "127.0.0.1:4317" } },
}
otelcol.extension.file_storage "queue" {}
http { listen = "127.0.0.1:12345" }
`)
	want := []*script.Block{
		{Kind: script.KindComponent, Name: "file.read", Label: "token", Pos: pos(2),
			Args:     map[string]any{"filename": "/etc/token"},
			FieldPos: map[string]script.Pos{"filename": pos(2)}},
		{Kind: script.KindComponent, Name: "otelcol.receiver.otlp", Label: "default", Pos: pos(3),
			Args: map[string]any{"protocols": map[string]any{"grpc": map[string]any{"endpoint": "127.0.0.1:4317"}}},
			FieldPos: map[string]script.Pos{
				"protocols": pos(4), "protocols.grpc": pos(4), "protocols.grpc.endpoint": pos(4),
			}},
		{Kind: script.KindComponent, Name: "otelcol.extension.file_storage", Label: "queue", Pos: pos(6),
			Args: map[string]any{}},
		{Kind: script.KindService, Name: "http", Pos: pos(7),
			Args:     map[string]any{"listen": "127.0.0.1:12345"},
			FieldPos: map[string]script.Pos{"listen": pos(7)}},
	}
	if !reflect.DeepEqual(s.Blocks, want) {
		for _, b := range s.Blocks {
			t.Logf("got %+v", *b)
		}
		t.Fatal("blocks differ")
	}
	if s.Path != "main.lua" || !reflect.DeepEqual(s.Files, []string{"main.lua"}) {
		t.Errorf("Path %q, Files %q", s.Path, s.Files)
	}
	if got := s.Blocks[0].ID(); got != "file.read.token" {
		t.Errorf("ID = %q", got)
	}
}

func TestDeclarationsAnyDepthAndForms(t *testing.T) {
	s := mustLoad(t, `
local name = "dyn"
file.read(name)({ filename = "a" })
for i = 1, 3 do
  file.read("loop" .. i) { filename = "f" .. i }
end
local tok = file.read "t" { filename = "x" }
file.read "u" { filename = tok.content }
`)
	var ids []string
	for _, b := range s.Blocks {
		ids = append(ids, b.ID())
	}
	want := []string{"file.read.dyn", "file.read.loop1", "file.read.loop2", "file.read.loop3", "file.read.t", "file.read.u"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("ids %q, want %q", ids, want)
	}
	if got := block(t, s, "file.read.loop2").Args["filename"]; got != "f2" {
		t.Errorf("loop2 filename %v", got)
	}
	// A declaration returns its instance: tok.content is a reference.
	ref := block(t, s, "file.read.u").Args["filename"]
	if !reflect.DeepEqual(ref, &script.Ref{Component: "file.read.t", Export: "content", Pos: pos(8)}) {
		t.Errorf("tok.content = %#v", ref)
	}
}

func TestValues(t *testing.T) {
	s := mustLoad(t, `
file.read "a" {
  str = "s", num = 42, frac = 0.5, neg = -3, yes = true, no = false,
  list = { "a", "b", 3 },
  nested = { { x = 1 }, { 2, 3 } },
  empty = {},
  ["key with spaces"] = 1,
  env_set = env("UPSTREAM", "default"),
  env_unset = env("NOPE", "default"),
  env_none = env("NOPE"),
  env_empty = env("EMPTY", "default"),
  env_num = env("NOPE", 5),
}
`)
	want := map[string]any{
		"str": "s", "num": 42.0, "frac": 0.5, "neg": -3.0, "yes": true, "no": false,
		"list":            []any{"a", "b", 3.0},
		"nested":          []any{map[string]any{"x": 1.0}, []any{2.0, 3.0}},
		"empty":           map[string]any{},
		"key with spaces": 1.0,
		"env_set":         "10.0.0.1:4317",
		"env_unset":       "default",
		"env_none":        "",
		"env_empty":       "",
		"env_num":         "5",
	}
	if got := s.Blocks[0].Args; !reflect.DeepEqual(got, want) {
		t.Errorf("args\n got %#v\nwant %#v", got, want)
	}
}

func TestGlobalsAssignedThenRead(t *testing.T) {
	s := mustLoad(t, `
port = 4317
local function endpoint(p) return "127.0.0.1:" .. p end
otelcol.receiver.otlp "r" { endpoint = endpoint(port) }
`)
	if got := s.Blocks[0].Args["endpoint"]; got != "127.0.0.1:4317" {
		t.Errorf("endpoint = %v", got)
	}
}

func TestFieldPositions(t *testing.T) {
	s := mustLoad(t, `otelcol.exporter.otlp "up" {
  endpoint = "x",
  tls = {
    insecure = true,
  },
  output = {
    traces = {
      otelcol.processor.batch.b.input,
      otelcol.processor.batch.c.input,
    },
  },
  ["quoted.key"] = 1,
}
`)
	b := s.Blocks[0]
	want := map[string]script.Pos{
		"endpoint": pos(2), "tls": pos(3), "tls.insecure": pos(4),
		"output": pos(6), "output.traces": pos(7),
		"output.traces[1]": pos(8), "output.traces[2]": pos(9),
		"quoted.key": pos(12),
	}
	if !reflect.DeepEqual(b.FieldPos, want) {
		t.Errorf("FieldPos\n got %v\nwant %v", b.FieldPos, want)
	}
	if got := b.PosOf("tls.insecure"); got != pos(4) {
		t.Errorf("PosOf(tls.insecure) = %v", got)
	}
	if got := b.PosOf("tls.unknown"); got != pos(3) {
		t.Errorf("PosOf(tls.unknown) = %v", got)
	}
}

func TestFieldPositionsNotLiteral(t *testing.T) {
	// Arguments built elsewhere have no field positions: Block.Pos is the
	// fallback.
	s := mustLoad(t, `local args = {
  filename = "x",
}
file.read "a" (args)
`)
	if b := s.Blocks[0]; b.FieldPos != nil || b.PosOf("filename") != pos(4) {
		t.Errorf("FieldPos %v, PosOf %v", b.FieldPos, b.PosOf("filename"))
	}
}

func TestServiceBlock(t *testing.T) {
	s := mustLoad(t, `http {
  tls = { cert_pem = file.read.cert.content },
}
file.read "cert" { filename = "/c.pem" }
`)
	b := block(t, s, "http")
	if b.Kind != script.KindService || b.Name != "http" || b.Label != "" || b.Pos != pos(1) {
		t.Errorf("service block %+v", *b)
	}
	refs := b.Refs()
	if len(refs) != 1 || *refs[0] != (script.Ref{Component: "file.read.cert", Export: "content", Pos: pos(2)}) {
		t.Errorf("refs %v", refs)
	}
}

func TestPlugin(t *testing.T) {
	s := mustLoad(t, `otelcol.receiver.otlp "r" {
  output = { traces = { acme.redact.pii.input } },
}
plugin "acme" { path = "plugins/acme", version = "1.2.0" }
acme.redact "pii" {
  keys = { "user.email" },
}
`)
	wantPlugin := []script.Plugin{{Namespace: "acme", Pos: pos(4), Args: map[string]any{"path": "plugins/acme", "version": "1.2.0"}}}
	if !reflect.DeepEqual(s.Plugins, wantPlugin) {
		t.Errorf("plugins %#v", s.Plugins)
	}
	b := block(t, s, "acme.redact.pii")
	if b.Name != "acme.redact" || b.Label != "pii" || b.Pos != pos(5) {
		t.Errorf("plugin component %+v", *b)
	}
	refs := block(t, s, "otelcol.receiver.otlp.r").Refs()
	if len(refs) != 1 || *refs[0] != (script.Ref{Component: "acme.redact.pii", Export: "input", Pos: pos(2)}) {
		t.Errorf("refs %v", refs)
	}
}
