package luacomponent

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

const schemaPlugin = `
-- acme/plugin.lua --
return { name = "acme", version = "1.0.0", components = { "thing" } }
-- acme/thing.lua --
return {
  doc = "A thing.",
  args = {
    name = { type = "string", required = true, doc = "the name" },
    count = { type = "integer", default = 3, min = 1, max = 10 },
    ratio = "number",
    mode = { type = "string", enum = { "fast", "slow" }, default = "fast" },
    interval = { type = "duration", default = "10s" },
    tags = { type = "map(string)", default = {} },
    keys = { type = "list(string)", default = { "a", "b" } },
    rules = { type = "list(object)", fields = {
      attr = { type = "string", required = true },
      equals = { type = "string", default = "x" },
      output = "output",
    } },
    extra = "table",
    anything = "any",
    flag = "boolean",
    sink = "consumer",
  },
  exports = { total = { type = "number", doc = "how many" }, label = "string" },
  start = function() end,
}
`

func TestSchemaDecodeErrors(t *testing.T) {
	r := mustLoad(t, schemaPlugin, "acme", "thing", map[string]any{})
	strPH := &script.Placeholder{Type: reflect.TypeFor[string](), From: "file.read.x.content"}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing required", map[string]any{}, `missing required field "name"`},
		{"unknown field", map[string]any{"name": "n", "cout": 3.0}, `unknown field "cout" (did you mean "count"?)`},
		{"not an integer", map[string]any{"name": "n", "count": 1.5}, `count: expected integer in [-9223372036854775808, 9223372036854775807], got 1.5`},
		{"integer out of range", map[string]any{"name": "n", "count": 1e300}, `count: expected integer in [-9223372036854775808, 9223372036854775807], got 1e+300`},
		{"wrong type", map[string]any{"name": "n", "flag": "yes"}, `flag: expected boolean, got string`},
		{"enum", map[string]any{"name": "n", "mode": "fsat"}, `mode: expected one of "fast", "slow", got "fsat" (did you mean "fast"?)`},
		{"duration", map[string]any{"name": "n", "interval": "2 seconds"}, `interval: invalid duration "2 seconds"`},
		{"duration number", map[string]any{"name": "n", "interval": 2.0}, `interval: expected duration string like "200ms", got number`},
		{"list element", map[string]any{"name": "n", "keys": []any{"a", 1.0}}, `keys[2]: expected string, got number`},
		{"nested required", map[string]any{"name": "n", "rules": []any{map[string]any{}}}, `rules[1]: missing required field "attr"`},
		{"nested unknown", map[string]any{"name": "n", "rules": []any{map[string]any{"attr": "a", "eqals": "b"}}}, `rules[1]: unknown field "eqals" (did you mean "equals"?)`},
		{"table", map[string]any{"name": "n", "extra": "s"}, `extra: expected table, got string`},
		{"consumer", map[string]any{"name": "n", "sink": "s"}, `sink: expected dataplane.Consumer, got string`},
		{"placeholder", map[string]any{"name": "n", "count": strPH}, `count: expected integer, got string (from file.read.x.content)`},
		{"max", map[string]any{"name": "n", "count": 11.0}, `count: must be at most 10, got 11`},
		{"min", map[string]any{"name": "n", "count": 0.0}, `count: must be at least 1, got 0`},
		{"host timeout", map[string]any{"name": "n", "timeout": "0s"}, `timeout: must be positive, got 0s`},
		{"host timeout type", map[string]any{"name": "n", "timeout": "1 s"}, `timeout: invalid duration "1 s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.DecodeArgs(tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if _, ok := err.(decode.Errors); !ok {
				t.Errorf("error is %T, want decode.Errors", err)
			}
		})
	}
}

func TestSchemaDecodeDefaultsAndPlaceholders(t *testing.T) {
	r := mustLoad(t, schemaPlugin, "acme", "thing", map[string]any{})
	args, err := r.DecodeArgs(map[string]any{
		"name":  "n",
		"rules": []any{map[string]any{"attr": "env"}},
		"extra": []any{1.0},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := decode.Encode(args, decode.EncodeOptions{})
	want := map[string]any{
		"name": "n", "count": 3.0, "ratio": 0.0, "mode": "fast", "interval": "10s", "tags": map[string]any{},
		"keys":     []any{"a", "b"},
		"rules":    []any{map[string]any{"attr": "env", "equals": "x", "output": map[string]any{"traces": []any{}, "metrics": []any{}, "logs": []any{}}}},
		"extra":    []any{1.0},
		"anything": nil, "flag": false, "sink": nil, "timeout": "1s", "memory_limit": "64MiB",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("decoded\n%v\nwant\n%v", got, want)
	}

	// In check mode references are placeholders of their export's type.
	consumerPH := &script.Placeholder{Type: reflect.TypeFor[dataplane.Consumer](), From: "x.y.input"}
	_, err = r.DecodeArgs(map[string]any{
		"name":  &script.Placeholder{Type: reflect.TypeFor[string]()},
		"sink":  consumerPH,
		"rules": []any{map[string]any{"attr": "a", "output": map[string]any{"traces": []any{consumerPH}}}},
		"count": &script.Placeholder{},
	})
	if err != nil {
		t.Fatalf("placeholders: %v", err)
	}
}

func TestSchemaDescribe(t *testing.T) {
	r := mustLoad(t, schemaPlugin, "acme", "thing", map[string]any{})
	args, exports := r.Describe()
	var lines []string
	for _, f := range args {
		lines = append(lines, fmt.Sprintf("%s|%s|%v|%s|%s", f.Path, f.Type, f.Required, f.Default, f.Doc))
	}
	want := []string{
		"anything|any|false||",
		"count|integer|false|3|from 1 to 10",
		"extra|table|false||",
		"flag|boolean|false||",
		"interval|duration|false|\"10s\"|",
		"keys|list(string)|false|{ \"a\", \"b\" }|",
		"memory_limit|string|false|\"64MiB\"|memory budget of each Lua state of the component (\"64MiB\", \"1GiB\"): a call that goes over it fails, and the state is rebuilt",
		`mode|one of "fast", "slow"|false|"fast"|`,
		"name|string|true||the name",
		"ratio|number|false||",
		"rules|list(table)|false||",
		"rules[].attr|string|true||",
		"rules[].equals|string|false|\"x\"|",
		"rules[].output|table|false||",
		"rules[].output.traces|list(dataplane.Consumer)|false||consumers of traces",
		"rules[].output.metrics|list(dataplane.Consumer)|false||consumers of metrics",
		"rules[].output.logs|list(dataplane.Consumer)|false||consumers of logs",
		"sink|dataplane.Consumer|false||",
		"tags|map(string)|false|{}|",
		"timeout|duration|false|\"1s\"|time limit of one call into the component's Lua code",
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("arguments:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	var exp []string
	for _, f := range exports {
		exp = append(exp, f.Path+"|"+f.Type+"|"+f.Doc)
	}
	if got, want := strings.Join(exp, ","), "label|string|,total|number|how many"; got != want {
		t.Errorf("exports %q, want %q", got, want)
	}
	if types := r.ExportTypes(); types["total"] != reflect.TypeFor[float64]() || len(types) != 2 {
		t.Errorf("export types %v", types)
	}
}

func TestSchemaDataComponent(t *testing.T) {
	r := mustLoad(t, `
-- p/plugin.lua --
return { name = "p", version = "1", components = { "d" } }
-- p/d.lua --
return { signals = { "logs" }, on_logs = function(b) return b end }
`, "p", "d", map[string]any{})
	args, exports := r.Describe()
	var names []string
	for _, f := range args {
		names = append(names, f.Path)
	}
	if got := strings.Join(names, ","); got != "concurrency,memory_limit,on_error,output,output.traces,output.metrics,output.logs,timeout" {
		t.Errorf("arguments %s", got)
	}
	if len(exports) != 1 || exports[0].Path != "input" || exports[0].Type != "dataplane.Consumer" {
		t.Errorf("exports %+v", exports)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"concurrency": 0.0}, "concurrency: must be at least 1, got 0"},
		{map[string]any{"on_error": "skip"}, `on_error: expected one of "pass", "drop", got "skip"`},
		{map[string]any{"output": map[string]any{"trace": []any{}}}, `output: unknown field "trace" (did you mean "traces"?)`},
	} {
		if _, err := r.DecodeArgs(tt.args); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want %q", tt.args, err, tt.want)
		}
	}
}

func TestSchemaMistakes(t *testing.T) {
	tests := []struct {
		name, component, want string
	}{
		{"unknown type", `return { args = { a = "strng" } }`, `c.lua:1: args.a: unknown type "strng" (did you mean "string"?)`},
		{"bad default", "return {\n  args = {\n    n = { type = \"integer\", default = \"x\" },\n  },\n}", `c.lua:3: args.n.default: expected integer, got string`},
		{"enum on number", `return { args = { n = { type = "number", enum = { "a" } } } }`, `args.n.enum: an enum needs a string type`},
		{"bad bound default", `return { args = { n = { type = "number", min = 1, default = 0 } } }`, `args.n.default: must be at least 1, got 0`},
		{"bound on string", `return { args = { n = { type = "string", min = 1 } } }`, `args.n: min and max apply to numbers and integers, not "string"`},
		{"required default", `return { args = { n = { type = "number", required = true, default = 1 } } }`, `args.n: a required field cannot have a default`},
		{"unknown key", `return { args = { n = { type = "number", defualt = 1 } } }`, `args.n: unknown key "defualt" (did you mean "default"?)`},
		{"object without fields", `return { args = { n = "list(object)" } }`, `args.n: type "list(object)" needs fields = { ... }`},
		{"reserved", `return { args = { timeout = "number" } }`, `args.timeout: "timeout" is reserved`},
		{"unknown component key", `return { on_trace = function() end }`, `on_trace: unknown key "on_trace" (did you mean "on_traces"?`},
		{"signal without hook", `return { signals = { "traces" } }`, `signals: traces is declared but the component has no on_traces function`},
		{"hook without signal", `return { on_logs = function() end }`, `on_logs: on_logs is defined but signals does not list "logs"`},
		{"unknown signal", `return { signals = { "trace" }, on_traces = function() end }`, `signals[1]: unknown signal "trace" (did you mean "traces"?)`},
		{"routes without http", `return { routes = { ["GET /x"] = function() end } }`, `routes: routes need the http service: add services = { "http" }`},
		{"bad route", `return { services = { "http" }, routes = { ["GET x"] = function() end } }`, `routes: "GET x"`},
		{"no table", `return 1`, `must return the component's table { ... }, got number`},
		{"lua error", "local x = nil\nreturn x.y", `c.lua:2: attempt to index a non-table object(nil) with key 'y'`},
		{"syntax error", "return {\n  args = ,\n}", `c.lua:2: syntax error near ','`},
		{"endless", `while true do end`, `c.lua:1: the file did not finish running within 1s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadKind(t, "-- p/plugin.lua --\nreturn { name = \"p\", version = \"1\", components = { \"c\" } }\n-- p/c.lua --\n"+tt.component+"\n", "p", "c", map[string]any{})
			if got := diagnostics(err); !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}
