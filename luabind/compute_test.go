package luabind_test

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

// computeExpr loads src and returns the compute expression in field x of
// the block file.read.a.
func computeExpr(t *testing.T, opts luabind.LoadOptions, src string) *script.Expr {
	t.Helper()
	s, err := luabind.LoadSource("main.lua", []byte(src), opts)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := block(t, s, "file.read.a").Args["x"].(*script.Expr)
	if !ok || e.Op != "compute" || e.Func == nil {
		t.Fatalf("x is %#v, want a compute expression", block(t, s, "file.read.a").Args["x"])
	}
	return e
}

func TestComputeExpr(t *testing.T) {
	e := computeExpr(t, testOptions(), `file.read "a" {
  x = compute(function(tok, n) return tok:upper() .. n end, file.read.token.content, 42),
}`)
	wantArgs := []any{ref("file.read.token", "content", 2), 42.0}
	if !reflect.DeepEqual(e.Args, wantArgs) || e.Pos != pos(2) {
		t.Errorf("args %#v, pos %v", e.Args, e.Pos)
	}
	got, err := e.Func.Call([]any{"secret", 42.0})
	if err != nil || got != "SECRET42" {
		t.Errorf("Call = %#v, %v", got, err)
	}
}

func TestComputeValues(t *testing.T) {
	e := computeExpr(t, testOptions(), `file.read "a" {
  x = compute(function(v) return v end, file.read.b.c),
}`)
	type consumer struct{ name string }
	c := &consumer{"sink"}
	tests := []struct {
		in, want any
	}{
		{nil, nil},
		{true, true},
		{1.5, 1.5},
		{7, 7.0},
		{int64(-3), -3.0},
		{time.Second, 1e9},
		{"s", "s"},
		{[]byte("bytes"), "bytes"},
		{[]any{"a", 2.0}, []any{"a", 2.0}},
		{[]string{"a", "b"}, []any{"a", "b"}},
		{map[string]any{"k": []any{true}}, map[string]any{"k": []any{true}}},
		{map[string]string{"k": "v"}, map[string]any{"k": "v"}},
		{map[string]any{}, map[string]any{}},
		{c, c}, // a Go value without a Lua form goes through unchanged
	}
	for _, tt := range tests {
		got, err := e.Func.Call([]any{tt.in})
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Call(%#v) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
}

func TestComputeResults(t *testing.T) {
	e := computeExpr(t, testOptions(), `file.read "a" {
  x = compute(function(kind)
    if kind == "table" then return { list = { 1, "two" }, flag = false } end
    if kind == "empty" then return {} end
    if kind == "none" then return end
    if kind == "function" then return print end
    if kind == "ref" then return file.read.z.y end
    if kind == "mixed" then return { 1, a = 2 } end
    return 1, 2
  end, "kind"),
}`)
	tests := []struct {
		in      string
		want    any
		wantErr string
	}{
		{"table", map[string]any{"list": []any{1.0, "two"}, "flag": false}, ""},
		{"empty", map[string]any{}, ""},
		{"none", nil, ""},
		{"multi", 1.0, ""},
		{"function", nil, "main.lua:2: compute: result: a function is not a value: use compute(fn, ...) to compute a value from references"},
		{"ref", nil, "main.lua:2: compute: result: reference file.read.z.y is not a value yet: return a plain value"},
		{"mixed", nil, "main.lua:2: compute: result: the table mixes list items and named fields"},
	}
	for _, tt := range tests {
		got, err := e.Func.Call([]any{tt.in})
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: err = %v, want %s", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
	}
}

func TestComputeErrors(t *testing.T) {
	opts := testOptions()
	opts.ComputeTimeout = 100 * time.Millisecond
	e := computeExpr(t, opts, `declarator = file.read "early"
declarator { x = 0 }
file.read "a" {
  x = compute(function(mode)
    if mode == "loop" then while true do end end
    if mode == "error" then error("bad input") end
    if mode == "nil" then local t = nil; return t.x end
    if mode == "declare" then file.read "late" {} end
    if mode == "declarator" then declarator { x = 1 } end
    if mode == "unknown" then return undefined_thing end
    if mode == "require" then return require "x" end
    return "ok " .. mode
  end, file.read.b.c),
}`)
	tests := []struct{ mode, want string }{
		{"loop", "main.lua:5: compute: did not finish within 100ms"},
		{"error", "main.lua:6: compute: bad input"},
		{"nil", "main.lua:7: compute: attempt to index a non-table object(nil) with key 'x'"},
		{"declare", `main.lua:8: compute: file.read "late": declarations are only allowed while the script loads`},
		{"declarator", `main.lua:9: compute: file.read "early": declarations are only allowed while the script loads`},
		{"unknown", `main.lua:10: compute: unknown name "undefined_thing"`},
		{"require", `main.lua:11: compute: require "x": modules are only loaded while the script loads`},
	}
	for _, tt := range tests {
		start := time.Now()
		_, err := e.Func.Call([]any{tt.mode})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %s", tt.mode, err, tt.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s took %v", tt.mode, d)
		}
		// The state keeps working after an error or a timeout.
		if got, err := e.Func.Call([]any{"again"}); err != nil || got != "ok again" {
			t.Errorf("after %s: %#v, %v", tt.mode, got, err)
		}
	}
}

// TestComputeConcurrent calls compute functions from many goroutines at
// once; run with -race.
func TestComputeConcurrent(t *testing.T) {
	s, err := luabind.LoadSource("main.lua", []byte(`
local calls = 0
file.read "a" {
  x = compute(function(s, n) calls = calls + 1; return s .. ":" .. (n * 2) end, file.read.b.c, file.read.d.e),
  y = compute(function(t) local sum = 0 for _, v in ipairs(t) do sum = sum + v end return sum end, file.read.f.g),
}`), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	x := block(t, s, "file.read.a").Args["x"].(*script.Expr).Func
	y := block(t, s, "file.read.a").Args["y"].(*script.Expr).Func
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				got, err := x.Call([]any{fmt.Sprint("g", g), float64(i)})
				if want := fmt.Sprintf("g%d:%d", g, 2*i); err != nil || got != want {
					errs <- fmt.Errorf("x: got %v, %v; want %s", got, err, want)
					return
				}
				got, err = y.Call([]any{[]any{float64(g), float64(i), 1.0}})
				if want := float64(g + i + 1); err != nil || got != want {
					errs <- fmt.Errorf("y: got %v, %v; want %v", got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestComputeSurvivesGC checks that the Lua state a compute expression
// needs stays alive as long as the expression.
func TestComputeSurvivesGC(t *testing.T) {
	e := computeExpr(t, testOptions(), `file.read "a" { x = compute(function() return "still here" end) }`)
	for i := 0; i < 3; i++ {
		runtime.GC()
		if got, err := e.Func.Call(nil); err != nil || got != "still here" {
			t.Fatalf("Call = %v, %v", got, err)
		}
	}
	if len(e.Args) != 0 {
		t.Errorf("args %v", e.Args)
	}
}
