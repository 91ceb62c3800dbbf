package pdatalua

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// batch:by_index(type) returns the methods of the batch's leaf items (span,
// record, metric, point) as functions that take the item's flat index in the
// batch (1-based, as batch:span(i)) in place of the item:
//
//	local spans = batch:by_index("span")
//	local set_attr, del_attr = spans.set_attr, spans.del_attr
//	for i = 1, batch:span_count() do
//	  set_attr(i, "user.email", "redacted")
//	  del_attr(i, "net.peer.ip")
//	end
//
// A numeric for needs no call to step, where the generic for calls its
// iterator once per item: the loop makes one Lua→Go call per item fewer.
// Each function positions a handle of its own (not the one batch:span(i)
// returns), in O(1) when the index is the previous one or the next.

// leafKind is a type of leaf item by_index serves.
type leafKind uint8

const (
	leafSpan leafKind = iota
	leafRecord
	leafMetric
	leafPoint
	numLeafKinds
)

// leafKinds maps the type names by_index takes to their kind, per signal.
func leafKindOf(sig dataplane.Signal, name string) (leafKind, bool) {
	switch {
	case name == "span" && sig == dataplane.Traces:
		return leafSpan, true
	case name == "record" && sig == dataplane.Logs:
		return leafRecord, true
	case name == "metric" && sig == dataplane.Metrics:
		return leafMetric, true
	case name == "point" && sig == dataplane.Metrics:
		return leafPoint, true
	}
	return 0, false
}

// byIndex is the table by_index returns for one kind, made once per Batch
// (a Batch is reused from callback to callback) and bound to the callback
// it was last handed out in: called in another, its functions raise "batch
// used after its callback returned".
type byIndex struct {
	t    *lua.LTable
	sess uint32
}

// newLeaf returns an unpositioned flat handle of kind k.
func (b *Batch) newLeaf(k leafKind) (leaf, *lua.LUserData) {
	switch k {
	case leafSpan:
		return b.newFlatSpans()
	case leafRecord:
		return b.newFlatRecords()
	case leafMetric:
		return b.newFlatMetrics()
	default:
		return b.newFlatPoints()
	}
}

// leafCount is the number of items of kind k in the batch.
func (b *Batch) leafCount(k leafKind) int {
	switch k {
	case leafSpan:
		return b.traces.SpanCount()
	case leafRecord:
		return b.logs.LogRecordCount()
	case leafMetric:
		return b.metrics.MetricCount()
	default:
		return b.metrics.DataPointCount()
	}
}

var leafNames = [numLeafKinds]string{"span", "record", "metric", "point"}

// byIndexTable returns the by_index table of kind k for the current callback.
func (b *Batch) byIndexTable(L *lua.LState, k leafKind, class *lua.LTable) *lua.LTable {
	bi := b.byIdx[k]
	if bi == nil {
		bi = &byIndex{t: L.NewTable()}
		// The attribute methods find the item themselves; the others get
		// the handle in place of the index.
		var attrs map[string]lua.LGFunction
		if k != leafMetric {
			attrs = attrMethods(b.attrsAt(k, bi))
		}
		class.RawGetString("__index").(*lua.LTable).ForEach(func(name, fn lua.LValue) {
			if f, ok := attrs[lua.LVAsString(name)]; ok {
				bi.t.RawSet(name, L.NewFunction(f))
				return
			}
			if f, ok := fn.(*lua.LFunction); ok && f.IsG {
				bi.t.RawSet(name, L.NewFunction(b.indexed(k, bi, f.GFunction)))
			}
		})
		b.byIdx[k] = bi
	}
	bi.sess = b.sess
	return bi.t
}

