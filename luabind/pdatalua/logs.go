package pdatalua

import (
	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// recordHandle is a log record. One handle serves a whole loop: the
// iterator, or the index access, moves it from record to record.
type recordHandle struct {
	handle
	cursor
	ri, si  int
	records plog.LogRecordSlice
	record  plog.LogRecord
	// atResource and atScope are the handles record:resource() and
	// record:scope() return, made on first use.
	atResource, atScope *lua.LUserData
}

func (h *recordHandle) load(i int) { h.record = h.records.At(i) }

func (h *recordHandle) rewind() {
	rewindCursor(&h.cursor)
	h.ri, h.si = 0, -1
}

func (h *recordHandle) nextContainer() bool {
	rss := h.b.logs.ResourceLogs()
	for ; h.ri < rss.Len(); h.ri, h.si = h.ri+1, -1 {
		sss := rss.At(h.ri).ScopeLogs()
		for h.si+1 < sss.Len() {
			h.si++
			if records := sss.At(h.si).LogRecords(); records.Len() > 0 {
				h.records, h.n, h.i = records, records.Len(), 0
				h.record = records.At(0)
				return true
			}
		}
	}
	return false
}

// newFlatRecords returns an unpositioned handle that walks every log record
// of the batch.
func (b *Batch) newFlatRecords() (*recordHandle, *lua.LUserData) {
	h := &recordHandle{handle: b.handle(), cursor: cursor{flat: true}}
	h.rewind()
	h.gen = 0
	return h, newUD(h, b.bd.record)
}

// newScopeRecords returns an unpositioned handle that walks the log records
// of one scope.
func (s *scopeHandle) newScopeRecords() (*recordHandle, *lua.LUserData) {
	h := &recordHandle{handle: s.b.handle(), ri: s.ri, si: s.si, records: s.records}
	h.i, h.n = -1, s.records.Len()
	h.gen = 0
	return h, newUD(h, s.b.bd.record)
}

func recordAttrs(L *lua.LState) (*handle, pcommon.Map) {
	h := checkRecord(L)
	return &h.handle, h.record.Attributes()
}

// recordsNext is the step of the record iterators, the step inside a scope
// written out.
func recordsNext(L *lua.LState) int {
	self := L.Get(1)
	if ud, ok := self.(*lua.LUserData); ok {
		if h, ok := ud.Value.(*recordHandle); ok && h.born == h.b.gen {
			if h.i+1 < h.n {
				h.i++
				h.pos++
				h.record = h.records.At(h.i)
				h.gen = h.born
			} else if !advance(h) {
				return 0
			}
			L.Push(self)
			return 1
		}
	}
	checkIter[*recordHandle](L, "record")
	return 0
}

var logBatchMethods = map[string]lua.LGFunction{
	"record_count": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Logs)
		L.Push(lua.LNumber(b.logs.LogRecordCount()))
		return 1
	},
	// record(i) is the i-th log record of the whole batch; in increasing
	// order of i it costs O(1) per call.
	"record": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Logs)
		i := L.CheckInt(2) - 1
		if b.atLeaf == nil {
			_, b.atLeaf = b.newFlatRecords()
		}
		h := b.atLeaf.Value.(*recordHandle)
		if i == h.pos+1 && h.i+1 < h.n && h.gen == h.born {
			h.i++
			h.pos = i
			h.record = h.records.At(h.i)
		} else if !seek(h, i) {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(b.atLeaf)
		return 1
	},
	"records": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Logs)
		_, ud := b.newFlatRecords()
		return iterate(L, b.bd.recordsNext, ud)
	},
	"each_record": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Logs)
		fn := L.CheckFunction(2)
		h, ud := b.newFlatRecords()
		return each(L, h, ud, fn)
	},
}

var logScopeMethods = map[string]lua.LGFunction{
	"record_count": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Logs)
		L.Push(lua.LNumber(s.records.Len()))
		return 1
	},
	"record": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Logs)
		i, ok := checkIndex(L, 2, s.records.Len())
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		if s.atLeaf == nil {
			_, s.atLeaf = s.newScopeRecords()
		}
		h := s.atLeaf.Value.(*recordHandle)
		h.ri, h.si, h.records, h.n, h.i = s.ri, s.si, s.records, s.records.Len(), i
		h.load(i)
		h.gen = h.born
		L.Push(s.atLeaf)
		return 1
	},
	"records": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Logs)
		_, ud := s.newScopeRecords()
		return iterate(L, s.b.bd.recordsNext, ud)
	},
}

// checkRecord returns the live record that is argument 1, or raises an
// error.
func checkRecord(L *lua.LState) *recordHandle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*recordHandle); ok && h.gen == h.b.gen {
			return h
		}
	}
	return check[*recordHandle](L, "record")
}

// checkRecordW is checkRecord for a method that writes.
func checkRecordW(L *lua.LState) *recordHandle {
	h := checkRecord(L)
	h.b.writable(L)
	return h
}

