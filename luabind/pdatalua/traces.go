package pdatalua

import (
	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// spanHandle is a span. One handle serves a whole loop: the iterator, or the
// index access, moves it from span to span.
type spanHandle struct {
	handle
	cursor
	ri, si int
	spans  ptrace.SpanSlice
	span   ptrace.Span
	// atResource and atScope are the handles span:resource() and
	// span:scope() return, made on first use.
	atResource, atScope *lua.LUserData
}

func (h *spanHandle) load(i int) { h.span = h.spans.At(i) }

func (h *spanHandle) rewind() {
	rewindCursor(&h.cursor)
	h.ri, h.si = 0, -1
}

func (h *spanHandle) nextContainer() bool {
	rss := h.b.traces.ResourceSpans()
	for ; h.ri < rss.Len(); h.ri, h.si = h.ri+1, -1 {
		sss := rss.At(h.ri).ScopeSpans()
		for h.si+1 < sss.Len() {
			h.si++
			if spans := sss.At(h.si).Spans(); spans.Len() > 0 {
				h.spans, h.n, h.i = spans, spans.Len(), 0
				h.span = spans.At(0)
				return true
			}
		}
	}
	return false
}

// newFlatSpans returns an unpositioned handle that walks every span of the
// batch.
func (b *Batch) newFlatSpans() (*spanHandle, *lua.LUserData) {
	h := &spanHandle{handle: b.handle(), cursor: cursor{flat: true}}
	h.rewind()
	h.gen = 0
	return h, newUD(h, b.bd.span)
}

// newScopeSpans returns an unpositioned handle that walks the spans of one
// scope.
func (s *scopeHandle) newScopeSpans() (*spanHandle, *lua.LUserData) {
	h := &spanHandle{handle: s.b.handle(), ri: s.ri, si: s.si, spans: s.spans}
	h.i, h.n = -1, s.spans.Len()
	h.gen = 0
	return h, newUD(h, s.b.bd.span)
}

func spanAttrs(L *lua.LState) (*handle, pcommon.Map) {
	h := checkSpan(L)
	return &h.handle, h.span.Attributes()
}

// spansNext is the step of the span iterators. The step inside a scope,
// the common case, is written out: it is the hottest path of the package.
func spansNext(L *lua.LState) int {
	self := L.Get(1)
	if ud, ok := self.(*lua.LUserData); ok {
		if h, ok := ud.Value.(*spanHandle); ok && h.born == h.b.gen {
			if h.i+1 < h.n {
				h.i++
				h.pos++
				h.span = h.spans.At(h.i)
				h.gen = h.born
			} else if !advance(h) {
				return 0
			}
			L.Push(self)
			return 1
		}
	}
	checkIter[*spanHandle](L, "span")
	return 0
}

var traceBatchMethods = map[string]lua.LGFunction{
	"span_count": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Traces)
		L.Push(lua.LNumber(b.traces.SpanCount()))
		return 1
	},
	// span(i) is the i-th span of the whole batch; in increasing order of i
	// it costs O(1) per call.
	"span": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Traces)
		i := L.CheckInt(2) - 1
		if b.atLeaf == nil {
			_, b.atLeaf = b.newFlatSpans()
		}
		h := b.atLeaf.Value.(*spanHandle)
		if i == h.pos+1 && h.i+1 < h.n && h.gen == h.born {
			h.i++
			h.pos = i
			h.span = h.spans.At(h.i)
		} else if !seek(h, i) {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(b.atLeaf)
		return 1
	},
	"spans": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Traces)
		_, ud := b.newFlatSpans()
		return iterate(L, b.bd.spansNext, ud)
	},
	"each_span": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Traces)
		fn := L.CheckFunction(2)
		h, ud := b.newFlatSpans()
		return each(L, h, ud, fn)
	},
}

var traceScopeMethods = map[string]lua.LGFunction{
	"span_count": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Traces)
		L.Push(lua.LNumber(s.spans.Len()))
		return 1
	},
	"span": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Traces)
		i, ok := checkIndex(L, 2, s.spans.Len())
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		if s.atLeaf == nil {
			_, s.atLeaf = s.newScopeSpans()
		}
		h := s.atLeaf.Value.(*spanHandle)
		h.ri, h.si, h.spans, h.n, h.i = s.ri, s.si, s.spans, s.spans.Len(), i
		h.load(i)
		h.gen = h.born
		L.Push(s.atLeaf)
		return 1
	},
	"spans": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Traces)
		_, ud := s.newScopeSpans()
		return iterate(L, s.b.bd.spansNext, ud)
	},
}

// checkSpan returns the live span that is argument 1, or raises an error.
func checkSpan(L *lua.LState) *spanHandle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*spanHandle); ok && h.gen == h.b.gen {
			return h
		}
	}
	return check[*spanHandle](L, "span")
}

// checkSpanW is checkSpan for a method that writes.
func checkSpanW(L *lua.LState) *spanHandle {
	h := checkSpan(L)
	h.b.writable(L)
	return h
}

