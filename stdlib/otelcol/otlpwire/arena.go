package otlpwire

import (
	"encoding/binary"
	"math/bits"
	"reflect"
	"unsafe"

	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"
)

// Slabs: the items of one list, the entries of attribute maps and the
// boxes of scalar values, carved out of a few large allocations per
// request instead of one allocation each.
//
// pdata allocates one struct per span, log record or data point, one
// slice per attribute map and one box per string or number value (its
// AnyValue is an interface holding a pointer to a one-field struct): for
// a request of 500 small items with one attribute, about 2000 allocations,
// which with the garbage collector's work on as many objects were most of
// what decoding cost. pdata's public API cannot place those values: its
// AppendEmpty, PutStr and SetStr allocate each. So, when the layout of
// pdata's internal messages is the one checked below (at init, by
// reflection, against the pinned pdata), the decoder writes them
// directly:
//
//   - an item list's pointer slice is filled with pointers into one slice
//     of its items (reflect.MakeSlice of pdata's own item type, so that
//     the garbage collector sees the real type);
//   - an attribute map's slice is a window (length = capacity, so that an
//     append by a processor reallocates rather than overwriting the next
//     map) into a chunk of pdata's KeyValue type, shared by the maps of
//     one request;
//   - a string, int, double or bool value's box is an element of a chunk of
//     pdata's box type, and the value's interface is built from the box's
//     type word;
//   - a metric's data (the oneof's box, a *Metric_Gauge, and the message
//     it points to, a *Gauge) are elements of chunks of their types, and
//     a list of number points gets its pointer slice as a window (length =
//     capacity) into a chunk of pointers shared by the request's lists: a
//     request of fifty gauges of ten points took 328 allocations, now 31.
//
// Each box, map window and item is referenced by exactly one place, as
// pdata's own decoder would allocate it: pdata never mutates a box in
// place without the pooling gate (SetStr and the others put a new box),
// and with the gate on (pdata.useProtoPooling, which recycles the boxes
// and items one by one) the slabs are off.
//
// A chunk is as large as the allocation the runtime makes for it anyway
// (its size class, or whole pages for a large one: 500 number points of
// 88 bytes take six pages, room for 558), and a pooled decoder carves the
// room a request leaves in its chunks for the next request it decodes.
// So the rounding of each allocation is not lost: 5-12% of the bytes a
// request of 500 items allocates (bench/HISTORY.md, "Round nineteen"). What a
// slab changes is lifetime: a chunk lives until the last value carved
// from it is unreachable, so a processor that keeps one item keeps the
// other items of its chunk, from its own request and from the requests
// decoded just before or after it by the same decoder. A chunk holds at
// most maxChunk elements (or one list that needs more, from its own
// request), so what one item pins stays bounded, as does what an idle
// pooled decoder holds until sync.Pool drops it. A request the fast path
// declines drops its decoder's chunks.
//
// The data built is pdata's own, byte for byte (the tests and fuzzing
// compare both), down to an attribute key repeated in one map, which this
// path keeps twice as pdata's decoder does.

// eface is the layout of an empty interface value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// makeIface returns the interface value of dynamic type typ (a type word
// taken from a real value) holding the pointer p.
func makeIface(typ, p unsafe.Pointer) (v any) {
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, p
	return v
}

// typeWord returns the type word of v's dynamic type.
func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

// slabKind describes one pdata type slabs are made of.
type slabKind struct {
	slice reflect.Type // []T
	size  uintptr
	word  unsafe.Pointer // for boxes: the type word of *T, else nil
}

func newSlabKind(t reflect.Type) *slabKind {
	return &slabKind{slice: reflect.SliceOf(t), size: t.Size()}
}

// make allocates at least n zero values of the kind as one slice and
// returns its first element and its length: n rounded up to what the
// runtime allocates for n (append's growth rounds a capacity the same
// way), so that no tail of the allocation goes unused.
func (k *slabKind) make(n int) (unsafe.Pointer, int) {
	v := reflect.New(k.slice).Elem()
	v.Grow(n)
	return v.UnsafePointer(), v.Cap()
}

// chunk hands out the elements of one allocation in order.
type chunk struct {
	base      unsafe.Pointer
	used, cap int
}

