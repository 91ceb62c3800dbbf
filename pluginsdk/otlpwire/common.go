package otlpwire

import (
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"google.golang.org/protobuf/encoding/protowire"
)

// The messages every signal shares: Resource, InstrumentationScope,
// KeyValue and AnyValue, and the trace and span IDs; and the two shapes
// of message that hold the lists of the three signals.

// list decodes a message whose field num is a repeated message: it counts
// the elements, sizes their slice with ensure, and decodes each with
// element. other decodes the message's other fields (nil: it has none) and
// returns errUnsupported for a field it does not know.
func list(buf []byte, num protowire.Number, ensure func(int), element func([]byte) error, other func(field) error) error {
	n, err := count(buf, num)
	if err != nil {
		return err
	}
	ensure(n)
	f := fields(buf)
	for f.next() {
		if f.num == num && f.typ == protowire.BytesType {
			err = element(f.data())
		} else if other != nil {
			err = other(f.field())
		} else {
			err = errUnsupported
		}
		if err != nil {
			return err
		}
	}
	return f.err()
}

// envelope decodes the messages that put a list under a resource or a
// scope (ResourceSpans and ScopeSpans, and their metrics and logs peers):
// field 1 is the resource or scope, decoded by head; field 2 the list's
// elements; field 3 the schema URL.
func (d *decoder) envelope(buf []byte, head func([]byte) error, ensure func(int), element func([]byte) error, setSchemaURL func(string)) error {
	var once singular
	return list(buf, 2, ensure, element, func(f field) error {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			if err := once.first(1); err != nil {
				return err
			}
			return head(f.data)
		case f.num == 3 && f.typ == protowire.BytesType:
			setSchemaURL(d.str(f.data))
			return nil
		}
		return errUnsupported
	})
}

func (d *decoder) resource(r pcommon.Resource, buf []byte) error {
	var kvs repeated
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 2 && f.typ == protowire.VarintType:
			r.SetDroppedAttributesCount(uint32(f.u))
		default:
			// entity_refs (3) has no stable pdata API: left to pdata.
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	return d.attributes(r.Attributes(), buf, 1, &kvs)
}

func (d *decoder) scope(s pcommon.InstrumentationScope, buf []byte) error {
	var kvs repeated
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			s.SetName(d.str(f.data()))
		case f.num == 2 && f.typ == protowire.BytesType:
			s.SetVersion(d.str(f.data()))
		case f.num == 3 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 4 && f.typ == protowire.VarintType:
			s.SetDroppedAttributesCount(uint32(f.u))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	return d.attributes(s.Attributes(), buf, 3, &kvs)
}

// traceID decodes a trace ID: 16 bytes, or none for the empty ID, as pdata.
func traceID(b []byte) (pcommon.TraceID, error) {
	var id pcommon.TraceID
	if len(b) != 0 && len(b) != len(id) {
		return id, errUnsupported
	}
	copy(id[:], b)
	return id, nil
}

// spanID decodes a span ID: 8 bytes, or none for the empty ID, as pdata.
func spanID(b []byte) (pcommon.SpanID, error) {
	var id pcommon.SpanID
	if len(b) != 0 && len(b) != len(id) {
		return id, errUnsupported
	}
	copy(id[:], b)
	return id, nil
}

// repeated collects where the payloads of one repeated field are while its
// message is walked, so that they can be decoded afterwards without a
// second walk; past its capacity it only counts them, and the second walk
// is made. It keeps offsets into the message rather than slices, so that
// it stays small (it is zeroed for every item).
type repeated struct {
	n     int
	first [16][2]uint32
}

// add records the payload msg[lo:hi].
func (r *repeated) add(lo, hi int) {
	if r.n < len(r.first) {
		r.first[r.n] = [2]uint32{uint32(lo), uint32(hi)}
	}
	r.n++
}

// attributes decodes the KeyValue payloads numbered num in b, which kvs
// collected, into m.
func (d *decoder) attributes(m pcommon.Map, b []byte, num protowire.Number, kvs *repeated) error {
	if kvs.n == 0 {
		return nil
	}
	m.EnsureCapacity(kvs.n)
	if kvs.n <= len(kvs.first) {
		for _, at := range kvs.first[:kvs.n] {
			if err := d.keyValue(m, b[at[0]:at[1]]); err != nil {
				return err
			}
		}
		return nil
	}
	f := fields(b)
	for f.next() {
		if f.num != num {
			continue
		}
		if err := d.keyValue(m, f.data()); err != nil {
			return err
		}
	}
	if f.bad {
		return errUnsupported
	}
	return nil
}

