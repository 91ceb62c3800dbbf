package luabind_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/flowlua/flowlua/luabind"
)

// TestRunawayLoadBounded checks the scripts that ran for many seconds or
// allocated gigabytes in one builtin or one error: each is cut off by the
// load's time limit, soon after it and in bounded memory.
func TestRunawayLoadBounded(t *testing.T) {
	const catastrophic = `local s, p = string.rep("a", 30) .. "b", string.rep("a?", 30) .. string.rep("a", 30)` + "\n"
	const nested = `local s, p = string.rep("x", 100000), "(.-)(.-)(.-)y"` + "\n"
	tests := []struct{ name, src, want string }{
		{"string.find backtracking", catastrophic + "string.find(s, p)\n", "main.lua:2: "},
		{"string.match backtracking", catastrophic + "string.match(s, p)\n", "main.lua:2: "},
		{"string.gsub backtracking", catastrophic + "string.gsub(s, p, '')\n", "main.lua:2: "},
		{"string.gmatch backtracking", catastrophic + "for m in string.gmatch(s, p) do end\n", "main.lua:2: "},
		{"nested .- on 100 kB", nested + "string.find(s, p)\n", "main.lua:2: "},
		{"tail recursion", "local function f(x) return f(x) end\nf('x')\n", "main.lua:1: "},
		// The handler's own tail calls run until the time limit; the
		// error it then raises is xpcall's result, and the script's next
		// loop stops at once.
		{"xpcall tail handler", "local function h(e) return h(e) end\nlocal ok = xpcall(function() error('x') end, h)\nwhile true do end\n", "main.lua:3: "},
		// Caught by xpcall or pcall, the limit's error is raised again
		// when the VM polls after the call returned.
		{"xpcall tail handler, then the end", "local function h(e) return h(e) end\nlocal ok = xpcall(function() error('x') end, h)\n", "main.lua:3: "},
		{"pcall of a loop, then the end", "pcall(function() while true do end end)\n", "main.lua:2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOptions()
			opts.Timeout = 200 * time.Millisecond
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := luabind.LoadSource("main.lua", []byte(tt.src), opts)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			want := tt.want + "script did not finish loading within 200ms (is there an endless loop?)"
			if lines := diagLines(t, err); lines[len(lines)-1] != want {
				t.Errorf("got %q, want %q last", lines, want)
			}
			if took > 2*time.Second {
				t.Errorf("took %v against a limit of 200ms", took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
			t.Logf("stopped after %v, %d KiB allocated", took.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>10)
		})
	}
}
