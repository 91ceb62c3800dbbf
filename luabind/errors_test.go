package luabind_test

import (
	"reflect"
	"strings"
	"testing"
)

// TestErrors checks the exact message and position of every kind of
// mistake, and that one load reports all of them.
func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		// Names.
		{"unknown component", `otelcol.reciever.otlp "x" {}`, []string{
			`main.lua:1: unknown component "otelcol.reciever.otlp" (did you mean "otelcol.receiver.otlp"?)`,
		}},
		{"namespace declared", `otelcol.receiver "x" {}`, []string{
			`main.lua:1: unknown component "otelcol.receiver" (did you mean "otelcol.receiver.otlp"?)`,
		}},
		{"unknown global namespace", `otelcool.receiver.otlp "x" {}`, []string{
			`main.lua:1: unknown name "otelcool" (did you mean "otelcol"?)`,
		}},
		{"unknown global function", `local v = envv("A")`, []string{
			`main.lua:1: unknown name "envv" (did you mean "env"?)`,
		}},
		{"unknown global far from everything", `print(zzzzzzzzzz)`, []string{
			`main.lua:1: unknown name "zzzzzzzzzz"`,
		}},
		{"several unknown references", `file.read "a" {
  x = file.reed.b.content,
  y = otelcol.recevier.otlp.c.input,
  z = { "ok", otelcol.exporter.otlp.d.input .. otelcol.exporters.x.y.z },
}
`, []string{
			`main.lua:2: unknown name "file.reed" in file.reed.b.content (did you mean "file.read"?)`,
			`main.lua:3: unknown name "otelcol.recevier" in otelcol.recevier.otlp.c.input (did you mean "otelcol.receiver"?)`,
			`main.lua:4: unknown name "otelcol.exporters" in otelcol.exporters.x.y.z (did you mean "otelcol.exporter"?)`,
		}},
		{"unknown name never used", "local r = otelcol.reciever\n", []string{
			`main.lua:1: unknown name "otelcol.reciever" (did you mean "otelcol.receiver"?)`,
		}},
		{"namespace as a value", `file.read "a" { x = otelcol, y = file.read }`, []string{
			`main.lua:1: x: namespace otelcol is not a value`,
			`main.lua:1: y: component name file.read is not a value`,
		}},
		{"service as a value", `file.read "a" { x = http }`, []string{
			`main.lua:1: x: service http is not a value`,
		}},

		{"service field", `local port = http.port`, []string{
			`main.lua:1: service http has no field port: configure it with http { ... }`,
		}},
		{"assignment into an unknown name", "otelcol.reciever.x = 1\n", []string{
			`main.lua:1: unknown name "otelcol.reciever" (did you mean "otelcol.receiver"?)`,
		}},
		{"unknown name in arithmetic", "local n = -otelcol.reciever.a.b\n", []string{
			`main.lua:1: unknown name "otelcol.reciever" in otelcol.reciever.a.b (did you mean "otelcol.receiver"?)`,
		}},
		{"unknown name called", "otelcol.reciever(1)\n", []string{
			`main.lua:1: unknown name "otelcol.reciever" (did you mean "otelcol.receiver"?)`,
		}},

		// Declarations.
		{"duplicate component", "file.read \"a\" { filename = \"x\" }\n\nfile.read \"a\" { filename = \"y\" }\n", []string{
			`main.lua:3: duplicate component "file.read.a": first declared at main.lua:1`,
		}},
		{"duplicate service", "http {}\nhttp {}\n", []string{
			`main.lua:2: duplicate service "http": first declared at main.lua:1`,
		}},
		{"duplicate plugin", "plugin \"acme\" { path = \"a\" }\nplugin \"acme\" { path = \"b\" }\n", []string{
			`main.lua:2: duplicate plugin "acme": first declared at main.lua:1`,
		}},
		{"bad labels", "file.read \"my-token\" {}\nfile.read \"1st\" {}\nfile.read \"\" {}\nplugin \"a.b\" {}\n", []string{
			`main.lua:1: invalid label "my-token" for file.read: it must match [A-Za-z_][A-Za-z0-9_]*`,
			`main.lua:2: invalid label "1st" for file.read: it must match [A-Za-z_][A-Za-z0-9_]*`,
			`main.lua:3: invalid label "" for file.read: it must match [A-Za-z_][A-Za-z0-9_]*`,
			`main.lua:4: invalid plugin namespace "a.b" for plugin: it must match [A-Za-z_][A-Za-z0-9_]*`,
		}},
		{"plugin namespace clashes", "plugin \"http\" {}\nplugin \"os\" {}\nplugin \"env\" {}\nplugin \"file\" {}\n", []string{
			`main.lua:1: plugin namespace "http" clashes with the global http`,
			`main.lua:2: plugin namespace "os" is not allowed: os is reserved`,
			`main.lua:3: plugin namespace "env" clashes with the global env`,
		}},
		{"plugin without a name", `plugin(1)`, []string{
			`main.lua:1: plugin: expected a namespace string, e.g. plugin "acme" { path = "plugins/acme" }, got a number value`,
		}},
		{"no argument table", "file.read \"a\"\nfile.read \"b\" \"c\"\nfile.read \"d\" (42)\n", []string{
			`main.lua:1: file.read "a": expected an argument table { ... }`,
			`main.lua:2: file.read "b": expected an argument table { ... }, got a string value`,
			`main.lua:3: file.read "d": expected an argument table { ... }, got a number value`,
		}},
		{"no label", "file.read { filename = \"x\" }\nfile.read(42)\n", []string{
			`main.lua:1: file.read needs a label: write file.read "name" { ... }`,
			`main.lua:2: file.read: expected a label string, got a number value`,
		}},
		{"service with a label", `http "main" {}`, []string{
			`main.lua:1: service http takes no label: write http { ... }`,
		}},
		{"service without a table", `http(1)`, []string{
			`main.lua:1: http: expected an argument table { ... }, got a number value`,
		}},
		{"list as arguments", `file.read "a" { "x", "y" }`, []string{
			`main.lua:1: the argument table must have named fields (name = value), not list items`,
		}},

		// References and expressions.
		{"incomplete reference", "file.read \"a\" {\n  filename = file.read.token,\n}\n", []string{
			`main.lua:2: filename: incomplete reference file.read.token: name the export to use, e.g. file.read.token.<export>`,
		}},
		{"incomplete reference in a list", "file.read \"a\" {\n  list = {\n    file.read.token,\n  },\n}\n", []string{
			`main.lua:3: list[1]: incomplete reference file.read.token: name the export to use, e.g. file.read.token.<export>`,
		}},
		{"incomplete reference in an expression", `file.read "a" { filename = "x" .. file.read.token }`, []string{
			`main.lua:1: incomplete reference file.read.token: name the export to use, e.g. file.read.token.<export>`,
		}},
		{"reference indexed further", `file.read "a" { filename = file.read.token.content.more }`, []string{
			`main.lua:1: cannot index reference file.read.token.content with "more": a reference is <component>.<label>.<export>`,
		}},
		{"reference called", `file.read "a" { filename = file.read.token.content() }`, []string{
			`main.lua:1: reference file.read.token.content is not a function`,
		}},
		{"reference compared", `local b = file.read.a.x < file.read.b.x`, []string{
			`main.lua:1: cannot compare reference file.read.a.x and reference file.read.b.x before evaluation: use compute(fn, ...)`,
		}},
		{"reference length", `local n = #file.read.a.x`, []string{
			`main.lua:1: cannot take the length of reference file.read.a.x before evaluation: use compute(fn, ...)`,
		}},
		{"bad operands", "local a = file.read.a.x .. {}\nlocal b = file.read.a.x + true\nlocal c = file.read.a.x + \"abc\"\n", []string{
			`main.lua:1: cannot use a table value in a concatenation (..): only strings, numbers and references combine into expressions; use compute(fn, ...) for more`,
			`main.lua:2: cannot use a boolean value in arithmetic (+): only strings, numbers and references combine into expressions; use compute(fn, ...) for more`,
			`main.lua:3: cannot use a string value in arithmetic (+): only strings, numbers and references combine into expressions; use compute(fn, ...) for more`,
		}},
		{"assignment into a namespace", `file.read.x = 1`, []string{
			`main.lua:1: cannot assign to a field of component name file.read`,
		}},

		// Argument tables.
		{"function as a value", "file.read \"a\" {\n  f = function() end,\n}\n", []string{
			`main.lua:2: f: a function is not a value: use compute(fn, ...) to compute a value from references`,
		}},
		{"mixed table", "file.read \"a\" {\n  x = { 1, a = 2 },\n}\n", []string{
			`main.lua:2: x: the table mixes list items and named fields`,
		}},
		{"list with a hole", "file.read \"a\" {\n  x = { 1, nil, 3 },\n}\n", []string{
			`main.lua:2: x[2]: the list has a hole: item 2 is nil`,
		}},
		{"bad keys", "file.read \"a\" {\n  x = { [true] = 1 },\n  y = { [1.5] = 1 },\n  z = { [0] = 1 },\n}\n", []string{
			`main.lua:2: x: key true is not a field name: tables are lists (1..n) or have string keys`,
			`main.lua:3: y: key 1.5 is not a field name: tables are lists (1..n) or have string keys`,
			`main.lua:4: z: key 0 is not a field name: tables are lists (1..n) or have string keys`,
		}},
		{"table containing itself", "local t = {}\nt.self = t\nfile.read \"a\" { t = t }\n", []string{
			`main.lua:3: t.self: the table contains itself`,
		}},
		{"compute with a non-function", `file.read "a" { x = compute("nope", file.read.b.c) }`, []string{
			`main.lua:1: compute: expected a function as the first argument, got a string value`,
		}},
		{"compute with an incomplete reference", `file.read "a" { x = compute(function(v) return v end, file.read.b) }`, []string{
			`main.lua:1: compute: argument 1: incomplete reference file.read.b: name the export to use, e.g. file.read.b.<export>`,
		}},

		// Sandbox.
		{"forbidden globals", "local a = os.getenv(\"HOME\")\nlocal b = io.open(\"x\")\nlocal c = debug.traceback()\nlocal d = dofile(\"x\")\nlocal e = loadfile(\"x\")\nlocal f = package.path\nlocal g = collectgarbage()\n", []string{
			`main.lua:1: os is not available in the sandbox`,
			`main.lua:2: io is not available in the sandbox`,
			`main.lua:3: debug is not available in the sandbox`,
			`main.lua:4: dofile is not available in the sandbox`,
			`main.lua:5: loadfile is not available in the sandbox`,
			`main.lua:6: package is not available in the sandbox`,
			`main.lua:7: collectgarbage is not available in the sandbox`,
		}},
		{"bytecode", `local f = load("\27LuaQ")`, []string{
			`main.lua:1: load: binary chunks are not allowed in the sandbox`,
		}},
		{"load of a function", `local f = load(function() return nil end)`, []string{
			`main.lua:1: load: only text chunks are allowed in the sandbox, got function`,
		}},
		{"huge string.rep", `local s = string.rep("x", 1e12)`, []string{
			`main.lua:1: loading the script: memory limit of 64 MiB exceeded: string.rep would build 953674 MiB`,
		}},
		{"huge format width", `local s = ("%999999999d"):format(1)`, []string{
			`main.lua:1: invalid format (width or precision too long)`,
		}},

		// Lua errors.
		{"syntax error", "file.read \"a\" {\n  filename = ,\n}\n", []string{
			`main.lua:2: syntax error near ','`,
		}},
		{"syntax error at end of file", "file.read \"a\" {\n  filename = \"x\",\n", []string{
			`main.lua:2: syntax error: unexpected end of file after ','`,
		}},
		{"nesting too deep", "local x = 1\nlocal y = " + strings.Repeat("{", 600) + strings.Repeat("}", 600) + "\n", []string{
			`main.lua:2: expressions are nested too deeply (more than 500 levels)`,
		}},
		{"compile error", "local x = 1\ngoto nowhere\n", []string{
			`main.lua:2: no visible label 'nowhere' for <goto> at line 2`,
		}},
		{"file too large", "-- " + strings.Repeat("x", 8<<20) + "\n", []string{
			`main.lua:1: file too large (more than 8388608 bytes)`,
		}},
		{"runtime error", "local t = {}\n\nlocal x = t.a.b\n", []string{
			`main.lua:3: attempt to index a non-table object(nil) with key 'b'`,
		}},
		{"error call", "local function check(v)\n  if not v then error(\"missing value\") end\nend\ncheck(nil)\n", []string{
			`main.lua:2: missing value`,
		}},
		{"error call without position", "\n\nerror(\"bare\", 0)\n", []string{
			`main.lua:3: bare`,
		}},
		{"error with a table", "local function f()\n  error({})\nend\nf()\n", []string{
			`main.lua:2: error object is a table value`,
		}},
		{"error after recorded problems", "file.read \"a\" { x = file.reed.b.c }\nerror(\"stop\")\n", []string{
			`main.lua:1: unknown name "file.reed" in file.reed.b.c (did you mean "file.read"?)`,
			`main.lua:2: stop`,
		}},
		{"bad env argument", `local v = env({})`, []string{
			`main.lua:1: bad argument #1 to env (string expected, got table)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.src)
			if got := diagLines(t, err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors\n got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

// TestErrorsInLoops reports a mistake repeated by a loop once.
func TestErrorsInLoops(t *testing.T) {
	_, err := load(t, "for i = 1, 1000 do\n  file.read \"x\" { n = i }\nend\n")
	want := []string{`main.lua:2: duplicate component "file.read.x": first declared at main.lua:2`}
	if got := diagLines(t, err); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}

// TestTooManyErrors stops a load that keeps finding problems.
func TestTooManyErrors(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("print(nope" + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + ")\n")
	}
	_, err := load(t, b.String())
	got := diagLines(t, err)
	if len(got) != 101 || got[100] != "main.lua:100: too many errors, giving up" {
		t.Errorf("got %d diagnostics, last %q", len(got), got[len(got)-1])
	}
}

// TestDuplicateKeepsGoing checks that a duplicate declaration still yields
// a value, so that the rest of the script runs and reports its problems.
func TestDuplicateKeepsGoing(t *testing.T) {
	_, err := load(t, "file.read \"a\" {}\nlocal x = file.read \"a\" {}\nfile.read \"b\" { y = x.content }\nprint(nope_at_4)\n")
	want := []string{
		`main.lua:2: duplicate component "file.read.a": first declared at main.lua:1`,
		`main.lua:4: unknown name "nope_at_4"`,
	}
	if got := diagLines(t, err); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}
