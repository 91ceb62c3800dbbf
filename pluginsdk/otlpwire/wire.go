package otlpwire

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"google.golang.org/protobuf/encoding/protowire"
)

// errUnsupported reports input this decoder leaves to pdata's own: a field
// it does not know, a wire type it does not expect, a duplicate attribute
// key. The caller falls back; it is never an error to the client.
var errUnsupported = errors.New("otlpwire: not handled by the fast path")

// cursor walks the fields of one message. After next returns true, num,
// typ and either u (varint and fixed types) or data() (length-delimited)
// hold the field just read. next writes only integers: a cursor lives on
// its caller's stack, and writing slices through a pointer to it would cost
// a write barrier on every field while the garbage collector marks.
type cursor struct {
	buf    []byte
	pos    int
	num    protowire.Number
	typ    protowire.Type
	u      uint64
	lo, hi int // a length-delimited payload is buf[lo:hi]
	bad    bool
}

func fields(b []byte) cursor { return cursor{buf: b} }

// data returns the payload of the length-delimited field just read.
func (c *cursor) data() []byte { return c.buf[c.lo:c.hi] }

// field is the field just read, as a value: what list hands to the
// decoder of a message's other fields (a pointer to the cursor would move
// it to the heap, one allocation per list).
type field struct {
	num  protowire.Number
	typ  protowire.Type
	u    uint64 // a varint's or a fixed field's value
	data []byte // a length-delimited field's payload
}

// field returns the field just read.
func (c *cursor) field() field {
	f := field{num: c.num, typ: c.typ, u: c.u}
	if c.typ == protowire.BytesType {
		f.data = c.data()
	}
	return f
}

// done reports whether the whole message was read.
func (c *cursor) done() bool { return c.pos == len(c.buf) }

// next reads the next field. It returns false at the end of the message and
// on malformed input, which also sets bad.
func (c *cursor) next() bool {
	pos, buf := c.pos, c.buf
	if uint(pos)+1 >= uint(len(buf)) || buf[pos] >= 0x80 {
		return c.nextSlow()
	}
	tag, b1 := buf[pos], buf[pos+1]
	c.num, c.typ = protowire.Number(tag>>3), protowire.Type(tag&7)
	switch tag & 7 {
	case 2: // bytes
		if hi := pos + 2 + int(b1); b1 < 0x80 && hi <= len(buf) {
			c.lo, c.hi, c.pos = pos+2, hi, hi
			return true
		}
	case 0: // varint
		if b1 < 0x80 {
			c.u, c.pos = uint64(b1), pos+2
			return true
		}
	case 1: // fixed64
		if pos+9 <= len(buf) {
			c.u, c.pos = binary.LittleEndian.Uint64(buf[pos+1:pos+9]), pos+9
			return true
		}
	}
	return c.nextSlow()
}

func (c *cursor) fail() bool {
	c.bad, c.pos = true, len(c.buf)
	return false
}

func (c *cursor) nextSlow() bool {
	b := c.buf[c.pos:]
	if len(b) == 0 {
		return false
	}
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return c.fail()
	}
	c.num, c.typ = num, typ
	at := c.pos + n
	b = b[n:]
	switch typ {
	case protowire.VarintType:
		c.u, n = protowire.ConsumeVarint(b)
	case protowire.BytesType:
		var l uint64
		l, n = protowire.ConsumeVarint(b)
		if n < 0 || l > uint64(len(b)-n) {
			return c.fail()
		}
		c.lo = at + n
		c.hi = c.lo + int(l)
		n += int(l)
	case protowire.Fixed64Type:
		c.u, n = protowire.ConsumeFixed64(b)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(b)
		c.u = uint64(v)
	default:
		return c.fail()
	}
	if n < 0 {
		return c.fail()
	}
	c.pos = at + n
	return true
}

// count returns how many fields numbered num b holds.
func count(b []byte, num protowire.Number) (int, error) {
	n := 0
	c := fields(b)
	for c.next() {
		if c.num == num {
			n++
		}
	}
	if c.bad {
		return 0, errUnsupported
	}
	return n, nil
}

// decoder holds what one request's decoding shares: a small table of the
// strings it made, so that a key or value repeated across items (attribute
// keys, methods, service names) is allocated once, not once per item.
type decoder struct {
	strings *internTable
	u64     []uint64  // scratch for packed fixed64 and varint fields
	f64     []float64 // scratch for packed doubles
	// depth is how many arrays and key-value lists enclose the AnyValue
	// being decoded: its depth (limits.go) less one.
	depth int
}

// begin prepares d for a request.
func (d *decoder) begin() { d.depth = 0 }

// internBits sizes the intern table: 1024 entries.
const internBits = 10

// maxIntern is the longest string the table keeps, so that what it retains
// stays small (at most 1024 × 128 bytes a table).
const maxIntern = 128

type internTable [1 << internBits]string

// str returns b as a string, from the table when the same bytes were seen.
func (d *decoder) str(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if n > maxIntern {
		return string(b)
	}
	var h uint64
	if n >= 8 {
		h = binary.LittleEndian.Uint64(b) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(b[n-8:]), 31)
	} else {
		for _, c := range b {
			h = h<<8 | uint64(c)
		}
	}
	h = (h ^ uint64(n)) * 0x9E3779B97F4A7C15
	slot := &d.strings[h>>(64-internBits)]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}

// err reports whether the walk ended on malformed input.
func (c *cursor) err() error {
	if c.bad {
		return errUnsupported
	}
	return nil
}

// singular tracks the message-typed fields of one message that must appear
// at most once: protobuf merges a repeated occurrence into the first, which
// the fast path leaves to pdata.
type singular uint64

func (s *singular) first(num protowire.Number) error {
	bit := singular(1) << (num & 63)
	if *s&bit != 0 {
		return errUnsupported
	}
	*s |= bit
	return nil
}
