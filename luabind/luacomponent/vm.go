package luacomponent

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/luabind/luamem"
	"github.com/flowlua/flowlua/luabind/pdatalua"
)

// vm is one Lua state running a component file. It is not safe for
// concurrent use: whoever calls into it holds mu.
type vm struct {
	mu      sync.Mutex
	L       *lua.LState
	k       *Kind
	inst    *instance // nil while the plugin loads (the probe)
	primary bool      // runs start, stop, timers and routes
	hooks   hooks
	cur     *call                 // the call in progress, if any
	reuse   *pdatalua.Batch       // wraps the batches of data callbacks
	modules map[string]lua.LValue // required modules by name; nil value: loading
	// roots holds, in the registry, what the state's code can reach that
	// its globals may not: the component's table and the modules, so
	// that measuring the state (luamem.Size) sees them.
	roots  *lua.LTable
	gen    int    // counts the rebuilds of the state (reset); timers of an older one are dead
	gcSeen uint64 // luamem.GCCycles when the state was last measured
}

// call is one call into a vm: what the Lua code emitted and the batches
// it was handed, which are invalidated when the call returns.
type call struct {
	ctx     context.Context // for the consumers emitted batches go to
	emits   []emitted
	batches []*pdatalua.Batch
}

// emitted is a batch to forward once the call returned.
type emitted struct {
	data any // ptrace.Traces, pmetric.Metrics or plog.Logs
	out  *outputRef
}

// newVM creates a state, runs the component file in it and takes its
// hooks; it returns the table the file returned. args, when valid, is
// the global args the file sees; else args is an empty table.
func newVM(k *Kind, inst *instance, primary bool, args reflect.Value, timeout time.Duration, limit int64) (*vm, *lua.LTable, error) {
	v := &vm{k: k, inst: inst, primary: primary}
	t, err := v.build(args, timeout, limit)
	if err != nil {
		return nil, nil, err
	}
	return v, t, nil
}

// build creates v's state and runs the component file in it (see newVM).
func (v *vm) build(args reflect.Value, timeout time.Duration, limit int64) (*lua.LTable, error) {
	k := v.k
	v.L = newSandbox(k.p.Grants)
	v.modules = map[string]lua.LValue{}
	v.reuse = nil
	v.gcSeen = luamem.GCCycles()
	v.roots = v.L.NewTable()
	v.L.G.Registry.RawSetString("flowlua.roots", v.roots)
	pdatalua.Open(v.L)
	v.openEnv()
	if args.IsValid() {
		v.L.SetGlobal("args", v.toLua(args, k.schema.args, 0))
	} else {
		v.L.SetGlobal("args", v.L.NewTable())
	}
	lockGlobals(v.L)

	rets, err := v.call(context.Background(), "load", v.L.NewFunctionFromProto(k.chunk.proto), timeout, limit)
	if err != nil {
		v.L.Close()
		return nil, err
	}
	var t *lua.LTable
	if len(rets) > 0 {
		t, _ = rets[0].(*lua.LTable)
	}
	if t == nil {
		v.L.Close()
		got := "nothing"
		if len(rets) > 0 {
			got = rets[0].Type().String()
		}
		return nil, fmt.Errorf("%s must return the component's table { ... }, got %s", k.chunk.file, got)
	}
	v.roots.RawSetString("component", t)
	v.hooks = readHooks(t)
	return t, nil
}

// reset discards the state and builds a new one in its place, after the
// state went over its memory limit: whatever filled it is gone with it.
// The caller holds v.mu. Timers of the old state die (fire skips them).
// On error the old state stays closed and every call fails until a
// later reset succeeds.
func (v *vm) reset(args reflect.Value, timeout time.Duration, limit int64) error {
	v.L.Close()
	v.gen++
	v.hooks = hooks{}
	_, err := v.build(args, timeout, limit)
	if err != nil {
		v.L = newSandbox(nil) // closed below: calls fail until a reset succeeds
		v.L.Close()
	}
	return err
}

