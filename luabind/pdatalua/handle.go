package pdatalua

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// handle is what every bound value below the batch carries: its batch and
// the generation it was made in. A handle is live while its generation is the
// batch's. An iterator's handle is not positioned (gen 0) before the first
// step and after the last.
type handle struct {
	b *Batch
	// gen is born once the handle points at an item, 0 before.
	gen, born uint32
	sess      uint32
}

func (b *Batch) handle() handle {
	return handle{b: b, gen: b.gen, born: b.gen, sess: b.sess}
}

func (h *handle) base() *handle { return h }

// dead raises the error of a handle that is not live.
func (h *handle) dead(L *lua.LState) {
	switch {
	case h.sess != h.b.sess || !h.b.live:
		L.RaiseError("%s", errUsedAfter)
	case h.gen == 0 && h.born == h.b.gen:
		L.RaiseError("handle not positioned: its iterator has not started or has ended")
	default:
		L.RaiseError("%s", errStale)
	}
}

type liveHandle interface{ base() *handle }

// check returns the live handle of type H that is argument 1 (self), or
// raises an error. Generic code calls methods through a dictionary, which
// costs tens of nanoseconds on a path taken several times per item: the hot
// checks (checkSpan, ...) test the common case themselves and call check
// only to raise the error.
func check[H liveHandle](L *lua.LState, what string) H {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(H); ok {
			if hb := h.base(); hb.gen == hb.b.gen {
				return h
			}
			h.base().dead(L)
		}
	}
	badSelf(L, what)
	var zero H
	return zero
}

// checkIter is check for the step function of an iterator: the handle may
// be unpositioned.
func checkIter[H liveHandle](L *lua.LState, what string) H {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(H); ok {
			if hb := h.base(); hb.born == hb.b.gen {
				return h
			}
			h.base().dead(L)
		}
	}
	badSelf(L, what)
	var zero H
	return zero
}

// checkBatch returns the live batch that is argument 1 (self), of the given
// signal, or raises an error.
func checkBatch(L *lua.LState, sig dataplane.Signal) *Batch {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if b, ok := ud.Value.(*Batch); ok {
			if ud != b.ud || !b.live {
				L.RaiseError("%s", errUsedAfter)
			}
			if sig == anySignal || b.sig == sig {
				return b
			}
		}
	}
	what := "batch"
	switch sig {
	case dataplane.Traces:
		what = "traces batch"
	case dataplane.Metrics:
		what = "metrics batch"
	case dataplane.Logs:
		what = "logs batch"
	}
	badSelf(L, what)
	return nil
}

// badSelf raises the error of a method called on the wrong value, most often
// with '.' instead of ':'.
func badSelf(L *lua.LState, what string) {
	got := L.Get(1)
	desc := got.Type().String()
	if ud, ok := got.(*lua.LUserData); ok {
		if mt, ok := ud.Metatable.(*lua.LTable); ok {
			if name, ok := mt.RawGetString("__metatable").(lua.LString); ok {
				desc = string(name)
			}
		}
	}
	L.ArgError(1, what+" expected, got "+desc+" (call methods with ':')")
}

// newUD wraps a handle in a userdata with the metatable of its type.
func newUD(v any, mt *lua.LTable) *lua.LUserData {
	return &lua.LUserData{Value: v, Metatable: mt}
}

// checkIndex returns argument n as a 0-based index, and whether it is in
// [0, n). Out of range indexes give nil in Lua, as for a table.
func checkIndex(L *lua.LState, n, length int) (int, bool) {
	i := L.CheckInt(n) - 1
	return i, i >= 0 && i < length
}

// cursor is the position of a leaf handle (span, record, metric, data point)
// in its container: the spans, records or metrics of a scope, or the points
// of a metric. A flat cursor moves on to the next container when one ends;
// pos is then its position across the whole batch.
type cursor struct {
	i, n int
	pos  int
	flat bool
}

// leaf is a handle moved by a cursor.
type leaf interface {
	liveHandle
	cur() *cursor
	// load makes the handle point at item i of its current container.
	load(i int)
	// nextContainer moves a flat cursor to item 0 of the next non-empty
	// container, or reports that there is none.
	nextContainer() bool
	// rewind puts a flat cursor before the first item of the batch.
	rewind()
}

func (c *cursor) cur() *cursor { return c }

// rewindCursor is the cursor state before the first item.
func rewindCursor(c *cursor) {
	c.i, c.n, c.pos = -1, 0, -1
}

// advance moves h to its next item and reports whether there is one; at the
// end, h is no longer positioned.
func advance(h leaf) bool {
	c := h.cur()
	hb := h.base()
	if c.i+1 < c.n {
		c.i++
		c.pos++
		h.load(c.i)
		hb.gen = hb.born
		return true
	}
	if !c.flat || !h.nextContainer() {
		c.i = c.n
		hb.gen = 0
		return false
	}
	c.pos++
	hb.gen = hb.born
	return true
}

// seek moves a flat cursor to the item at flat position k (0-based) and
// reports whether there is one. Moving forward is O(1) per item, or per
// container skipped; moving back starts again from the first item.
func seek(h leaf, k int) bool {
	c, hb := h.cur(), h.base()
	if k < 0 {
		return false
	}
	if k < c.pos || hb.gen == 0 {
		h.rewind()
	}
	for c.pos != k {
		if d := k - c.pos; d <= c.n-1-c.i {
			c.i += d
			c.pos = k
			h.load(c.i)
			break
		}
		c.pos += c.n - c.i
		if !h.nextContainer() {
			h.rewind()
			hb.gen = 0
			return false
		}
	}
	hb.gen = hb.born
	return true
}

// iterate returns a generic for triple over the handle ud with the given
// step function.
func iterate(L *lua.LState, next *lua.LFunction, ud *lua.LUserData) int {
	L.Push(next)
	L.Push(ud)
	L.Push(lua.LNil)
	return 3
}

// each calls fn with ud after each advance of h, until h is exhausted or fn
// returns false. Errors raised by fn propagate.
func each(L *lua.LState, h leaf, ud *lua.LUserData, fn *lua.LFunction) int {
	n := 0
	for advance(h) {
		n++
		L.Push(fn)
		L.Push(ud)
		L.Call(1, 1)
		ret := L.Get(-1)
		L.Pop(1)
		if ret == lua.LFalse {
			break
		}
		if hb := h.base(); hb.gen != hb.b.gen {
			hb.dead(L)
		}
	}
	L.Push(lua.LNumber(n))
	return 1
}
