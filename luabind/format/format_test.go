package format

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/yuin/gopher-lua/parse"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"indent and align", `-- a pipeline
otelcol.processor.batch "b" {
timeout = "1s",   
      output = {
  traces = { x.input },  -- the traces
        logs = { y.input },
    },
}


file.read "t" { filename = "a" }
`, `-- a pipeline
otelcol.processor.batch "b" {
  timeout = "1s",
  output = {
    traces = { x.input },  -- the traces
    logs   = { y.input },
  },
}

file.read "t" { filename = "a" }
`},
		{"functions and long strings kept", `module "m" {
body = function(args)
if args.x then
lua.f "a" { code = [[
   keep
 this]] }
else
--[[ a
   long comment ]]
end
end,
}
`, `module "m" {
  body = function(args)
    if args.x then
      lua.f "a" { code = [[
   keep
 this]] }
    else
      --[[ a
   long comment ]]
    end
  end,
}
`},
		{"closers on one line", "f({\na = 1,\n})\n", "f({\n  a = 1,\n})\n"},
		{"reflow a one-line declaration", `otelcol.receiver.otlp "in" { protocols = { grpc = { endpoint = "127.0.0.1:4317" }, http = { endpoint = "127.0.0.1:4318" } }, output = { traces = { b.input }, logs = { b.input } } } -- the receiver
otelcol.exporter.otlp "out" { endpoint = "x", tls = { insecure = true } }
otelcol.processor.batch "b" { timeout = "1s", output = { traces = { otelcol.exporter.otlp.out.input } } }
http { tls = { cert_pem = a.b.c, key_pem = a.b.d }; basic_auth = { username = "u", password = "p" } }
`, `otelcol.receiver.otlp "in" {
  protocols = {
    grpc = { endpoint = "127.0.0.1:4317" },
    http = { endpoint = "127.0.0.1:4318" },
  },
  output = {
    traces = { b.input },
    logs   = { b.input },
  },
} -- the receiver
otelcol.exporter.otlp "out" { endpoint = "x", tls = { insecure = true } }
otelcol.processor.batch "b" {
  timeout = "1s",
  output = { traces = { otelcol.exporter.otlp.out.input } },
}
http {
  tls = { cert_pem = a.b.c, key_pem = a.b.d };
  basic_auth = { username = "u", password = "p" },
}
`},
		{"reflow keeps comments on their lines", `-- the batcher
otelcol.processor.batch "b" { -- batches
  timeout = "1s", output = { traces = { x.input }, -- to x
    --[[ and ]] logs = { y.input } --[[ to y ]] } }
`, `-- the batcher
otelcol.processor.batch "b" { -- batches
  timeout = "1s",
  output = {
    traces = { x.input }, -- to x
    --[[ and ]] logs = { y.input }, --[[ to y ]]
  },
}
`},
		{"reflow a long line, outermost table first", `otelcol.exporter.otlp "out" { endpoint = env("EXPORTER_ENDPOINT", "127.0.0.1:4319"), tls = { insecure = true }, compression = "none" }
`, `otelcol.exporter.otlp "out" {
  endpoint = env("EXPORTER_ENDPOINT", "127.0.0.1:4319"),
  tls = { insecure = true },
  compression = "none",
}
`},
		{"no reflow in function bodies and plain tables", `module "m" { body = function()
  local t = { a = { 1 }, b = { 2 } }
  f "x" { a = { 1 }, b = { 2 } }
end }
local u = { a = { 1 }, b = { 2 } }
`, `module "m" { body = function()
  local t = { a = { 1 }, b = { 2 } }
  f "x" {
    a = { 1 },
    b = { 2 },
  }
end }
local u = { a = { 1 }, b = { 2 } }
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Source([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			checkStable(t, tc.name, []byte(tc.in))
		})
	}
}

// TestFormatRepository formats every Lua file of the repository and every
// .lua file of the testscripts: formatting is idempotent, keeps every
// token (comments included), and what parsed still parses.
func TestFormatRepository(t *testing.T) {
	root := "../.."
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		switch {
		case strings.HasSuffix(path, ".lua"):
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			n++
			checkStable(t, path, src)
		case strings.HasSuffix(path, ".txtar"):
			a, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if strings.HasSuffix(f.Name, ".lua") {
					n++
					checkStable(t, path+":"+f.Name, f.Data)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d Lua files found", n)
	}
}

func checkStable(t *testing.T, name string, src []byte) {
	t.Helper()
	before, err := Tokens(src)
	if err != nil {
		return // not Lua that tokenizes: Source reports it
	}
	once, err := Source(src)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	twice, err := Source(once)
	if err != nil || !bytes.Equal(once, twice) {
		t.Errorf("%s: formatting is not idempotent (%v):\n%s\n---\n%s", name, err, once, twice)
	}
	after, _ := Tokens(once)
	// Splitting a table may add a comma after its last field.
	before, after = withoutFinalCommas(before), withoutFinalCommas(after)
	if len(before) != len(after) {
		t.Errorf("%s: %d tokens became %d", name, len(before), len(after))
		return
	}
	for i := range before {
		if before[i].Text != after[i].Text && !(before[i].Kind == Comment || before[i].Kind == String) {
			t.Errorf("%s: token %d %q became %q", name, i, before[i].Text, after[i].Text)
			return
		}
	}
	if _, err := parse.Parse(bytes.NewReader(src), name); err == nil {
		if _, err := parse.Parse(bytes.NewReader(once), name); err != nil {
			t.Errorf("%s: the formatted script does not parse: %v", name, err)
		}
	}
}

// withoutFinalCommas returns toks without the commas that end a table's
// fields (followed by `}`, comments aside).
func withoutFinalCommas(toks []Token) []Token {
	var out []Token
	for i, t := range toks {
		if t.Kind == Punct && t.Text == "," {
			k := i + 1
			for k < len(toks) && toks[k].Kind == Comment {
				k++
			}
			if k < len(toks) && toks[k].Text == "}" {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}
