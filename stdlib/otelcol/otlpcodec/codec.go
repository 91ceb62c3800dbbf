// Package otlpcodec replaces the gRPC "proto" codec that pdata registers
// with one that marshals and unmarshals OTLP messages with the same pdata
// code but without clearing the pooled buffers it uses.
//
// pdata's codec takes its buffers from gRPC's tiered pool, which clears a
// buffer's whole capacity on every Get: a 4.2 MB batch of spans is
// marshalled into a 16 MB buffer that is cleared first, and a 90 KB request
// is copied into a cleared 512 KB one before it is unmarshalled. Neither
// needs the clearing: the marshaller writes every byte it returns, and a
// received message is copied over the bytes it is read from. This codec
// keeps power-of-two tiers that are not cleared, and unmarshals a message
// that arrived in one buffer where it is, without copying it; pdata copies
// every string and byte field out of the input, so nothing refers to a
// buffer once Unmarshal returns.
//
// Importing the package registers the codec; messages that are not OTLP
// go to the codec registered before it.
package otlpcodec

import (
	"fmt"
	"math/bits"
	"sync"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// Name is the name of the codec: it replaces gRPC's default.
const Name = "proto"

// The otlp packages register pdata's codec in their init; importing them
// here makes that happen before this package's init replaces it.
var (
	_ = ptraceotlp.NewExportRequest
	_ = pmetricotlp.NewExportRequest
	_ = plogotlp.NewExportRequest
)

func init() {
	encoding.RegisterCodecV2(&Codec{fallback: encoding.GetCodecV2(Name)})
}

// message is what pdata's OTLP request and response types implement.
type message interface {
	SizeProto() int
	MarshalProto(buf []byte) int
	UnmarshalProto(buf []byte) error
}

// Codec is the gRPC codec for OTLP messages; others go to fallback.
type Codec struct {
	fallback encoding.CodecV2
}

// Name is the content subtype the codec serves.
func (c *Codec) Name() string { return Name }

// Marshal encodes an OTLP message into a pooled buffer.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(message)
	if !ok {
		return c.fallback.Marshal(v)
	}
	size := m.SizeProto()
	if mem.IsBelowBufferPoolingThreshold(size) {
		buf := make([]byte, size)
		if err := marshal(m, buf); err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(buf)}, nil
	}
	buf := pool.Get(size)
	if err := marshal(m, *buf); err != nil {
		pool.Put(buf)
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// marshal encodes m into buf, which is exactly m.SizeProto() long. pdata
// writes from the end of buf backwards; a shorter encoding would leave
// stale bytes in front, so it is an error rather than sent.
func marshal(m message, buf []byte) error {
	if n := m.MarshalProto(buf); n != len(buf) {
		return fmt.Errorf("otlpcodec: %T encoded to %d bytes, its size said %d", m, n, len(buf))
	}
	return nil
}

// Unmarshal decodes an OTLP message, in place when it arrived in one
// buffer, else from a pooled copy.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(message)
	if !ok {
		return c.fallback.Unmarshal(data, v)
	}
	if len(data) == 1 {
		return m.UnmarshalProto(data[0].ReadOnlyData())
	}
	buf := data.MaterializeToBuffer(pool)
	defer buf.Free()
	return m.UnmarshalProto(buf.ReadOnlyData())
}

// Pool returns the pool the codec takes its buffers from.
func Pool() mem.BufferPool { return pool }

var pool = &dirtyPool{}

const (
	minShift = 12 // 4 KiB: below, gRPC does not pool buffers at all
	maxShift = 26 // 64 MiB: above, buffers are allocated and dropped
)

// dirtyPool is a mem.BufferPool of power-of-two tiers that hands out
// buffers as they were left: every user here overwrites what it asks for.
type dirtyPool struct {
	tiers [maxShift - minShift + 1]sync.Pool
}

// tier returns the index of the smallest tier that holds size bytes.
func tier(size int) int {
	if size <= 1<<minShift {
		return 0
	}
	return bits.Len(uint(size-1)) - minShift
}

// Get returns a buffer of length size.
func (p *dirtyPool) Get(size int) *[]byte {
	if size > 1<<maxShift {
		b := make([]byte, size)
		return &b
	}
	t := tier(size)
	if b, ok := p.tiers[t].Get().(*[]byte); ok {
		*b = (*b)[:size]
		return b
	}
	b := make([]byte, size, 1<<(t+minShift))
	return &b
}

// Put returns a buffer that Get made to its tier.
func (p *dirtyPool) Put(b *[]byte) {
	c := cap(*b)
	if c < 1<<minShift || c > 1<<maxShift || c&(c-1) != 0 {
		return
	}
	p.tiers[bits.Len(uint(c))-1-minShift].Put(b)
}