// attrsAt returns the attrsOf of the by_index functions of kind k: the
// attributes of the item whose index is argument 1.
func (b *Batch) attrsAt(k leafKind, bi *byIndex) attrsOf {
	switch k {
	case leafSpan:
		return func(L *lua.LState) (*handle, pcommon.Map) {
			h := b.spanAt(L, bi)
			return &h.handle, h.span.Attributes()
		}
	case leafRecord:
		return func(L *lua.LState) (*handle, pcommon.Map) {
			h := b.recordAt(L, bi)
			return &h.handle, h.record.Attributes()
		}
	default: // leafPoint; metrics have no attributes
		return func(L *lua.LState) (*handle, pcommon.Map) {
			h := b.leafAt(L, k, bi).(*pointHandle)
			return &h.handle, h.attributes()
		}
	}
}

// index returns argument 1, a flat index, 0-based, after checking that the
// by_index table is the current callback's.
func (b *Batch) index(L *lua.LState, k leafKind, bi *byIndex) int {
	if !b.live || b.sess != bi.sess {
		L.RaiseError("%s", errUsedAfter)
	}
	n, ok := L.Arg(1).(lua.LNumber)
	if !ok {
		L.ArgError(1, leafNames[k]+" index expected, got "+L.Get(1).Type().String())
	}
	return int(n) - 1
}

// outOfRange raises the error of an index beyond the batch.
func (b *Batch) outOfRange(L *lua.LState, k leafKind) {
	L.ArgError(1, leafNames[k]+" index "+lua.LVAsString(L.Get(1))+" out of range (the batch has "+strconv.Itoa(b.leafCount(k))+")")
}

// spanAt returns the by_index span handle moved to the index that is
// argument 1. The common steps (the same span again, the next one in its
// scope) are written out: this is the loop's hot path.
func (b *Batch) spanAt(L *lua.LState, bi *byIndex) *spanHandle {
	k := b.index(L, leafSpan, bi)
	ud := b.atIndex[leafSpan]
	if ud == nil {
		_, ud = b.newFlatSpans()
		b.atIndex[leafSpan] = ud
	}
	h := ud.Value.(*spanHandle)
	if h.gen == h.born {
		if k == h.pos {
			return h
		}
		if k == h.pos+1 && h.i+1 < h.n {
			h.i++
			h.pos = k
			h.span = h.spans.At(h.i)
			return h
		}
	}
	if !seek(h, k) {
		b.outOfRange(L, leafSpan)
	}
	return h
}

// recordAt is spanAt for log records.
func (b *Batch) recordAt(L *lua.LState, bi *byIndex) *recordHandle {
	k := b.index(L, leafRecord, bi)
	ud := b.atIndex[leafRecord]
	if ud == nil {
		_, ud = b.newFlatRecords()
		b.atIndex[leafRecord] = ud
	}
	h := ud.Value.(*recordHandle)
	if h.gen == h.born {
		if k == h.pos {
			return h
		}
		if k == h.pos+1 && h.i+1 < h.n {
			h.i++
			h.pos = k
			h.record = h.records.At(h.i)
			return h
		}
	}
	if !seek(h, k) {
		b.outOfRange(L, leafRecord)
	}
	return h
}

// leafAt is spanAt for any kind, through the leaf interface.
func (b *Batch) leafAt(L *lua.LState, k leafKind, bi *byIndex) leaf {
	i := b.index(L, k, bi)
	ud := b.atIndex[k]
	if ud == nil {
		_, ud = b.newLeaf(k)
		b.atIndex[k] = ud
	}
	h := ud.Value.(leaf)
	if c, hb := h.cur(), h.base(); hb.gen == hb.born && i == c.pos {
		return h
	}
	if !seek(h, i) {
		b.outOfRange(L, k)
	}
	return h
}

// indexed returns method as a function whose first argument is a flat
// index: it moves the kind's by_index handle there, puts the handle in
// place of the index and calls method.
func (b *Batch) indexed(k leafKind, bi *byIndex, method lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		var ud *lua.LUserData
		switch k {
		case leafSpan:
			b.spanAt(L, bi)
		case leafRecord:
			b.recordAt(L, bi)
		default:
			b.leafAt(L, k, bi)
		}
		ud = b.atIndex[k]
		L.Replace(1, ud)
		return method(L)
	}
}
