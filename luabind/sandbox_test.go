package luabind_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/luabind"
)

func TestEndlessLoopTimesOut(t *testing.T) {
	tests := []struct {
		src  string
		line int
	}{
		{"local n = 0\nwhile true do n = n + 1 end\n", 2},
		{"local function f() return f() end\nf()\n", 1},
		{"pcall(function() while true do end end)\nwhile true do end\n", 2},
		{"file.read \"a\" { x = file.reed.b.c }\nrepeat until false\n", 2},
		// The VM polls its context only at loops, calls and concatenations
		// (third_party/gopher-lua/FLOWLUA.md): every way to run on.
		{"local n = 0\nfor i = 1, math.huge do n = n + i end\n", 2},
		{"local n = 0\nfor _ in function() return 1 end do n = n + 1 end\n", 2},
		{"local function f() pcall(f) f() end\nf()\n", 1},
		// a loop over several lines stops at its end, its backward jump
		{"local n = 0\nwhile true do\n  n = n + 1\n  n = n - 1\nend\n", 5},
	}
	for _, tt := range tests {
		opts := testOptions()
		opts.Timeout = 200 * time.Millisecond
		start := time.Now()
		_, err := luabind.LoadSource("main.lua", []byte(tt.src), opts)
		took := time.Since(start)
		want := fmt.Sprintf("main.lua:%d: script did not finish loading within 200ms (is there an endless loop?)", tt.line)
		if lines := diagLines(t, err); lines[len(lines)-1] != want {
			t.Errorf("%q: got %q, want %q last", tt.src, lines, want)
		}
		if took > 2*time.Second {
			t.Errorf("%q: took %v", tt.src, took)
		}
	}
}

func TestStackOverflowIsAnError(t *testing.T) {
	_, err := load(t, "local function f(n) return 1 + f(n + 1) end\nf(1)\n")
	lines := diagLines(t, err)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "main.lua:1: ") || !strings.Contains(lines[0], "stack overflow") {
		t.Errorf("got %q", lines)
	}
}

func TestSandboxLibraries(t *testing.T) {
	s := mustLoad(t, `
local parts = {}
for w in string.gmatch("a,b,c", "[^,]+") do table.insert(parts, w:upper()) end
local f = load("return 1 + ...")
file.read "a" {
  joined = table.concat(parts, "-"),
  floor = math.floor(2.7),
  max = math.max(1, 5, 3),
  fmt = string.format("%05.1f|%-3s|", 3.14159, "x"),
  loaded = f(41),
  loaded_err = select(2, load("return +", "chunk")),
  kinds = { type(string), type(rawget(_G, "coroutine")), type(rawget(_G, "os")), type(rawget(_G, "dofile")) },
  pcall_ok = pcall(error, "x"),
}
`)
	want := map[string]any{
		"joined":     "A-B-C",
		"floor":      2.0,
		"max":        5.0,
		"fmt":        "003.1|x  |",
		"loaded":     42.0,
		"loaded_err": "chunk:1: syntax error near '+'",
		"kinds":      []any{"table", "nil", "nil", "nil"},
		"pcall_ok":   false,
	}
	if got := s.Blocks[0].Args; !reflect.DeepEqual(got, want) {
		t.Errorf("args\n got %#v\nwant %#v", got, want)
	}
}

func TestProtectedMetatables(t *testing.T) {
	_, err := load(t, "setmetatable(_G, nil)\n")
	if lines := diagLines(t, err); len(lines) != 1 || lines[0] != "main.lua:1: cannot change a protected metatable" {
		t.Errorf("got %q", lines)
	}
	s := mustLoad(t, `file.read "a" { x = getmetatable(file.read.b.c), y = getmetatable(_G) }`)
	if got := s.Blocks[0].Args; got["x"] != "locked" || got["y"] != "locked" {
		t.Errorf("args %v", got)
	}
}

func TestPrint(t *testing.T) {
	var out strings.Builder
	opts := testOptions()
	opts.Print = &out
	if _, err := luabind.LoadSource("main.lua", []byte(`print("hello", 42, file.read.a.b, nil)`), opts); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "hello\t42\t<reference file.read.a.b>\tnil\n" {
		t.Errorf("printed %q", got)
	}
}

func TestOptionErrors(t *testing.T) {
	tests := []struct {
		name string
		opts luabind.LoadOptions
		want string
	}{
		{"prefix", luabind.LoadOptions{Components: []string{"a.b", "a.b.c"}}, `luabind: component name "a.b" is a prefix of "a.b.c"`},
		{"prefix reversed", luabind.LoadOptions{Components: []string{"a.b.c", "a.b"}}, `luabind: component name "a.b" is a prefix of another name`},
		{"twice", luabind.LoadOptions{Components: []string{"a.b", "a.b"}}, `luabind: component name "a.b" given twice`},
		{"bad part", luabind.LoadOptions{Components: []string{"a.b-c"}}, `luabind: invalid component name "a.b-c"`},
		{"service clash", luabind.LoadOptions{Components: []string{"http.get"}, Services: []string{"http"}}, `luabind: service "http" clashes with the component namespace "http"`},
		{"global clash", luabind.LoadOptions{Components: []string{"string.x"}}, `luabind: component namespace "string" clashes with a global of the same name`},
		{"forbidden clash", luabind.LoadOptions{Components: []string{"os.x"}}, `luabind: component namespace "os" clashes with a global of the same name`},
		{"service name", luabind.LoadOptions{Services: []string{"my-http"}}, `luabind: invalid service name "my-http"`},
	}
	for _, tt := range tests {
		_, err := luabind.LoadSource("main.lua", nil, tt.opts)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %s", tt.name, err, tt.want)
		}
	}
}

func TestEmptyScript(t *testing.T) {
	s := mustLoad(t, "-- nothing\n")
	if len(s.Blocks) != 0 || len(s.Plugins) != 0 || len(s.Files) != 1 {
		t.Errorf("script %+v", s)
	}
}

func TestOpenSandboxRemovedNameThemselves(t *testing.T) {
	for _, src := range []string{`string.dump(print)`, `local s = "x"; s:dump()`} {
		L := lua.NewState(lua.Options{SkipOpenLibs: true})
		luabind.OpenSandbox(L)
		err := L.DoString(src)
		L.Close()
		if err == nil || !strings.Contains(err.Error(), "string.dump is not available in the sandbox") {
			t.Errorf("%s: got %v, want string.dump to name itself", src, err)
		}
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	luabind.OpenSandbox(L)
	if err := L.DoString(`assert(string.nothing == nil and string.upper("a") == "A")`); err != nil {
		t.Errorf("the rest of string: %v", err)
	}
}
