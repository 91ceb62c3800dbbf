package luabind_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/flowlua/flowlua/engine/script"
)

func ref(component, export string, line int) *script.Ref {
	return &script.Ref{Component: component, Export: export, Pos: pos(line)}
}

func TestReferences(t *testing.T) {
	s := mustLoad(t, `otelcol.processor.batch "early" {
  output = { traces = { otelcol.exporter.otlp.later.input } },
}
otelcol.exporter.otlp "later" {
  endpoint = file.read.endpoint.content,
  sending_queue = { storage = otelcol.extension.file_storage.queue.id },
  nested = {
    deeper = {
      list = {
        "literal",
        file.read.a.content,
        { inner = file.read.b.content },
      },
    },
  },
  same_line = { file.read.c.content, file.read.d.content },
}
file.read "endpoint" { filename = "/e" }
`)
	early := block(t, s, "otelcol.processor.batch.early")
	if got, want := early.Args["output"], map[string]any{"traces": []any{ref("otelcol.exporter.otlp.later", "input", 2)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("forward reference: %#v", got)
	}
	later := block(t, s, "otelcol.exporter.otlp.later")
	want := map[string]any{
		"endpoint":      ref("file.read.endpoint", "content", 5),
		"sending_queue": map[string]any{"storage": ref("otelcol.extension.file_storage.queue", "id", 6)},
		"nested": map[string]any{"deeper": map[string]any{"list": []any{
			"literal",
			ref("file.read.a", "content", 11),
			map[string]any{"inner": ref("file.read.b", "content", 12)},
		}}},
		"same_line": []any{ref("file.read.c", "content", 16), ref("file.read.d", "content", 16)},
	}
	if !reflect.DeepEqual(later.Args, want) {
		t.Errorf("args\n got %#v\nwant %#v", later.Args, want)
	}
	// References to components nobody declared are the engine's to report.
	var refs []string
	for _, r := range later.Refs() {
		refs = append(refs, r.String()+"@"+r.Pos.String())
	}
	wantRefs := []string{
		"file.read.endpoint.content@main.lua:5",
		"file.read.a.content@main.lua:11",
		"file.read.b.content@main.lua:12",
		"file.read.c.content@main.lua:16",
		"file.read.d.content@main.lua:16",
		"otelcol.extension.file_storage.queue.id@main.lua:6",
	}
	if !reflect.DeepEqual(refs, wantRefs) {
		t.Errorf("Refs()\n got %q\nwant %q", refs, wantRefs)
	}
}

func TestReferenceHeldInLocal(t *testing.T) {
	// A reference keeps the position where it was written.
	s := mustLoad(t, `local tok = file.read.token.content

file.read "a" { filename = tok }
file.read "b" { filename = tok }
`)
	for _, id := range []string{"file.read.a", "file.read.b"} {
		if got := block(t, s, id).Args["filename"]; !reflect.DeepEqual(got, ref("file.read.token", "content", 1)) {
			t.Errorf("%s: %#v", id, got)
		}
	}
}

func TestExpressions(t *testing.T) {
	s := mustLoad(t, `local tok = file.read.token.content
local n = file.read.n.content
file.read "e" {
  bearer = "Bearer " .. tok,
  suffix = tok .. "!",
  both = "<" .. tok .. ">",
  num = 1 .. tok .. 2,
  two = tok .. file.read.other.content,
  add = n + 1,
  sub = 10 - n,
  mul = n * 2,
  div = n / 4,
  mod = n % 3,
  pow = 2 ^ n,
  neg = -n,
  numstr = n + "5",
  nested = (n + 1) * (n - 1),
  mixed = "v" .. (n * 2),
  computed_then_concat = compute(function(x) return x end, tok) .. "x",
}
`)
	b := block(t, s, "file.read.e")
	tok := ref("file.read.token", "content", 1)
	n := ref("file.read.n", "content", 2)
	expr := func(op string, line int, args ...any) *script.Expr {
		return &script.Expr{Op: op, Args: args, Pos: pos(line)}
	}
	want := map[string]any{
		"bearer": expr("..", 4, "Bearer ", tok),
		"suffix": expr("..", 5, tok, "!"),
		"both":   expr("..", 6, "<", tok, ">"),
		"num":    expr("..", 7, 1.0, tok, 2.0),
		"two":    expr("..", 8, tok, ref("file.read.other", "content", 8)),
		"add":    expr("+", 9, n, 1.0),
		"sub":    expr("-", 10, 10.0, n),
		"mul":    expr("*", 11, n, 2.0),
		"div":    expr("/", 12, n, 4.0),
		"mod":    expr("%", 13, n, 3.0),
		"pow":    expr("^", 14, 2.0, n),
		"neg":    expr("neg", 15, n),
		"numstr": expr("+", 16, n, 5.0),
		"nested": expr("*", 17, expr("+", 17, n, 1.0), expr("-", 17, n, 1.0)),
		"mixed":  expr("..", 18, "v", expr("*", 18, n, 2.0)),
	}
	for k, w := range want {
		if got := b.Args[k]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %s\nwant %s", k, dump(got), dump(w))
		}
	}
	cc, ok := b.Args["computed_then_concat"].(*script.Expr)
	if !ok || cc.Op != ".." || len(cc.Args) != 2 || cc.Args[1] != "x" {
		t.Fatalf("computed_then_concat: %s", dump(cc))
	}
	if inner, ok := cc.Args[0].(*script.Expr); !ok || inner.Op != "compute" || inner.Func == nil || !reflect.DeepEqual(inner.Args, []any{tok}) {
		t.Errorf("compute operand: %s", dump(cc.Args[0]))
	}
	// Every reference is found by Refs, through expressions.
	if got := len(b.Refs()); got != 18 {
		t.Errorf("Refs() found %d references, want 18", got)
	}
}

// dump writes a value with its references and expressions spelled out.
func dump(v any) string {
	switch v := v.(type) {
	case *script.Ref:
		return "ref(" + v.String() + "@" + v.Pos.String() + ")"
	case *script.Expr:
		s := "expr" + v.Op + "@" + v.Pos.String() + "("
		for i, a := range v.Args {
			if i > 0 {
				s += ", "
			}
			s += dump(a)
		}
		return s + ")"
	}
	return fmt.Sprintf("%#v", v)
}

// TestExpressionsDoNotShareOperands builds two expressions from one: each
// keeps its own operands.
func TestExpressionsDoNotShareOperands(t *testing.T) {
	s := mustLoad(t, `local x = file.read.t.content .. "a"
local y = x .. "b"
file.read "e" { w = y .. "c", v = y .. "d", y = y }
`)
	tok := ref("file.read.t", "content", 1)
	b := block(t, s, "file.read.e")
	for k, want := range map[string][]any{
		"w": {tok, "a", "b", "c"},
		"v": {tok, "a", "b", "d"},
		"y": {tok, "a", "b"},
	} {
		if got := b.Args[k].(*script.Expr).Args; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s", k, dump(b.Args[k]))
		}
	}
}
