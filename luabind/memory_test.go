package luabind_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flowlua/flowlua/internal/racedetect"
)

// TestLoadMemoryBombs checks that a script that allocates without bound
// while it loads gets the memory limit's error, not the process's death.
func TestLoadMemoryBombs(t *testing.T) {
	if racedetect.Enabled {
		t.Skip("the race detector checks every byte these bombs copy (a 64 MiB concatenation takes 30 s instead of 2); make test runs this test without it")
	}
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	tests := []struct{ name, src, want string }{
		{"concat doubling", `local s = "x" while true do s = s .. s end`, "memory limit of 64 MiB exceeded"},
		// no loop: the VM polls the guard at each concatenation
		{"concat doubling, straight line", "local s = \"x\"\n" + strings.Repeat("s = s .. s\n", 40), "memory limit of 64 MiB exceeded"},
		{"concat growth", `local s = "" local piece = string.rep("x", 1e6) while true do s = s .. piece end`, "memory limit of 64 MiB exceeded"},
		{"table grown forever", `local t = {} while true do t[#t+1] = {} end`, "memory limit of 64 MiB exceeded"},
		{"global table of strings", `big = {} local p = string.rep("y", 1e6) while true do big[#big+1] = p .. #big end`, "memory limit of 64 MiB exceeded"},
		{"table.concat growth", `local t = {string.rep("z", 1e6)} while true do t = {table.concat(t), table.concat(t)} end`, "memory limit of 64 MiB exceeded"},
		{"string.rep at the cap", `local t = {} while true do t[#t+1] = string.rep("x", 60 * 2^20) end`, "memory limit of 64 MiB exceeded"},
		{"deep recursion", `local function f(n) return 1 + f(n + 1) end f(1)`, "stack overflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := load(t, tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			t.Logf("%s in %s; peak heap %d MiB", err, time.Since(start).Round(time.Millisecond), ms.HeapSys>>20)
		})
	}
}