var recordMethods = map[string]lua.LGFunction{
	"body": func(L *lua.LState) int {
		L.Push(valueToLua(checkRecord(L).record.Body()))
		return 1
	},
	"set_body": func(L *lua.LState) int {
		h := checkRecordW(L)
		v := checkScalar(L, 2)
		v.set(h.record.Body())
		return 0
	},
	"severity_text": func(L *lua.LState) int {
		L.Push(lua.LString(checkRecord(L).record.SeverityText()))
		return 1
	},
	"set_severity_text": func(L *lua.LState) int {
		checkRecordW(L).record.SetSeverityText(checkStr(L, 2))
		return 0
	},
	"severity_number": func(L *lua.LState) int {
		L.Push(lua.LNumber(checkRecord(L).record.SeverityNumber()))
		return 1
	},
	"set_severity_number": func(L *lua.LState) int {
		h := checkRecordW(L)
		n := L.CheckInt(2)
		if n < int(plog.SeverityNumberUnspecified) || n > int(plog.SeverityNumberFatal4) {
			L.ArgError(2, "severity number expected, from 0 to 24")
		}
		h.record.SetSeverityNumber(plog.SeverityNumber(n))
		return 0
	},
	"event_name": func(L *lua.LState) int {
		L.Push(lua.LString(checkRecord(L).record.EventName()))
		return 1
	},
	"set_event_name": func(L *lua.LState) int {
		checkRecordW(L).record.SetEventName(checkStr(L, 2))
		return 0
	},
	"trace_id": func(L *lua.LState) int {
		L.Push(traceIDToLua(checkRecord(L).record.TraceID()))
		return 1
	},
	"set_trace_id": func(L *lua.LState) int {
		checkRecordW(L).record.SetTraceID(checkTraceID(L, 2))
		return 0
	},
	"span_id": func(L *lua.LState) int {
		L.Push(spanIDToLua(checkRecord(L).record.SpanID()))
		return 1
	},
	"set_span_id": func(L *lua.LState) int {
		checkRecordW(L).record.SetSpanID(checkSpanID(L, 2))
		return 0
	},
	"time": func(L *lua.LState) int {
		L.Push(timeToLua(checkRecord(L).record.Timestamp()))
		return 1
	},
	"set_time": func(L *lua.LState) int {
		checkRecordW(L).record.SetTimestamp(checkTime(L, 2))
		return 0
	},
	"observed_time": func(L *lua.LState) int {
		L.Push(timeToLua(checkRecord(L).record.ObservedTimestamp()))
		return 1
	},
	"set_observed_time": func(L *lua.LState) int {
		checkRecordW(L).record.SetObservedTimestamp(checkTime(L, 2))
		return 0
	},
	"resource": func(L *lua.LState) int {
		h := checkRecord(L)
		L.Push(h.b.moveResource(&h.atResource, h.ri))
		return 1
	},
	"scope": func(L *lua.LState) int {
		h := checkRecord(L)
		L.Push(h.b.moveScope(&h.atScope, h.ri, h.si))
		return 1
	},
	"drop": func(L *lua.LState) int {
		h := checkRecord(L)
		markDrop(L, &h.handle, itemsKey(h.ri, h.si), h.i)
		return 0
	},
	"dropped": func(L *lua.LState) int {
		h := checkRecord(L)
		L.Push(lua.LBool(h.b.drops.dropped(h.ri, h.si, -1, h.i)))
		return 1
	},
}

// applyLogDrops removes the marked records, scopes and resources, and the
// containers that lost everything they held.
func (b *Batch) applyLogDrops() {
	d := &b.drops
	resMarks := d.get(resourcesKey)
	ri := -1
	b.logs.ResourceLogs().RemoveIf(func(rl plog.ResourceLogs) bool {
		ri++
		if resMarks.has(ri) {
			return true
		}
		scopeMarks := d.get(scopesKey(ri))
		si, lostScope := -1, false
		rl.ScopeLogs().RemoveIf(func(sl plog.ScopeLogs) bool {
			si++
			gone := scopeMarks.has(si)
			if !gone {
				records, lostRecord := sl.LogRecords(), false
				if marks := d.get(itemsKey(ri, si)); marks != nil {
					i, n := -1, records.Len()
					records.RemoveIf(func(plog.LogRecord) bool { i++; return marks.has(i) })
					lostRecord = records.Len() < n
				}
				gone = b.emptied(lostRecord, records.Len())
			}
			lostScope = lostScope || gone
			return gone
		})
		return b.emptied(lostScope, rl.ScopeLogs().Len())
	})
}

// walkLogs calls fn with the attributes of every log record w selects.
func (b *Batch) walkLogs(L *lua.LState, w *where, fn visit) {
	var t ticker
	rls := b.logs.ResourceLogs()
	for ri := 0; ri < rls.Len(); ri++ {
		rl := rls.At(ri)
		if !w.matchResource(rl.Resource()) {
			continue
		}
		sls := rl.ScopeLogs()
		for si := 0; si < sls.Len(); si++ {
			sl := sls.At(si)
			if !w.matchScope(sl.Scope()) {
				continue
			}
			records := sl.LogRecords()
			k := itemsKey(ri, si)
			for i, n := 0, records.Len(); i < n; i++ {
				r := records.At(i)
				if w.hasItem() && !w.matchRecord(r) {
					continue
				}
				fn(r.Attributes(), k, i)
				t.tick(L)
			}
		}
	}
}
