// Package luamem bounds the memory of a gopher-lua state.
//
// gopher-lua allocates from the Go heap and has no allocator hook, and Go
// counts allocations per process, not per goroutine, so the memory of one
// state cannot be counted as it is allocated. This package bounds it in
// three ways that together hold:
//
//  1. The builtins that build a string or a list in one Go call (which no
//     deadline interrupts) are bounded up front: string.rep, string.format,
//     string.gsub, table.concat and load check the size of what they would
//     build against the limit before building it (see package luabind).
//  2. A Guard is the context a call runs under. Its timer wakes every
//     Tick while the call runs (a call that returns sooner costs nothing
//     more than the deadline it already had) and reads the process's
//     cumulative heap allocations (runtime/metrics). Each time the process
//     has allocated another Step since the state was last measured, the
//     guard asks the state to measure itself.
//  3. The state measures itself on its own goroutine, between two
//     instructions, when the VM polls the context (Guard.Done: at the
//     start of each run and at each loop, call and concatenation, see
//     third_party/gopher-lua/FLOWLUA.md): Size
//     walks everything the state can reach (globals, registry, the call
//     stack) and adds up an estimate of its bytes. A state over its limit
//     fails the call with a *LimitError ("memory limit of 64 MiB
//     exceeded"); the caller discards the state and builds a new one.
//
// The measure attributes memory exactly where the process counter cannot:
// several states running at once each measure their own reach, so a
// state that allocates little is never blamed for another's growth, and
// garbage (strings built and dropped) never counts. What it costs: nothing
// per instruction (the VM's poll, at loops, calls and concatenations,
// loads one atomic word, as the deadline alone did), a read of runtime/metrics per Tick of a long call, and a
// walk of the state per Step of allocation while it runs.
//
// What is not exact: one `..` instruction is not bounded up front (the VM
// joins the strings itself), so a state can overshoot its limit by what
// it builds between two ticks; tables are counted as their structure is
// allocated (gopher-lua's LTable.Footprint: array capacity, maps as large
// as they have been; within 25% of the live heap they hold in
// TestSizeAccuracy) and functions are estimated; values only Go holds (a pdata batch behind
// userdata) are not the state's and do not count.
package luamem

import (
	"fmt"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// DefaultLimit is the memory budget of a Lua state when none is set.
const DefaultLimit = 64 << 20

// LimitError is the error of a call whose state went over its limit.
type LimitError struct {
	Limit int64 // bytes
	Size  int64 // bytes the state was found to hold, or would have built
	What  string
}

func (e *LimitError) Error() string {
	msg := fmt.Sprintf("memory limit of %s exceeded", FormatSize(e.Limit))
	if e.What != "" {
		return fmt.Sprintf("%s: %s", msg, e.What)
	}
	return msg
}

// FormatSize writes a size in bytes with the largest binary unit that
// divides it (64 MiB, 1536 KiB, 100 B).
func FormatSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for i < len(units)-1 && n != 0 && n%1024 == 0 {
		n /= 1024
		i++
	}
	return strconv.FormatInt(n, 10) + " " + units[i]
}

// ParseSize reads a size: a number of bytes with an optional unit, B,
// KiB, MiB, GiB (binary) or KB, MB, GB (decimal), e.g. "64MiB" or
// "64 MiB".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	mult := map[string]float64{
		"": 1, "B": 1,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	}[unit]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 {
		return 0, fmt.Errorf("invalid size %q (use a number of bytes with a unit: \"64MiB\", \"1GiB\", \"500MB\")", s)
	}
	n := f * mult
	if n >= 1<<62 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(n), nil
}

// allocsMetric is the process's cumulative heap allocations.
const allocsMetric = "/gc/heap/allocs:bytes"

// heapAllocs returns the bytes the process has allocated on the heap so
// far (garbage included).
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: allocsMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Estimated sizes of gopher-lua's values, in bytes, on 64-bit machines;
// a table's own structure is the fork's estimate (LTable.Footprint).
const (
	slotSize     = 16 // an LValue (an interface) in a table, register or upvalue
	stringHeader = 16
	numberSize   = 8 // an LNumber boxed in an interface
	functionSize = 96
	upvalueSize  = 48
	userdataSize = 48
)

// Size estimates the bytes held by what L can reach: its globals, its
// registry, and its call stack (each frame's function and named locals,
// the running frame's registers), plus extra roots. Each string of 64
// bytes or more counts once however often it is referenced (a shorter
// one at each reference); tables, functions and userdata
// count once, a table as its structure is allocated plus what its
// entries refer to. Walking stops once the
// total passes stop (when stop > 0) and returns what it has counted.
//
// Size must be called by the goroutine that runs L, between calls or
// from inside one (the Guard calls it between two instructions). It
// allocates as it walks, in proportion to the number of values.
func Size(L *lua.LState, stop int64, extra ...lua.LValue) int64 {
	w := walkers.Get().(*walker)
	defer w.release()
	w.stop = stop
	w.epoch = nextEpoch()
	w.push(L.G.Registry)
	w.push(L.G.Global)
	w.push(L.Env)
	for _, x := range extra {
		w.push(x)
	}
	// Frames, not GetStack's levels: those count each tail call a frame
	// made, and endless tail recursion makes millions.
	L.EachFrame(func(dbg *lua.Debug) bool {
		if fn, err := L.GetInfo("f", dbg, lua.LNil); err == nil {
			w.push(fn)
		}
		for n := 1; ; n++ {
			name, v := L.GetLocal(dbg, n)
			if name == "" {
				break
			}
			w.push(v)
		}
		return true
	})
	for i := 1; i <= L.GetTop(); i++ {
		w.push(L.Get(i))
	}
	w.run()
	return w.total
}