func (d *decoder) keyValue(m pcommon.Map, b []byte) error {
	if d.depth >= MaxDepth {
		return ErrTooDeep
	}
	var key string
	var val []byte
	hasVal := false
	var once singular
	f := fields(b)
	for f.next() {
		switch f.num {
		case 1:
			if f.typ != protowire.BytesType {
				return errUnsupported
			}
			key = d.str(f.data())
		case 2:
			if f.typ != protowire.BytesType {
				return errUnsupported
			}
			if err := once.first(2); err != nil {
				return err
			}
			val, hasVal = f.data(), true
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	// The KeyValue is one nested message, its value (when present, even
	// empty) the next.
	d.depth++
	if hasVal && d.depth >= MaxDepth {
		return ErrTooDeep
	}
	before := m.Len()
	if err := d.putValue(m, key, val); err != nil {
		return err
	}
	d.depth--
	if m.Len() == before {
		return errUnsupported // duplicate key: pdata keeps both
	}
	return nil
}

// putValue decodes the AnyValue payload b under key in m. Its scalar cases
// repeat value's on purpose: m.PutStr and its peers append the key and the
// value in one step, where value(m.PutEmpty(key), b) would append, then
// reset and set the value, on every attribute of every item.
func (d *decoder) putValue(m pcommon.Map, key string, b []byte) error {
	if len(b) == 0 {
		m.PutEmpty(key)
		return nil
	}
	f := fields(b)
	if !f.next() || !f.done() {
		return errUnsupported
	}
	switch f.num {
	case 1:
		if f.typ != protowire.BytesType {
			return errUnsupported
		}
		m.PutStr(key, d.str(f.data()))
	case 2:
		if f.typ != protowire.VarintType {
			return errUnsupported
		}
		m.PutBool(key, f.u != 0)
	case 3:
		if f.typ != protowire.VarintType {
			return errUnsupported
		}
		m.PutInt(key, int64(f.u))
	case 4:
		if f.typ != protowire.Fixed64Type {
			return errUnsupported
		}
		m.PutDouble(key, math.Float64frombits(f.u))
	default:
		return d.value(m.PutEmpty(key), b)
	}
	return nil
}

// value decodes the AnyValue payload b into v: a nested message at
// d.depth, ErrTooDeep at MaxDepth (limits.go).
func (d *decoder) value(v pcommon.Value, b []byte) error {
	if d.depth >= MaxDepth {
		return ErrTooDeep
	}
	if len(b) == 0 {
		return nil
	}
	f := fields(b)
	if !f.next() || !f.done() {
		return errUnsupported
	}
	switch f.num {
	case 1:
		if f.typ != protowire.BytesType {
			return errUnsupported
		}
		v.SetStr(d.str(f.data()))
	case 2:
		if f.typ != protowire.VarintType {
			return errUnsupported
		}
		v.SetBool(f.u != 0)
	case 3:
		if f.typ != protowire.VarintType {
			return errUnsupported
		}
		v.SetInt(int64(f.u))
	case 4:
		if f.typ != protowire.Fixed64Type {
			return errUnsupported
		}
		v.SetDouble(math.Float64frombits(f.u))
	case 5: // ArrayValue{values = 1}
		if f.typ != protowire.BytesType {
			return errUnsupported
		}
		s := v.SetEmptySlice()
		n, err := count(f.data(), 1)
		if err != nil {
			return err
		}
		// The ArrayValue is one nested message more, its values the next.
		if d.depth += 2; d.depth-1 >= MaxDepth {
			return ErrTooDeep
		}
		s.EnsureCapacity(n)
		e := fields(f.data())
		for e.next() {
			if e.num != 1 || e.typ != protowire.BytesType {
				return errUnsupported
			}
			if err := d.value(s.AppendEmpty(), e.data()); err != nil {
				return err
			}
		}
		if e.bad {
			return errUnsupported
		}
		d.depth -= 2
	case 6: // KeyValueList{values = 1}
		if f.typ != protowire.BytesType {
			return errUnsupported
		}
		m := v.SetEmptyMap()
		var kvs repeated
		e := fields(f.data())
		for e.next() {
			if e.num != 1 || e.typ != protowire.BytesType {
				return errUnsupported
			}
			kvs.add(e.lo, e.hi)
		}
		if e.bad {
			return errUnsupported
		}
		// The KeyValueList is one nested message more, its KeyValues the
		// next.
		if d.depth += 2; d.depth-1 >= MaxDepth {
			return ErrTooDeep
		}
		if err := d.attributes(m, f.data(), 1, &kvs); err != nil {
			return err
		}
		d.depth -= 2
	case 7:
		if f.typ != protowire.BytesType {
			return errUnsupported
		}
		v.SetEmptyBytes().FromRaw(f.data())
	default:
		return errUnsupported
	}
	return nil
}