// maxChunk bounds a chunk of KeyValues, boxes or items (unless one list
// needs more), so that what a kept item pins of its request stays
// bounded; minChunk is the least a new chunk holds, so that many short
// lists (a metric of ten points) share chunks rather than each making its
// own.
const (
	maxChunk = 1024
	minChunk = 64
)

// take returns n consecutive zero elements of kind k, from c when it has
// room, else from a new chunk sized for hint elements (what the rest of the
// list will likely need), at least minChunk.
func (c *chunk) take(k *slabKind, n, hint int) unsafe.Pointer {
	return c.takeFit(k, n, max(hint, minChunk))
}

// takeFit is take for elements whose number is known ahead (the metrics
// of a list, their data): a new chunk holds hint elements, however few.
func (c *chunk) takeFit(k *slabKind, n, hint int) unsafe.Pointer {
	if c.cap-c.used < n {
		c.refill(k, max(n, min(hint, maxChunk)))
	}
	p := unsafe.Add(c.base, uintptr(c.used)*k.size)
	c.used += n
	return p
}

// refill replaces c with a new chunk of at least size elements of kind k.
func (c *chunk) refill(k *slabKind, size int) {
	c.base, c.cap = k.make(size)
	c.used = 0
}

// takeItems appends n new zero items of kind k to the list whose orig (a
// *[]*T) is at origp, carved from the room left in c first and then from
// a new chunk sized for hint (counting these n; at least what is still
// needed): the items of a list need not be consecutive, since the list
// holds pointers to them. The caller made room in the list.
func (c *chunk) takeItems(origp unsafe.Pointer, k *slabKind, n, hint int) {
	for n > 0 {
		if c.used == c.cap {
			c.refill(k, max(n, min(hint, maxChunk)))
		}
		m := min(n, c.cap-c.used)
		fillItems(origp, k, unsafe.Add(c.base, uintptr(c.used)*k.size), m)
		c.used += m
		n -= m
		hint -= m
	}
}

// layout is what the slabs need of pdata's internal types; ok is false
// when anything differs from what this file expects.
var layout = struct {
	ok bool

	kv         *slabKind // internal.KeyValue
	kvKey      uintptr   // offset of KeyValue.Key
	kvValue    uintptr   // offset of KeyValue.Value (an AnyValue: one interface)
	str, i64   *slabKind // AnyValue_StringValue, AnyValue_IntValue
	f64, bool  *slabKind // AnyValue_DoubleValue, AnyValue_BoolValue
	asInt      *slabKind // NumberDataPoint_AsInt
	asDouble   *slabKind
	pointValue uintptr // offset of NumberDataPoint.Value
	span, log  *slabKind
	point      *slabKind // NumberDataPoint
	pointPtr   *slabKind // *NumberDataPoint: windows of a points list's pointer slice
	metric     *slabKind // Metric
	metricData uintptr   // offset of Metric.Data (an empty interface: the oneof)
	// data, by pmetric.MetricType: the oneof's wrapper (Metric_Gauge, a
	// box of one pointer) and what it points to (Gauge).
	data        [numMetricTypes]struct{ wrap, msg *slabKind }
	pooling     *featuregate.Gate
	poolingName string
}{poolingName: "pdata.useProtoPooling"}

func init() { layout.ok = checkLayout() }

// firstOrig returns the type of the first field of the wrapper type t,
// which must be named orig and be a pointer.
func firstOrig(t reflect.Type) reflect.Type {
	if t.Kind() != reflect.Struct || t.NumField() == 0 || t.Field(0).Name != "orig" || t.Field(0).Type.Kind() != reflect.Pointer || t.Field(0).Offset != 0 {
		return nil
	}
	return t.Field(0).Type
}

// itemType returns T for a list wrapper whose orig is *[]*T.
func itemType(wrapper any) reflect.Type {
	o := firstOrig(reflect.TypeOf(wrapper))
	if o == nil || o.Elem().Kind() != reflect.Slice || o.Elem().Elem().Kind() != reflect.Pointer || o.Elem().Elem().Elem().Kind() != reflect.Struct {
		return nil
	}
	return o.Elem().Elem().Elem()
}

// isAny reports whether t is the empty interface.
func isAny(t reflect.Type) bool { return t.Kind() == reflect.Interface && t.NumMethod() == 0 }