// walkers reuse the maps of earlier walks.
var walkers = sync.Pool{New: func() any {
	return &walker{seen: make(map[unsafe.Pointer]struct{}, 1024), strs: make(map[*byte]struct{}, 256)}
}}

// release returns w to the pool, unless a large walk grew its maps.
func (w *walker) release() {
	if len(w.seen) > 1<<14 || len(w.strs) > 1<<14 {
		return
	}
	clear(w.seen)
	clear(w.strs)
	w.todo = w.todo[:0]
	w.total, w.stop = 0, 0
	walkers.Put(w)
}

// dedupeString is the length from which a string counts once however
// often it is referenced; shorter ones count at each reference.
const dedupeString = 64

// walker adds up the sizes of values reachable from its roots, without
// recursion (a table nested a million deep is a list to it).
type walker struct {
	seen  map[unsafe.Pointer]struct{} // functions, userdata, protos
	strs  map[*byte]struct{}          // the data of strings counted
	todo  []lua.LValue
	total int64
	stop  int64
	epoch uint32 // marks the tables this walk saw (LTable.Mark)
}

// epochs numbers the walks; 0 is no walk's (a new table's mark).
var epochs atomic.Uint32

// nextEpoch returns the epoch of a new walk.
func nextEpoch() uint32 {
	for {
		if e := epochs.Add(1); e != 0 {
			return e
		}
	}
}

func (w *walker) push(v lua.LValue) {
	switch x := v.(type) {
	case lua.LString:
		if len(x) < dedupeString {
			w.total += stringHeader + int64(len(x))
			return
		}
		p := unsafe.StringData(string(x))
		if _, ok := w.strs[p]; ok {
			return
		}
		w.strs[p] = struct{}{}
		w.total += stringHeader + int64(len(x))
	case lua.LNumber:
		w.total += numberSize
	case *lua.LTable:
		if !x.Mark(w.epoch) {
			w.todo = append(w.todo, x)
		}
	case *lua.LFunction:
		w.object(unsafe.Pointer(x), x)
	case *lua.LUserData:
		w.object(unsafe.Pointer(x), x)
	}
}

// object queues a table, function or userdata unless it was seen.
func (w *walker) object(p unsafe.Pointer, v lua.LValue) {
	if _, ok := w.seen[p]; ok {
		return
	}
	w.seen[p] = struct{}{}
	w.todo = append(w.todo, v)
}

func (w *walker) over() bool { return w.stop > 0 && w.total > w.stop }

func (w *walker) run() {
	for len(w.todo) > 0 && !w.over() {
		v := w.todo[len(w.todo)-1]
		w.todo = w.todo[:len(w.todo)-1]
		switch x := v.(type) {
		case *lua.LTable:
			// The table's structure as it is allocated (the array part's
			// capacity, the hash part as large as it has been), then
			// what its entries refer to. The keys of the array part are
			// positions, not values: they hold nothing.
			w.total += x.Footprint()
			w.push(x.Metatable)
			n := lua.LNumber(x.MaxN())
			x.ForEach(func(k, v lua.LValue) {
				if i, ok := k.(lua.LNumber); !ok || i < 1 || i > n || i != lua.LNumber(int64(i)) {
					w.push(k)
				}
				w.push(v)
			})
		case *lua.LFunction:
			w.total += functionSize
			if x.Env != nil {
				w.push(x.Env)
			}
			for _, uv := range x.Upvalues {
				if uv != nil {
					w.total += upvalueSize
					w.push(uv.Value())
				}
			}
			if x.Proto != nil {
				w.proto(x.Proto)
			}
		case *lua.LUserData:
			w.total += userdataSize
			if x.Env != nil {
				w.push(x.Env)
			}
			w.push(x.Metatable)
		}
	}
}

// proto counts a compiled function once: load can compile new code at
// run time.
func (w *walker) proto(p *lua.FunctionProto) {
	if _, ok := w.seen[unsafe.Pointer(p)]; ok {
		return
	}
	w.seen[unsafe.Pointer(p)] = struct{}{}
	w.total += int64(len(p.Code))*4 + int64(len(p.DbgSourcePositions))*8 + int64(len(p.Constants))*slotSize
	for _, c := range p.Constants {
		w.push(c)
	}
	for _, c := range p.FunctionPrototypes {
		w.proto(c)
	}
}
