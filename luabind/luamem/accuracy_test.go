package luamem

import (
	"runtime"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// heapInUse returns the bytes of live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestSizeAccuracy compares what Size counts for a table with what the
// table holds on the Go heap (the live heap's growth once it is built):
// the budget must count tables within 2× of what they hold, or a state
// can hold many times its limit.
func TestSizeAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	for _, tt := range []struct{ name, src string }{
		{"300k integers", `t = {} for i = 1, 3e5 do t[i] = i end`},
		{"300k floats", `t = {} for i = 1, 3e5 do t[i] = i + 0.5 end`},
		{"300k booleans", `t = {} for i = 1, 3e5 do t[i] = true end`},
		{"30k string keys", `t = {} for i = 1, 3e4 do t["key" .. i] = i end`},
		{"30k number keys", `t = {} for i = 1, 3e4 do t[i + 0.5] = true end`},
		{"30k nested tables", `t = {} for i = 1, 3e4 do t[i] = { i } end`},
		{"30k nested records", `t = {} for i = 1, 3e4 do t[i] = { x = i, y = "v" } end`},
		{"30k records set field by field", `t = {} for i = 1, 3e4 do local r = {} r.x = i t[i] = r end`},
		{"30k empty tables", `t = {} for i = 1, 3e4 do t[i] = {} end`},
		{"30k strings of 100 B", `t = {} local p = string.rep("s", 96) for i = 1, 3e4 do t[i] = p .. (1000 + i % 1000) end`},
		{"sparse array", `t = {} t[4e6] = 1`},
		{"keys set and cleared", `t = {} for i = 1, 3e4 do t["key" .. i] = i end for i = 1, 3e4 do t["key" .. i] = nil end`},
		{"array cleared", `t = {} for i = 1, 3e5 do t[i] = i end for i = 1, 3e5 do t[i] = nil end`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			L := lua.NewState()
			defer L.Close()
			base := Size(L, 0)
			before := heapInUse()
			if err := L.DoString(tt.src); err != nil {
				t.Fatal(err)
			}
			held := heapInUse() - before
			counted := Size(L, 0) - base
			ratio := float64(counted) / float64(max(held, 1))
			t.Logf("held %d KiB, counted %d KiB: %.2f×", held>>10, counted>>10, ratio)
			if held > 1<<20 && (ratio < 0.5 || ratio > 2) {
				t.Errorf("counted %.2f× what the table holds, want within 2×", ratio)
			}
			// t[4e6] = 1 alone is one entry of the hash part, not an
			// array part of 4 million slots (64 MiB in one instruction).
			if tt.name == "sparse array" && held > 1<<20 {
				t.Errorf("a table of one entry holds %d KiB", held>>10)
			}
			runtime.KeepAlive(L)
		})
	}
}