// boxOf returns the kind of the box v (an AnyValue's or a point's
// interface) holds, which must be a pointer to a struct of one field of
// kind want.
func boxOf(v any, want reflect.Kind) *slabKind {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem().NumField() != 1 || t.Elem().Field(0).Type.Kind() != want {
		return nil
	}
	k := newSlabKind(t.Elem())
	k.word = typeWord(v)
	return k
}

// valueBox returns what an AnyValue holds after set: its interface.
func valueBox(set func(pcommon.Value)) any {
	v := pcommon.NewValueEmpty()
	set(v)
	return *(*any)(origOf(unsafe.Pointer(&v)))
}

// origOf returns the orig pointer of a pdata wrapper at p (its first field).
func origOf(p unsafe.Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(p) }

func checkLayout() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	layout.pooling = findGate(layout.poolingName)
	if layout.pooling == nil {
		return false
	}
	// pcommon.Map wraps *[]KeyValue; KeyValue has Key (a string) and Value
	// (an AnyValue: a struct of one empty interface).
	mo := firstOrig(reflect.TypeOf(pcommon.NewMap()))
	if mo == nil || mo.Elem().Kind() != reflect.Slice {
		return false
	}
	kvt := mo.Elem().Elem()
	key, ok1 := kvt.FieldByName("Key")
	val, ok2 := kvt.FieldByName("Value")
	if kvt.Kind() != reflect.Struct || !ok1 || !ok2 || key.Type.Kind() != reflect.String ||
		val.Type.Kind() != reflect.Struct || val.Type.NumField() != 1 || !isAny(val.Type.Field(0).Type) || val.Type.Size() != unsafe.Sizeof(eface{}) {
		return false
	}
	layout.kv, layout.kvKey, layout.kvValue = newSlabKind(kvt), key.Offset, val.Offset
	// pcommon.Value wraps *AnyValue: the same struct.
	vo := firstOrig(reflect.TypeOf(pcommon.NewValueEmpty()))
	if vo == nil || vo.Elem() != val.Type {
		return false
	}
	layout.str = boxOf(valueBox(func(v pcommon.Value) { v.SetStr("s") }), reflect.String)
	layout.i64 = boxOf(valueBox(func(v pcommon.Value) { v.SetInt(1) }), reflect.Int64)
	layout.f64 = boxOf(valueBox(func(v pcommon.Value) { v.SetDouble(1) }), reflect.Float64)
	layout.bool = boxOf(valueBox(func(v pcommon.Value) { v.SetBool(true) }), reflect.Bool)
	if layout.str == nil || layout.i64 == nil || layout.f64 == nil || layout.bool == nil {
		return false
	}
	// pmetric.NumberDataPoint wraps *NumberDataPoint, whose Value is an
	// empty interface holding an AsInt or AsDouble box.
	dp := pmetric.NewNumberDataPoint()
	po := firstOrig(reflect.TypeOf(dp))
	if po == nil {
		return false
	}
	pv, ok3 := po.Elem().FieldByName("Value")
	if !ok3 || !isAny(pv.Type) {
		return false
	}
	layout.pointValue = pv.Offset
	dp.SetIntValue(1)
	layout.asInt = boxOf(*(*any)(unsafe.Add(origOf(unsafe.Pointer(&dp)), pv.Offset)), reflect.Int64)
	dp.SetDoubleValue(1)
	layout.asDouble = boxOf(*(*any)(unsafe.Add(origOf(unsafe.Pointer(&dp)), pv.Offset)), reflect.Float64)
	if layout.asInt == nil || layout.asDouble == nil {
		return false
	}
	// The item lists wrap *[]*Item; their At wraps the same *Item.
	span, log, point := itemType(ptrace.NewSpanSlice()), itemType(plog.NewLogRecordSlice()), itemType(pmetric.NewNumberDataPointSlice())
	if span == nil || log == nil || point != po.Elem() {
		return false
	}
	layout.span, layout.log, layout.point = newSlabKind(span), newSlabKind(log), newSlabKind(point)
	layout.pointPtr = newSlabKind(reflect.PointerTo(point))
	return checkMetricLayout()
}

// numMetricTypes bounds pmetric.MetricType's values (Empty is 0).
const numMetricTypes = int(pmetric.MetricTypeSummary) + 1

