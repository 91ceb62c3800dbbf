package luamem

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Tick is how often a Guard's timer looks at the process's allocations
// while a call runs.
const Tick = time.Millisecond

// The bits of Guard.flags.
const (
	flagExpired uint32 = 1 << iota // the time limit passed
	flagMeasure                    // the state should measure itself
	flagOver                       // the state went over its memory limit
)

// Guard is the context one call into a Lua state runs under (set it with
// L.SetContext): it is done once the call's time limit has passed or its
// state went over its memory limit.
//
// The VM polls its state's context often: upstream gopher-lua before
// every instruction, flowlua's copy (third_party/gopher-lua/FLOWLUA.md)
// at the start of each run and at each loop, call and concatenation, so
// that no run goes on without a poll. The context package's contexts answer Done with an atomic load and a
// type assertion, and the poll of a real channel costs more again; in a
// loop over the spans of a batch that is tens of nanoseconds a span. A
// Guard answers Done with nil, a channel the poll skips at once, while
// its flags are clear, and with a closed channel once the call must end.
// That breaks the rule that Done always returns the same channel, which
// only code that keeps the channel relies on: the VM polls Done afresh
// each time, and the sandbox has no coroutines or channels, the only
// other users of a state's context.
//
// Done is called by the VM on the goroutine that runs the state, which
// is what lets it measure the state there (see the package doc); nobody
// else may call it. Err may be called from anywhere.
type Guard struct {
	flags atomic.Uint32
	at    time.Time
	timer atomic.Pointer[time.Timer]
	done  atomic.Bool // Stop was called

	// Set by Start, then read only.
	L     *lua.LState
	limit int64
	extra []lua.LValue

	// base is the process's allocations when the state was last measured
	// (0: not read yet), written by both goroutines.
	base atomic.Uint64
	// step is the allocation after which the state is measured again.
	step atomic.Int64

	// Owned by the goroutine that runs L.
	size  int64 // the last measure
	err   atomic.Pointer[LimitError]
	walks int // how many times the state was measured, for tests
}

// closed is the channel Done returns once the call must end.
var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Start returns a guard for a call into L bounded by timeout and by
// limit bytes (0: no memory limit); extra are values the state's code
// can reach that L's globals and stack do not hold (a component's hooks).
// When measure is set, the state measures itself at the call's first
// instruction (callers do it now and then, to catch a state that grows
// a little in each of many short calls). Stop releases its timer.
func Start(L *lua.LState, timeout time.Duration, limit int64, measure bool, extra ...lua.LValue) *Guard {
	g := &Guard{at: time.Now().Add(timeout), L: L, limit: limit, extra: extra}
	if limit > 0 {
		g.step.Store(max(limit/4, 1<<20))
		if measure {
			g.flags.Store(flagMeasure)
		}
	}
	g.timer.Store(time.AfterFunc(min(Tick, timeout), g.tick))
	return g
}

// tick runs on the timer's goroutine: it ends the call once its time
// limit has passed, else asks for a measure when the process allocated
// another step since the last one, and wakes again in a Tick.
func (g *Guard) tick() {
	if g.done.Load() {
		return
	}
	now := time.Now()
	if !now.Before(g.at) {
		g.flags.Or(flagExpired)
		return
	}
	if g.limit > 0 {
		a := heapAllocs()
		switch base := g.base.Load(); {
		case base == 0:
			g.base.CompareAndSwap(0, a)
		case a > base && int64(a-base) >= g.step.Load():
			g.base.Store(a)
			g.flags.Or(flagMeasure)
		}
	}
	t := g.timer.Load()
	for t == nil { // Start has not stored it yet
		runtime.Gosched()
		t = g.timer.Load()
	}
	t.Reset(min(Tick, g.at.Sub(now)))
}

// Stop releases the timer; the guard's verdict (Err) stays.
func (g *Guard) Stop() {
	g.done.Store(true)
	g.timer.Load().Stop()
}

// Deadline returns the time limit.
func (g *Guard) Deadline() (time.Time, bool) { return g.at, true }

// Done returns nil while the call may go on and a closed channel once it
// must end. Only the VM running L calls it (see the type's comment).
func (g *Guard) Done() <-chan struct{} {
	if g.flags.Load() == 0 {
		return nil
	}
	return g.slow()
}

// PollFlag returns the word Done tests: the VM (third_party/gopher-lua,
// SetContext) skips Done while it is 0, when Done would return nil.
func (g *Guard) PollFlag() *atomic.Uint32 { return &g.flags }

func (g *Guard) slow() <-chan struct{} {
	f := g.flags.Load()
	if f&flagMeasure != 0 && f&(flagExpired|flagOver) == 0 {
		g.flags.And(^flagMeasure)
		g.measure()
		f = g.flags.Load()
	}
	if f&(flagExpired|flagOver) != 0 {
		return closed
	}
	return nil
}

// measure walks the state and fails the call if it holds more than its
// limit. The next measure comes after as much allocation as the state
// holds (at least a quarter of the limit), so that walking costs in
// proportion to what the process allocates.
func (g *Guard) measure() {
	g.walks++
	g.size = Size(g.L, g.limit, g.extra...)
	if g.size > g.limit {
		g.Fail(&LimitError{Limit: g.limit, Size: g.size})
		return
	}
	g.step.Store(max(g.limit/4, g.size, 1<<20))
	// What the walk itself allocated is not the state's.
	g.base.Store(heapAllocs())
	g.flags.And(^flagMeasure)
}

// Fail ends the call with err: a bounded builtin calls it when what it
// would build does not fit the limit.
func (g *Guard) Fail(err *LimitError) {
	g.err.CompareAndSwap(nil, err)
	g.flags.Or(flagOver)
}

// Limit returns the memory limit of the call, 0 for none.
func (g *Guard) Limit() int64 { return g.limit }

// Err returns a *LimitError once the state went over its memory limit,
// context.DeadlineExceeded once the time limit passed, else nil.
func (g *Guard) Err() error {
	f := g.flags.Load()
	if f&flagOver != 0 {
		if e := g.err.Load(); e != nil {
			return e
		}
	}
	if f&flagExpired != 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// LimitErr returns the call's *LimitError, or nil.
func (g *Guard) LimitErr() *LimitError {
	if g.flags.Load()&flagOver == 0 {
		return nil
	}
	return g.err.Load()
}

// Value returns nil: a guard carries no values.
func (g *Guard) Value(any) any { return nil }

// FromState returns the guard L runs under, or nil.
func FromState(L *lua.LState) *Guard {
	g, _ := L.Context().(*Guard)
	return g
}

// gcCycles counts the garbage collector's cycles (see GCCycles).
var gcCycles atomic.Uint64

// gcSentinel is garbage whose finalizer counts a cycle and makes the next
// sentinel; it has a pointer so that it is not a tiny allocation, whose
// finalizers may never run.
type gcSentinel struct{ _ *int }

// startCycles starts the sentinels' chain, once, when GCCycles is first
// asked: a process that runs no Lua component never has it.
var startCycles sync.Once

func newGCSentinel() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		gcCycles.Add(1)
		newGCSentinel()
	})
}

// GCCycles returns a number that grows by about one per cycle of the
// garbage collector, at the cost of two atomic loads. A caller that keeps
// the value it last saw measures a state again once it changed: cycles
// come as the heap grows (GOGC), so a state that grows a little in each
// of many short calls, none long enough for the guard's timer, is
// measured as often as the process's heap grows.
func GCCycles() uint64 {
	startCycles.Do(newGCSentinel)
	return gcCycles.Load()
}