var spanMethods = map[string]lua.LGFunction{
	"name": func(L *lua.LState) int {
		L.Push(lua.LString(checkSpan(L).span.Name()))
		return 1
	},
	"set_name": func(L *lua.LState) int {
		checkSpanW(L).span.SetName(checkStr(L, 2))
		return 0
	},
	"kind": func(L *lua.LState) int {
		L.Push(spanKindToLua(checkSpan(L).span.Kind()))
		return 1
	},
	"set_kind": func(L *lua.LState) int {
		checkSpanW(L).span.SetKind(checkSpanKind(L, 2))
		return 0
	},
	"trace_id": func(L *lua.LState) int {
		L.Push(traceIDToLua(checkSpan(L).span.TraceID()))
		return 1
	},
	"set_trace_id": func(L *lua.LState) int {
		checkSpanW(L).span.SetTraceID(checkTraceID(L, 2))
		return 0
	},
	"span_id": func(L *lua.LState) int {
		L.Push(spanIDToLua(checkSpan(L).span.SpanID()))
		return 1
	},
	"set_span_id": func(L *lua.LState) int {
		checkSpanW(L).span.SetSpanID(checkSpanID(L, 2))
		return 0
	},
	"parent_span_id": func(L *lua.LState) int {
		L.Push(spanIDToLua(checkSpan(L).span.ParentSpanID()))
		return 1
	},
	"set_parent_span_id": func(L *lua.LState) int {
		checkSpanW(L).span.SetParentSpanID(checkSpanID(L, 2))
		return 0
	},
	"trace_state": func(L *lua.LState) int {
		L.Push(lua.LString(checkSpan(L).span.TraceState().AsRaw()))
		return 1
	},
	"start_time": func(L *lua.LState) int {
		L.Push(timeToLua(checkSpan(L).span.StartTimestamp()))
		return 1
	},
	"set_start_time": func(L *lua.LState) int {
		checkSpanW(L).span.SetStartTimestamp(checkTime(L, 2))
		return 0
	},
	"end_time": func(L *lua.LState) int {
		L.Push(timeToLua(checkSpan(L).span.EndTimestamp()))
		return 1
	},
	"set_end_time": func(L *lua.LState) int {
		checkSpanW(L).span.SetEndTimestamp(checkTime(L, 2))
		return 0
	},
	// duration is end - start in nanoseconds, a number: exact up to 2^53 ns
	// (104 days). 0 if the span ends before it starts.
	"duration": func(L *lua.LState) int {
		s := checkSpan(L).span
		start, end := s.StartTimestamp(), s.EndTimestamp()
		if end < start {
			L.Push(lua.LNumber(0))
			return 1
		}
		L.Push(lua.LNumber(end - start))
		return 1
	},
	"status": func(L *lua.LState) int {
		st := checkSpan(L).span.Status()
		L.Push(statusCodeToLua(st.Code()))
		L.Push(lua.LString(st.Message()))
		return 2
	},
	"set_status": func(L *lua.LState) int {
		st := checkSpanW(L).span.Status()
		code := checkStatusCode(L, 2)
		msg := ""
		if L.Get(3) != lua.LNil {
			msg = checkStr(L, 3)
		}
		st.SetCode(code)
		st.SetMessage(msg)
		return 0
	},
	"event_count": func(L *lua.LState) int {
		L.Push(lua.LNumber(checkSpan(L).span.Events().Len()))
		return 1
	},
	"link_count": func(L *lua.LState) int {
		L.Push(lua.LNumber(checkSpan(L).span.Links().Len()))
		return 1
	},
	"resource": func(L *lua.LState) int {
		h := checkSpan(L)
		L.Push(h.b.moveResource(&h.atResource, h.ri))
		return 1
	},
	"scope": func(L *lua.LState) int {
		h := checkSpan(L)
		L.Push(h.b.moveScope(&h.atScope, h.ri, h.si))
		return 1
	},
	"drop": func(L *lua.LState) int {
		h := checkSpan(L)
		markDrop(L, &h.handle, itemsKey(h.ri, h.si), h.i)
		return 0
	},
	"dropped": func(L *lua.LState) int {
		h := checkSpan(L)
		L.Push(lua.LBool(h.b.drops.dropped(h.ri, h.si, -1, h.i)))
		return 1
	},
}

// applyTraceDrops removes the marked spans, scopes and resources, and the
// containers that lost everything they held.
func (b *Batch) applyTraceDrops() {
	d := &b.drops
	resMarks := d.get(resourcesKey)
	ri := -1
	b.traces.ResourceSpans().RemoveIf(func(rs ptrace.ResourceSpans) bool {
		ri++
		if resMarks.has(ri) {
			return true
		}
		scopeMarks := d.get(scopesKey(ri))
		si, lostScope := -1, false
		rs.ScopeSpans().RemoveIf(func(ss ptrace.ScopeSpans) bool {
			si++
			gone := scopeMarks.has(si)
			if !gone {
				spans, lostSpan := ss.Spans(), false
				if marks := d.get(itemsKey(ri, si)); marks != nil {
					i, n := -1, spans.Len()
					spans.RemoveIf(func(ptrace.Span) bool { i++; return marks.has(i) })
					lostSpan = spans.Len() < n
				}
				gone = b.emptied(lostSpan, spans.Len())
			}
			lostScope = lostScope || gone
			return gone
		})
		return b.emptied(lostScope, rs.ScopeSpans().Len())
	})
}

// walkTraces calls fn with the attributes of every span w selects.
func (b *Batch) walkTraces(L *lua.LState, w *where, fn visit) {
	var t ticker
	rss := b.traces.ResourceSpans()
	for ri := 0; ri < rss.Len(); ri++ {
		rs := rss.At(ri)
		if !w.matchResource(rs.Resource()) {
			continue
		}
		sss := rs.ScopeSpans()
		for si := 0; si < sss.Len(); si++ {
			ss := sss.At(si)
			if !w.matchScope(ss.Scope()) {
				continue
			}
			spans := ss.Spans()
			k := itemsKey(ri, si)
			for i, n := 0, spans.Len(); i < n; i++ {
				s := spans.At(i)
				if w.hasItem() && !w.matchSpan(s) {
					continue
				}
				fn(s.Attributes(), k, i)
				t.tick(L)
			}
		}
	}
}
