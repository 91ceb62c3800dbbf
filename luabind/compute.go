package luabind

import (
	"errors"
	"fmt"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/luamem"
)

// runtime is the Lua state of a loaded script, kept for compute calls
// after the load. An LState is not safe for concurrent use: mu serializes
// every use of it after the load.
type runtime struct {
	mu sync.Mutex
	L  *lua.LState
	ld *loader
}

// luaFunc is the script.Func of `compute(fn, ...)`: it calls the Lua
// function fn with the evaluated inputs.
type luaFunc struct {
	rt  *runtime
	fn  *lua.LFunction
	pos script.Pos // where compute was called
}

var _ script.Func = (*luaFunc)(nil)

// compute is the global `compute(fn, input1, input2, ...)`: a lazy
// expression whose inputs are listed, so that the engine knows every
// dependency before evaluating it.
func (ld *loader) compute(L *lua.LState) int {
	pos := ld.callerPos(L)
	fn, ok := L.Get(1).(*lua.LFunction)
	if !ok {
		L.Push(ld.fail(L, pos, "compute: expected a function as the first argument, got %s", describe(L.Get(1))))
		return 1
	}
	conv := ld.newConverter("compute: ", pos, nil)
	n := L.GetTop()
	args := make([]any, 0, n-1)
	for i := 2; i <= n; i++ {
		args = append(args, conv.value(fmt.Sprintf("argument %d", i-1), L.Get(i), 0))
	}
	if len(conv.diags) > 0 {
		ld.addDiagnostics(L, conv.diags)
		L.Push(ld.sink)
		return 1
	}
	ld.usesFunc = true
	L.Push(ld.lazyValue(&script.Expr{
		Op:   "compute",
		Func: &luaFunc{rt: ld.rt, fn: fn, pos: pos},
		Args: args,
		Pos:  pos,
	}))
	return 1
}

// Call calls the Lua function with the evaluated arguments converted to Lua
// values (lists and maps become tables; Go values without a Lua form are
// passed as opaque userdata) and converts its single result back: nil,
// bool, float64, string, []any or map[string]any. It is safe for
// concurrent use: calls are serialized on the script's Lua state, each
// bounded by LoadOptions.ComputeTimeout. Errors are script.Diagnostic
// values positioned in the Lua function when possible.
func (f *luaFunc) Call(args []any) (any, error) {
	f.rt.mu.Lock()
	defer f.rt.mu.Unlock()
	return f.rt.ld.call(f, args)
}

// call runs a compute function; the caller holds the runtime's mutex.
func (ld *loader) call(f *luaFunc, args []any) (result any, err error) {
	L := ld.L
	if L.IsClosed() {
		return nil, errors.New("compute: the script's Lua state is closed")
	}
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, script.Errorf(f.pos, "compute: internal error: %v", r)
		}
	}()
	guard := luamem.Start(L, ld.opts.ComputeTimeout, ld.opts.MemoryLimit, true)
	defer guard.Stop()
	top := L.GetTop()
	defer L.SetTop(top)
	L.SetContext(guard)
	defer L.RemoveContext()

	L.Push(f.fn)
	for _, a := range args {
		L.Push(ld.toLua(a))
	}
	if perr := L.PCall(len(args), 1, ld.errFunc); perr != nil {
		d := ld.errorDiagnostic(perr, f.pos)
		if lerr := guard.LimitErr(); lerr != nil {
			d.Message = lerr.Error()
		} else if guard.Err() != nil {
			d.Message = fmt.Sprintf("did not finish within %s", ld.opts.ComputeTimeout)
		}
		d.Message = "compute: " + d.Message
		return nil, d
	}
	conv := ld.newConverter("compute: ", f.pos, nil)
	conv.plainOnly = true
	v := conv.value("result", L.Get(-1), 0)
	if len(conv.diags) > 0 {
		return nil, conv.diags[0]
	}
	return v, nil
}