// checkMetricLayout checks what the slabs of metrics need: pmetric.Metric
// wraps the item type of MetricSlice, whose Data is an empty interface
// that SetEmptyGauge and its peers set to a box of one pointer (a
// *Metric_Gauge) to a new message (a *Gauge).
func checkMetricLayout() bool {
	mt := itemType(pmetric.NewMetricSlice())
	m := pmetric.NewMetric()
	if mt == nil || firstOrig(reflect.TypeOf(m)) != reflect.PointerTo(mt) {
		return false
	}
	data, ok := mt.FieldByName("Data")
	if !ok || !isAny(data.Type) {
		return false
	}
	layout.metric, layout.metricData = newSlabKind(mt), data.Offset
	for typ := pmetric.MetricTypeGauge; int(typ) < numMetricTypes; typ++ {
		setEmptyData(m, typ)
		v := *(*any)(unsafe.Add(origOf(unsafe.Pointer(&m)), data.Offset))
		wrap := boxOf(v, reflect.Pointer)
		if wrap == nil || m.Type() != typ {
			return false
		}
		msg := wrap.slice.Elem().Field(0).Type.Elem()
		if msg.Kind() != reflect.Struct {
			return false
		}
		layout.data[typ].wrap, layout.data[typ].msg = wrap, newSlabKind(msg)
	}
	return true
}

// findGate returns the registered feature gate id, nil if there is none.
func findGate(id string) *featuregate.Gate {
	var g *featuregate.Gate
	featuregate.GlobalRegistry().VisitAll(func(x *featuregate.Gate) {
		if x.ID() == id {
			g = x
		}
	})
	return g
}

// slabsOn reports whether slabs may be used for a request now.
func slabsOn() bool { return layout.ok && !layout.pooling.IsEnabled() }

// rawSlice is the layout of a slice header.
type rawSlice struct {
	data     unsafe.Pointer
	len, cap int
}

// fillItems appends n new zero items of kind k, the consecutive elements
// of a chunk from base (chunk.take's), to the list whose orig (a *[]*T) is
// at origp; the caller made room (EnsureCapacity or window).
func fillItems(origp unsafe.Pointer, k *slabKind, base unsafe.Pointer, n int) {
	s := (*[]unsafe.Pointer)(origp)
	for i := range n {
		*s = append(*s, unsafe.Add(base, uintptr(i)*k.size))
	}
}

// window gives the empty list whose orig (a *[]*T) is at origp room for n
// items: its pointer slice becomes a window of n pointers (length =
// capacity, so that an append beyond them reallocates rather than
// overwriting the next list's) into a chunk of pointers of kind pk shared
// by the lists of a request, sized for hint.
func window(origp unsafe.Pointer, pk *slabKind, ptrs *chunk, n, hint int) {
	if n > 0 {
		*(*[]unsafe.Pointer)(origp) = unsafe.Slice((*unsafe.Pointer)(ptrs.takeFit(pk, n, hint)), n)[:0]
	}
}

// emptyData sets m's data to a new, empty message of type typ carved from
// the decoder's chunks: what m.SetEmptyGauge() and its peers do with one
// allocation each for the box and the message.
func (d *decoder) emptyData(m pmetric.Metric, typ pmetric.MetricType) {
	k := &layout.data[typ]
	hint := d.metricsLeft + 1 // with m
	box := d.dataBoxes[typ].takeFit(k.wrap, 1, hint)
	*(*unsafe.Pointer)(box) = d.dataMsgs[typ].takeFit(k.msg, 1, hint)
	*(*any)(unsafe.Add(origOf(unsafe.Pointer(&m)), layout.metricData)) = makeIface(k.wrap.word, box)
}

// hint is how many elements a new chunk is sized for when per are needed
// for each of the items left in the current list.
func (d *decoder) hint(per int) int { return per * max(d.left, 1) }

// box returns an interface holding a new box of kind k from c, whose one
// 8-byte field is set to u (an int64 or a float64's bits).
func (d *decoder) box64(k *slabKind, c *chunk, u uint64) any {
	p := c.take(k, 1, d.hint(1))
	*(*uint64)(p) = u
	return makeIface(k.word, p)
}

// boxStr returns an interface holding a new string box of s.
func (d *decoder) boxStr(s string) any {
	p := d.strs.take(layout.str, 1, d.hint(1))
	*(*string)(p) = s
	return makeIface(layout.str.word, p)
}

