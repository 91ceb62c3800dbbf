package luamem

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowlua/flowlua/internal/racedetect"
	lua "github.com/yuin/gopher-lua"
)

func TestSizeAndUnits(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{{"64MiB", 64 << 20}, {"64 MiB", 64 << 20}, {"1GiB", 1 << 30}, {"500MB", 500e6}, {"1024", 1024}, {"1.5KiB", 1536}} {
		if got, err := ParseSize(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "lots", "64 MIB", "-1MiB", "1e30GiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
	for n, want := range map[int64]string{64 << 20: "64 MiB", 1536: "3 KiB" /* 1.5 KiB is 1536 B */, 100: "100 B", 1 << 30: "1 GiB"} {
		if n == 1536 {
			want = "1536 B"
		}
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSize checks what a walk counts: a shared string once, cycles and
// deep nesting without trouble, locals of the running code.
func TestSize(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	base := Size(L, 0)
	if err := L.DoString(`big = string.rep("x", 1000000) a = { big, big, big }`); err != nil {
		t.Fatal(err)
	}
	if got := Size(L, 0) - base; got < 1000000 || got > 1100000 {
		t.Errorf("a 1 MB string referenced 4 times counts %d bytes, want about 1 MB", got)
	}
	if err := L.DoString(`big, a = nil, nil
local t = {} for i = 1, 100000 do t = { t } end deep = t
local c = {} c.self = c cyc = c`); err != nil {
		t.Fatal(err)
	}
	if got := Size(L, 0) - base; got < 100000*96 { // an LTable
		t.Errorf("100000 nested tables count %d bytes", got)
	}
	var inside int64
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		inside = Size(L, 0)
		return 0
	}))
	if err := L.DoString(`deep, cyc = nil, nil local s = string.rep("y", 5000000) probe() s = nil`); err != nil {
		t.Fatal(err)
	}
	if inside-base < 5000000 {
		t.Errorf("a local of the running chunk is not counted: %d", inside-base)
	}
	if got := Size(L, 1000); got > 1000+1000000 || got <= 1000 {
		t.Errorf("Size with stop 1000 = %d", got)
	}
}

// runGuarded runs src in a fresh state under a guard.
func runGuarded(src string, timeout time.Duration, limit int64) (*lua.LState, *Guard, error) {
	L := lua.NewState()
	g := Start(L, timeout, limit, false)
	L.SetContext(g)
	err := L.DoString(src)
	L.RemoveContext()
	g.Stop()
	return L, g, err
}

// TestGuardOvershoot measures how far past its limit each kind of bomb
// gets before it is stopped (its data in globals, to be measured after).
func TestGuardOvershoot(t *testing.T) {
	if racedetect.Enabled {
		t.Skip("the race detector checks every byte these bombs copy (a 64 MiB concatenation takes 30 s instead of 2); make test runs this test without it")
	}
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	const limit = 64 << 20
	for _, tt := range []struct{ name, src string }{
		{"concat doubling", `s = "x" while true do s = s .. s end`},
		{"concat doubling, straight line", `s = "x"` + strings.Repeat(" s = s .. s", 40)},
		{"concat growth", `s = "" local p = string.rep("x", 1e6) while true do s = s .. p end`},
		{"table of tables", `t = {} while true do t[#t+1] = {} end`},
		{"table of numbers", `t = {} local i = 0 while true do i = i + 1 t[i] = i + 0.5 end`},
		{"table of strings", `t = {} local p = string.rep("y", 1e5) while true do t[#t+1] = p .. #t end`},
		{"string keys", `t = {} local i = 0 while true do i = i + 1 t["key" .. i] = true end`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			L, g, err := runGuarded(tt.src, 30*time.Second, limit)
			defer L.Close()
			var le *LimitError
			if !errors.As(g.Err(), &le) || err == nil || !strings.Contains(err.Error(), "memory limit of 64 MiB exceeded") {
				t.Fatalf("got %v (guard: %v)", err, g.Err())
			}
			size := Size(L, 0)
			t.Logf("stopped after %s and %d measures, holding %d MiB (%.2f× the limit)",
				time.Since(start).Round(time.Millisecond), g.walks, size>>20, float64(size)/limit)
			// A doubling caught one step late holds 4× the limit plus the
			// state's own few kilobytes (the timer that asks for a measure
			// can be late on a loaded machine); two steps late is 8×.
			const slack = 1 << 20
			if size > 4*limit+slack {
				t.Errorf("held %d MiB, more than 4× the limit", size>>20)
			}
		})
	}
}

// TestGuardAttribution checks that a state that allocates little is not
// blamed for another's growth while both run: each measures its own.
func TestGuardAttribution(t *testing.T) {
	if racedetect.Enabled {
		t.Skip("the race detector checks every byte these bombs copy (a 64 MiB concatenation takes 30 s instead of 2); make test runs this test without it")
	}
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	var wg sync.WaitGroup
	var innocent, bomb error
	var innocentGuard *Guard
	wg.Add(2)
	go func() {
		defer wg.Done()
		var L *lua.LState
		L, innocentGuard, innocent = runGuarded(`local n = 0 for i = 1, 3e7 do n = n + i end`, 30*time.Second, 64<<20)
		L.Close()
	}()
	go func() {
		defer wg.Done()
		var L *lua.LState
		L, _, bomb = runGuarded(`t = {} while true do t[#t+1] = string.rep("x", 1e5) .. #t end`, 30*time.Second, 64<<20)
		L.Close()
	}()
	wg.Wait()
	if bomb == nil || !strings.Contains(bomb.Error(), "memory limit of 64 MiB exceeded") {
		t.Errorf("bomb: %v", bomb)
	}
	if innocent != nil {
		t.Errorf("innocent: %v", innocent)
	}
	t.Logf("the innocent state measured itself %d times", innocentGuard.walks)
}

// TestSizeAfterTailCalls checks that the tail calls a frame made (a
// count in the frame, no memory) cost a walk nothing: the stack's levels
// count each of them.
func TestSizeAfterTailCalls(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	var base, inside int64
	var took time.Duration
	L.SetGlobal("probe", L.NewFunction(func(L *lua.LState) int {
		start := time.Now()
		inside = Size(L, 0)
		took = time.Since(start)
		return 0
	}))
	if err := L.DoString(`local function f(n, s) if n == 0 then probe() return end return f(n - 1, s) end
local s = "short local"
f(0, s)`); err != nil {
		t.Fatal(err)
	}
	base = inside
	if err := L.DoString(`local function f(n, s) if n == 0 then probe() return end return f(n - 1, s) end
local s = "short local"
f(500000, s)`); err != nil {
		t.Fatal(err)
	}
	if inside > base+1024 || took > 100*time.Millisecond {
		t.Errorf("after 5e5 tail calls Size = %d in %v, want about %d (without them) at once", inside, took, base)
	}
}
