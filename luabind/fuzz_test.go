package luabind_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

// fuzzSeeds are scripts exercising every part of the language.
var fuzzSeeds = []string{
	`otelcol.receiver.otlp "default" {
  protocols = { grpc = { endpoint = "127.0.0.1:4317" } },
  output = { traces = { otelcol.processor.batch.default.input } },
}
otelcol.processor.batch "default" { timeout = "200ms", send_batch_size = 8192 }
otelcol.exporter.otlp "up" {
  endpoint = env("UPSTREAM", "127.0.0.1:14317"),
  headers = { authorization = "Bearer " .. file.read.token.content },
  n = -file.read.token.size * 2 + 1,
  c = compute(function(t) return t:upper() end, file.read.token.content),
}
file.read "token" { filename = "/etc/token" }
http { tls = { insecure = true } }
plugin "acme" { path = "plugins/acme" }
acme.redact "pii" { keys = { "user.email" } }
`,
	`local t = {} t.self = t file.read "a" { t = t }`,
	`for i = 1, 10 do file.read("x" .. i) { n = i, l = { i, i * 2 } } end`,
	`local ok, err = pcall(function() return os.time() end) print(ok, err)`,
	`require "lib.missing" require "../x"`,
	`local f = load("return 1 + ...") print(f(1))`,
	`while true do end`,
	`file.read "a" { x = file.read.b } file.read "a" {}`,
	`otelcool.x "y" { z = otelcol.reciever.otlp.a.b .. 1 }`,
	`error(setmetatable({}, { __tostring = function() return "x" end }))`,
	`local x = string.rep("ab", 10, ",") .. ("%5.2f"):format(1/3)`,
	`file.read "a" { [1] = 1, [2.5] = 2, [true] = 3 }`,
	"file.read \"a\" {\n  x = ,\n}",
	`return file.read "a"`,
	`local s, n = ("ab"):rep(10):gsub("(a)(b)", "%2%1%0%%") for w in s:gmatch("%a+") do end`,
	`local t = table.concat({ 1, "x", 2.5 }, ",", 2) local u = ("x"):rep(2^27)`,
	`local t = {} for i = 1, 100 do t[i] = { i, tostring(i) } end file.read "a" { n = #t }`,
}

// FuzzLoadSource checks that no input makes LoadSource panic, hang, or
// return a problem without a position; a loaded script holds only script
// values, and its compute functions can be called.
func FuzzLoadSource(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "main.lua")
	opts := testOptions()
	opts.Timeout = 200 * time.Millisecond
	opts.ComputeTimeout = 50 * time.Millisecond
	opts.Print = io.Discard
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		start := time.Now()
		s, err := luabind.LoadSource(path, []byte(src), opts)
		if took := time.Since(start); took > 10*time.Second {
			t.Fatalf("load took %v", took)
		}
		if err != nil {
			var ds script.Diagnostics
			if !errors.As(err, &ds) || len(ds) == 0 {
				t.Fatalf("error is not diagnostics: %T %v", err, err)
			}
			for _, d := range ds {
				if d.Pos.File == "" || d.Pos.Line <= 0 || d.Message == "" {
					t.Fatalf("diagnostic without position or message: %#v", d)
				}
			}
			return
		}
		for _, b := range s.Blocks {
			script.Walk(b.Args, func(v any) {
				switch v := v.(type) {
				case nil, bool, float64, string, []any, map[string]any, *script.Ref:
				case *script.Expr:
					if v.Op == "compute" {
						args := make([]any, len(v.Args))
						_, _ = v.Func.Call(args)
					}
				default:
					t.Fatalf("block %s holds a %T", b.ID(), v)
				}
			})
		}
	})
}