// boxBool returns an interface holding a new bool box of b.
func (d *decoder) boxBool(b bool) any {
	p := d.bls.take(layout.bool, 1, d.hint(1))
	*(*bool)(p) = b
	return makeIface(layout.bool.word, p)
}

// setPointValue sets dp's value (as_int or as_double, by k) to u.
func (d *decoder) setPointValue(dp pmetric.NumberDataPoint, k *slabKind, c *chunk, u uint64) {
	*(*any)(unsafe.Add(origOf(unsafe.Pointer(&dp)), layout.pointValue)) = d.box64(k, c, u)
}

// scalar decodes the AnyValue payload b when it is empty or a string,
// bool, int or double, into the interface an AnyValue holds; ok is false
// for the other kinds (arrays, maps, bytes), which go through pdata's API.
func (d *decoder) scalar(b []byte) (v any, ok bool, err error) {
	if len(b) == 0 {
		return nil, true, nil
	}
	f := fields(b)
	if !f.next() || !f.done() {
		return nil, false, errUnsupported
	}
	switch f.num {
	case 1:
		if f.typ != protowire.BytesType {
			return nil, false, errUnsupported
		}
		return d.boxStr(d.str(f.data())), true, nil
	case 2:
		if f.typ != protowire.VarintType {
			return nil, false, errUnsupported
		}
		return d.boxBool(f.u != 0), true, nil
	case 3:
		if f.typ != protowire.VarintType {
			return nil, false, errUnsupported
		}
		return d.box64(layout.i64, &d.i64s, f.u), true, nil
	case 4:
		if f.typ != protowire.Fixed64Type {
			return nil, false, errUnsupported
		}
		return d.box64(layout.f64, &d.f64s, f.u), true, nil
	case 5, 6, 7:
		return nil, false, nil
	}
	return nil, false, errUnsupported
}

// setScalar sets the empty value v to the scalar AnyValue payload b, as
// value would; ok is false when b is not a scalar.
func (d *decoder) setScalar(v pcommon.Value, b []byte) (ok bool, err error) {
	x, ok, err := d.scalar(b)
	if ok {
		*(*any)(origOf(unsafe.Pointer(&v))) = x
	}
	return ok, err
}

// attributesSlab decodes the n KeyValue payloads numbered num in b (kvs
// collected them) into the empty map m as one window of a KeyValue chunk.
// ok is false, and m untouched, when a value is not a scalar.
func (d *decoder) attributesSlab(m pcommon.Map, b []byte, num protowire.Number, kvs *repeated) (ok bool, err error) {
	n := kvs.n
	base := d.kvs.take(layout.kv, n, d.hint(n))
	at := 0
	put := func(kv []byte) (bool, error) {
		p := unsafe.Add(base, uintptr(at)*layout.kv.size)
		at++
		var x any
		e, slot := d.pairs.lookup(kv)
		if e != nil {
			x = d.boxPair(e)
		} else {
			key, val, err := keyValueFields(kv)
			if err != nil {
				return false, err
			}
			k := d.str(key)
			var ok bool
			if x, ok, err = d.scalar(val); !ok {
				return false, err
			}
			d.pairs.remember(slot, kv, k, x)
			*(*string)(unsafe.Add(p, layout.kvKey)) = k
			*(*any)(unsafe.Add(p, layout.kvValue)) = x
			return true, nil
		}
		*(*string)(unsafe.Add(p, layout.kvKey)) = e.key
		*(*any)(unsafe.Add(p, layout.kvValue)) = x
		return true, nil
	}
	defer func() {
		if !ok {
			// Unreferenced, but cleared so that the chunk pins nothing.
			for i := range at {
				p := unsafe.Add(base, uintptr(i)*layout.kv.size)
				*(*string)(unsafe.Add(p, layout.kvKey)) = ""
				*(*any)(unsafe.Add(p, layout.kvValue)) = nil
			}
		}
	}()
	if n <= len(kvs.first) {
		for _, at := range kvs.first[:n] {
			if ok, err = put(b[at[0]:at[1]]); !ok {
				return false, err
			}
		}
	} else {
		f := fields(b)
		for f.next() {
			if f.num != num {
				continue
			}
			if ok, err = put(f.data()); !ok {
				return false, err
			}
		}
		if f.bad || at != n {
			return false, errUnsupported
		}
	}
	*(*rawSlice)(origOf(unsafe.Pointer(&m))) = rawSlice{data: base, len: n, cap: n}
	return true, nil
}