// close closes the state.
func (v *vm) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.L.Close()
}

// callError is a failed call into Lua.
type callError struct {
	hook      string
	timeout   time.Duration      // set when the call ran out of time
	memory    *luamem.LimitError // set when the state went over its memory limit
	traceback string
}

func (e *callError) Error() string {
	if e.memory != nil {
		return fmt.Sprintf("%s: %s; the Lua state was discarded and rebuilt\n%s", e.hook, e.memory, e.traceback)
	}
	if e.timeout > 0 {
		return fmt.Sprintf("%s: exceeded its time limit of %s and was cancelled\n%s", e.hook, e.timeout, e.traceback)
	}
	return e.hook + ": " + e.traceback
}

// reason names the kind of failure for metrics.
func (e *callError) reason() string {
	switch {
	case e.memory != nil:
		return "memory"
	case e.timeout > 0:
		return "timeout"
	}
	return "error"
}

// overLimit reports whether err is a call whose state went over its
// memory limit, which the caller must reset.
func overLimit(err error) bool {
	ce, ok := err.(*callError)
	return ok && ce.memory != nil
}

// call calls fn with args in a protected call bounded by timeout and
// the memory limit, and returns what it returned. The caller holds v.mu
// (or owns v). ctx is where emitted batches go; it does not bound the
// call.
func (v *vm) call(ctx context.Context, hook string, fn *lua.LFunction, timeout time.Duration, limit int64, args ...lua.LValue) ([]lua.LValue, error) {
	rets, c, err := v.callCollect(ctx, hook, fn, timeout, limit, args...)
	c.invalidate()
	return rets, err
}

// callCollect is call that also returns the call's record: what it
// emitted, and the batches it was handed, which the caller invalidates
// once it has read the results.
func (v *vm) callCollect(ctx context.Context, hook string, fn *lua.LFunction, timeout time.Duration, limit int64, args ...lua.LValue) ([]lua.LValue, *call, error) {
	c := &call{ctx: ctx}
	L := v.L
	if fn == nil || L.IsClosed() {
		return nil, c, &callError{hook: hook, traceback: "the Lua state could not be rebuilt after it went over its memory limit"}
	}
	prev := v.cur
	v.cur = c
	defer func() { v.cur = prev }()

	// Besides the guard's own measures (during a long call), the state is
	// measured at the start of its first call after each cycle of the
	// garbage collector: a state that grows a little in each of many
	// short calls is caught as the heap grows.
	measure := false
	if gc := luamem.GCCycles(); gc != v.gcSeen {
		v.gcSeen, measure = gc, true
	}
	guard := luamem.Start(L, timeout, limit, measure)
	defer guard.Stop()
	L.SetContext(guard)
	base := L.GetTop()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	err := L.PCall(len(args), lua.MultRet, nil)
	L.RemoveContext()
	if err != nil {
		ce := &callError{hook: hook, traceback: luaTraceback(err)}
		if lerr := guard.LimitErr(); lerr != nil {
			ce.memory = lerr
		} else if guard.Err() != nil {
			ce.timeout = timeout
		}
		L.SetTop(base)
		return nil, c, ce
	}
	n := L.GetTop() - base
	rets := make([]lua.LValue, n)
	for i := range n {
		rets[i] = L.Get(base + 1 + i)
	}
	L.SetTop(base)
	return rets, c, nil
}

// context returns the context of the call, or Background outside calls.
func (c *call) context() context.Context {
	if c == nil || c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

// invalidate ends the life of the batches a call was handed.
func (c *call) invalidate() {
	for _, b := range c.batches {
		b.Invalidate()
	}
	c.batches = nil
}

// newUserData wraps a Go value with the metatable registered as mt.
func (v *vm) newUserData(x any, mt string) *lua.LUserData {
	ud := v.L.NewUserData()
	ud.Value = x
	v.L.SetMetatable(ud, v.L.GetTypeMetatable(mt))
	return ud
}
