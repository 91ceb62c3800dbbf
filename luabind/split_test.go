package luabind_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

// TestLongBodiesKeepSemantics checks Lua semantics in bodies long enough
// to be split into closures for compilation: locals, upvalues, varargs,
// recursion, multiple results, and positions.
func TestLongBodiesKeepSemantics(t *testing.T) {
	src := `local count = 0
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
local a, b = 1, 2
a, b = b, a
count = count + 1
local arg = "shadow"
local first = ...
local function multi() return 1, 2, 3 end
local m1, m2, m3 = multi()
local p = (multi())
g = 0
for i = 1, 3 do g = g + i end
file.read "a" {
  fact = fact(5), a = a, b = b, count = count, arg = arg,
  first = tostring(first), m = { m1, m2, m3 }, p = p, g = g,
}
count = count + 1
file.read "b" { x = file.read.a.content, count = count }
local function gen()
  local out = {}
  for i = 1, 3 do out[i] = i end
  return out
end
file.read "c" { list = gen() }
file.read "d" { x = file.read.c.content }
file.read "e" { x = file.read.d.content }
file.read "f" { x = file.read.e.content }
`
	s := mustLoad(t, src)
	want := map[string]any{
		"fact": 120.0, "a": 2.0, "b": 1.0, "count": 1.0, "arg": "shadow",
		"first": "nil", "m": []any{1.0, 2.0, 3.0}, "p": 1.0, "g": 6.0,
	}
	if got := block(t, s, "file.read.a").Args; !reflect.DeepEqual(got, want) {
		t.Errorf("a\n got %#v\nwant %#v", got, want)
	}
	if got := block(t, s, "file.read.b").Args; !reflect.DeepEqual(got, map[string]any{"x": ref("file.read.a", "content", 18), "count": 2.0}) {
		t.Errorf("b %#v", got)
	}
	if got := block(t, s, "file.read.c").Args["list"]; !reflect.DeepEqual(got, []any{1.0, 2.0, 3.0}) {
		t.Errorf("c %#v", got)
	}
	for id, line := range map[string]int{"file.read.a": 13, "file.read.b": 18, "file.read.c": 24, "file.read.f": 27} {
		if got := block(t, s, id).Pos; got != pos(line) {
			t.Errorf("%s at %v, want line %d", id, got, line)
		}
	}
	if got := block(t, s, "file.read.a").FieldPos["g"]; got != pos(15) {
		t.Errorf("FieldPos[g] = %v", got)
	}
}

// TestLongModule checks a long module body: ... is the module name.
func TestLongModule(t *testing.T) {
	var mod strings.Builder
	mod.WriteString("local name = ...\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&mod, "file.read \"m%d\" { module = name, prev = file.read.m%d.content }\n", i, i+1)
	}
	mod.WriteString("error(\"line 22\")\n")
	chdir(t, writeFiles(t, t.TempDir(), map[string]string{
		"main.lua":     "require \"lib.long\"\n",
		"lib/long.lua": mod.String(),
	}))
	_, err := luabind.Load("main.lua", testOptions())
	if got := diagLines(t, err); !reflect.DeepEqual(got, []string{"lib/long.lua:22: line 22"}) {
		t.Fatalf("got %q", got)
	}
	chdir(t, writeFiles(t, t.TempDir(), map[string]string{
		"main.lua":     "require \"lib.long\"\n",
		"lib/long.lua": strings.Replace(mod.String(), "error(\"line 22\")\n", "", 1),
	}))
	s, err := luabind.Load("main.lua", testOptions())
	if err != nil {
		t.Fatal(err)
	}
	b := block(t, s, "file.read.m3")
	wantRef := &script.Ref{Component: "file.read.m4", Export: "content", Pos: script.Pos{File: "lib/long.lua", Line: 5}}
	if b.Args["module"] != "lib.long" || !reflect.DeepEqual(b.Args["prev"], wantRef) || b.Pos != (script.Pos{File: "lib/long.lua", Line: 5}) {
		t.Errorf("m3 %+v", *b)
	}
}

// TestConcurrentLoads loads scripts on several goroutines; run with -race.
func TestConcurrentLoads(t *testing.T) {
	src := []byte(benchScript(50))
	opts := luabind.LoadOptions{Components: benchComponents}
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			s, err := luabind.LoadSource("main.lua", src, opts)
			if err == nil && len(s.Blocks) != 50 {
				err = fmt.Errorf("%d blocks", len(s.Blocks))
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
