package lua

// Tests of flowlua's patches (FLOWLUA.md).

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// allocDuring returns the bytes the process allocated while f ran.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A chain of tail calls is one line of the traceback, however long it
// is, as in PUC Lua 5.2+.
func TestTracebackTailCallsCollapsed(t *testing.T) {
	L := NewState()
	defer L.Close()
	err := L.DoString(`
local function f(n)
  if n == 0 then error("bottom") end
  return f(n - 1)
end
f(100000)`)
	if err == nil {
		t.Fatal("the script did not fail")
	}
	tb := err.(*ApiError).StackTrace
	if n := strings.Count(tb, "(...tail calls...)"); n != 1 {
		t.Errorf("traceback has %d lines of tail calls, want 1:\n%s", n, tb)
	}
	if len(tb) > 2048 {
		t.Errorf("traceback is %d bytes, want at most 2048:\n%.2048s", len(tb), tb)
	}
	if !strings.Contains(tb, "<string>:3: in function <<string>:2>") {
		t.Errorf("traceback does not show the erring function:\n%s", tb)
	}
}

// A traceback keeps its first and last lines around "...", built in
// memory bounded by the number of lines it keeps.
func TestTracebackLongStackCut(t *testing.T) {
	L := NewState(Options{CallStackSize: 1000})
	defer L.Close()
	err := L.DoString(`
local function f(n)
  if n == 0 then error("bottom") end
  local r = f(n - 1)
  return r
end
f(500)`)
	if err == nil {
		t.Fatal("the script did not fail")
	}
	tb := err.(*ApiError).StackTrace
	lines := strings.Split(tb, "\n")
	if len(lines) != 16 || lines[8] != "\t..." {
		t.Errorf("traceback has %d lines, want a header, 7, \"...\" and 7:\n%s", len(lines), tb)
	}
	if lines[15] != "\t[G]: ?" {
		t.Errorf("last line %q, want the bottom of the stack", lines[15])
	}
}

// Endless tail recursion stopped by its context fails with a traceback
// of a few lines, in memory that does not grow with the number of tail
// calls it made.
func TestTailRecursionTimeoutBounded(t *testing.T) {
	L := NewState()
	defer L.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	L.SetContext(ctx)
	var err error
	alloc := allocDuring(func() { err = L.DoString(`local function f(s) return f(s) end f("x")`) })
	if err == nil || !strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if tb := err.(*ApiError).StackTrace; len(tb) > 2048 {
		t.Errorf("traceback is %d bytes:\n%.2048s", len(tb), tb)
	}
	if alloc > 8<<20 {
		t.Errorf("the call allocated %d MiB, want at most 8", alloc>>20)
	}
}

// An error handler (xpcall) that tail-calls itself without end is
// stopped by the context, in bounded memory.
func TestXPCallTailHandlerTimeoutBounded(t *testing.T) {
	L := NewState()
	defer L.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	L.SetContext(ctx)
	var err error
	alloc := allocDuring(func() {
		err = L.DoString(`
local function h(e) return h(e) end
local ok, msg = xpcall(function() error("boom") end, h)
error(msg, 0)`)
	})
	if err == nil || !strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if tb := err.(*ApiError).StackTrace; len(tb) > 2048 {
		t.Errorf("traceback is %d bytes:\n%.2048s", len(tb), tb)
	}
	if alloc > 8<<20 {
		t.Errorf("the call allocated %d MiB, want at most 8", alloc>>20)
	}
}

// Pattern matching stops at the context's deadline, whichever function
// runs it: a backtracking pattern takes exponential time in one call of
// string.find, which the VM's polls between instructions cannot cut.
func TestPatternMatchingTimeout(t *testing.T) {
	for _, call := range []string{
		`string.find(s, p)`,
		`string.match(s, p)`,
		`string.gsub(s, p, "")`,
		`for m in string.gmatch(s, p) do end`,
	} {
		t.Run(call, func(t *testing.T) {
			L := NewState()
			defer L.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			L.SetContext(ctx)
			start := time.Now()
			err := L.DoString(`local s, p = string.rep("a", 30) .. "b", string.rep("a?", 30) .. string.rep("a", 30)
` + call)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("took %s against a limit of 200ms", took)
			}
			if err == nil || !strings.Contains(err.Error(), "<string>:2: "+context.DeadlineExceeded.Error()) {
				t.Fatalf("err = %v, want the context's deadline at line 2", err)
			}
		})
	}
}

// An integer key far past the array part goes into the hash part (one
// entry, not millions of nil slots), and every way of reading the table
// sees it; the array part takes the keys that follow its end as it grows.
func TestSparseIntegerKeys(t *testing.T) {
	L := NewState()
	defer L.Close()
	var alloc uint64
	alloc = allocDuring(func() {
		errorIfScriptFail(t, L, `t = {} t[60000000] = "far"`)
	})
	if alloc > 1<<20 {
		t.Errorf("t[60000000] = 1 allocated %d MiB", alloc>>20)
	}
	errorIfScriptFail(t, L, `
assert(t[60000000] == "far" and rawget(t, 60000000) == "far")
assert(#t == 0)
local n = 0 for k, v in pairs(t) do n = n + 1 assert(k == 60000000 and v == "far") end
assert(n == 1)
t[60000000] = nil
assert(next(t) == nil)

-- filled from the end: the keys move into the array part once it
-- reaches them
local r = {}
for i = 1000, 1, -1 do r[i] = i end
assert(#r == 1000)
for i = 1, 1000 do assert(r[i] == i) end
local seen = 0 for i, v in ipairs(r) do seen = seen + 1 assert(v == i) end
assert(seen == 1000)
table.insert(r, 1001) assert(r[1001] == 1001 and #r == 1001)

-- a gap the array part fills with nils
local g = {} g[1] = 1 g[10] = 10 g[5] = 5
assert(g[10] == 10 and g[5] == 5 and g[7] == nil)

-- keys past the array part, then the array part grows over them
local h = {} h[500] = "a" h[300] = "b"
for i = 1, 299 do h[i] = i end
assert(h[300] == "b" and h[500] == "a" and h[299] == 299)
for i = 301, 499 do h[i] = i end
assert(#h == 500 and h[500] == "a")
local count = 0 for _ in pairs(h) do count = count + 1 end
assert(count == 500)

-- traversal clearing every field it visits
local c = {} for i = 1, 100 do c["k" .. i] = i c[i * 1000] = i end
for k in pairs(c) do c[k] = nil end
assert(next(c) == nil)
`)
}

// Keys set and cleared again (a table used as a cache) do not pile up:
// the hash part's list of keys drops the cleared ones.
func TestClearedKeysDropped(t *testing.T) {
	L := NewState()
	defer L.Close()
	errorIfScriptFail(t, L, `
cache = {}
for i = 1, 200000 do
  cache["trace" .. i] = i
  if i > 10 then cache["trace" .. (i - 10)] = nil end
end
local n = 0 for k, v in pairs(cache) do n = n + 1 assert(cache[k] == v) end
assert(n == 10)
`)
	tb := L.GetGlobal("cache").(*LTable)
	if len(tb.keys) > 200 {
		t.Errorf("a table of 10 live keys keeps %d keys", len(tb.keys))
	}
	if fp := tb.Footprint(); fp > 16<<10 {
		t.Errorf("a table of 10 live keys has a footprint of %d bytes", fp)
	}
}