// keyValueFields splits a KeyValue payload into its key's bytes and its
// value's (AnyValue) payload.
func keyValueFields(kv []byte) (key, val []byte, err error) {
	var once singular
	f := fields(kv)
	for f.next() {
		switch f.num {
		case 1:
			if f.typ != protowire.BytesType {
				return nil, nil, errUnsupported
			}
			key = f.data()
		case 2:
			if f.typ != protowire.BytesType {
				return nil, nil, errUnsupported
			}
			if err := once.first(2); err != nil {
				return nil, nil, err
			}
			val = f.data()
		default:
			return nil, nil, errUnsupported
		}
	}
	if f.bad {
		return nil, nil, errUnsupported
	}
	return key, val, nil
}

// A pair is an attribute (a KeyValue payload) seen before, with what it
// decoded to: attributes such as method=GET recur across the items of a
// request, and a hit costs one hash and one comparison of the payload
// instead of decoding it and interning its key and value. A payload is
// kept the second time its slot sees it (so that a unique attribute, such
// as a URL path, costs no copy), only with a scalar value, and only in an
// empty slot; the table is cleared every pairsReset requests so that it
// follows the traffic. It lives in the pooled decoder, as the intern
// table does.
type pair struct {
	raw  string // the KeyValue payload
	seen uint64 // the hash of the last payload that missed this empty slot
	key  string
	kind uint8 // 0 empty, 1 string, 2 bool, 3 int, 4 double
	s    string
	u    uint64
}

const (
	pairBits   = 8
	maxPair    = 96 // longest payload kept
	pairsReset = 256
)

type pairTable struct {
	slots    [1 << pairBits]pair
	requests int
}

// begin counts a request and clears the table every pairsReset.
func (t *pairTable) begin() {
	if t.requests++; t.requests >= pairsReset {
		t.slots, t.requests = [1 << pairBits]pair{}, 0
	}
}

// lookup returns the pair kv decoded to, else nil and the slot where its
// decoding should be remembered (-1: not this time).
func (t *pairTable) lookup(kv []byte) (*pair, int) {
	n := len(kv)
	if n < 2 || n > maxPair {
		return nil, -1
	}
	var w uint64
	if n >= 8 {
		w = binary.LittleEndian.Uint64(kv) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(kv[n-8:]), 29)
	} else {
		for _, c := range kv {
			w = w<<8 | uint64(c)
		}
	}
	h := (w ^ uint64(n)) * 0x9E3779B97F4A7C15
	i := int(h >> (64 - pairBits))
	e := &t.slots[i]
	if e.raw == string(kv) {
		return e, i
	}
	if e.raw != "" {
		return nil, -1
	}
	if e.seen != h {
		e.seen = h
		return nil, -1
	}
	return nil, i
}

// remember keeps in slot that kv decoded to key and the scalar x.
func (t *pairTable) remember(slot int, kv []byte, key string, x any) {
	if slot < 0 {
		return
	}
	e := pair{key: key}
	if x != nil {
		v := (*eface)(unsafe.Pointer(&x))
		switch v.typ {
		case layout.str.word:
			e.kind, e.s = 1, *(*string)(v.data)
		case layout.bool.word:
			e.kind = 2
			if *(*bool)(v.data) {
				e.u = 1
			}
		case layout.i64.word:
			e.kind, e.u = 3, *(*uint64)(v.data)
		case layout.f64.word:
			e.kind, e.u = 4, *(*uint64)(v.data)
		default:
			return
		}
	}
	e.raw = string(kv)
	t.slots[slot] = e
}

// boxPair returns a new box of e's value.
func (d *decoder) boxPair(e *pair) any {
	switch e.kind {
	case 1:
		return d.boxStr(e.s)
	case 2:
		return d.boxBool(e.u != 0)
	case 3:
		return d.box64(layout.i64, &d.i64s, e.u)
	case 4:
		return d.box64(layout.f64, &d.f64s, e.u)
	}
	return nil
}
