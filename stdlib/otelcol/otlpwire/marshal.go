package otlpwire

import (
	"runtime"
	"sync/atomic"

	"google.golang.org/grpc/mem"
)

// Encoding an export request (what an OTLP exporter sends).
//
// pdata's gRPC codec walks a request twice: SizeProto for the length of
// the buffer, then MarshalProto, which writes backwards from the end of
// the buffer it is given. The exporter's sending queue has already walked
// the same request once more to size it (exporterhelper's obsQueue calls
// BytesSize on every Offer), so a batch of small items is sized twice and
// written once. Backwards writing makes the size unnecessary when the
// buffer is large enough: the bytes land at its end, identical to those of
// an exactly sized buffer. The codec therefore keeps, per request type, a
// guess of the next request's size (the largest of the last ones, decaying
// slowly), writes into a pooled buffer that large, and moves the bytes to
// its front. When the guess is short, MarshalProto runs off the start of
// the buffer, which Go's bounds checks turn into a runtime error before
// anything outside it is touched (pdata's generated encoders use no
// unsafe code); the codec then sizes the request as pdata does.

// protoMessage is what pdata's OTLP messages implement, and what its gRPC
// codec relies on as well.
type protoMessage interface {
	SizeProto() int
	MarshalProto([]byte) int
}

// MarshalStats counts how the requests of one signal were encoded.
type MarshalStats struct {
	// Guessed is how many were written into a buffer of the guessed size.
	Guessed atomic.Uint64
	// Sized is how many were sized first: the first of each type, those
	// longer than the guess, and all of them with the fast path off.
	Sized atomic.Uint64
}

// sizeGuess is the size the next request of one type is expected to be
// at most.
type sizeGuess struct{ n atomic.Int64 }

// next records that a request of n bytes was written.
func (g *sizeGuess) next(n int) {
	old := g.n.Load()
	switch {
	case int64(n) >= old:
		g.n.Store(int64(n))
	default:
		// Decay by 1/16 of the difference: a run of smaller batches (a
		// batch processor's timeouts) brings the guess down within tens
		// of requests; one full batch brings it back up at once.
		g.n.Store(old - (old-int64(n))/16)
	}
}

// guessedCapacity returns the capacity to write a request of about guess
// bytes into: guess plus an eighth, or the whole tier guess falls in when
// the eighth would cross into the next tier (a larger tier is a larger
// buffer held while the request is sent).
func guessedCapacity(guess int) int {
	want := guess + guess/8 + 64
	for _, t := range bufferTiers {
		if guess <= t {
			if want > t {
				return t
			}
			return want
		}
	}
	return want
}

// marshal encodes m, a request of the type whose guess is g.
func marshal(m protoMessage, g *sizeGuess, st *MarshalStats) mem.BufferSlice {
	if guess := int(g.n.Load()); guess > 0 {
		buf := bufferPool.Get(guessedCapacity(guess))
		if n, ok := marshalBackwards(m, *buf); ok {
			b := *buf
			copy(b, b[len(b)-n:])
			*buf = b[:n]
			g.next(n)
			st.Guessed.Add(1)
			return mem.BufferSlice{mem.NewBuffer(buf, bufferPool)}
		}
		bufferPool.Put(buf)
	}
	size := m.SizeProto()
	buf := bufferPool.Get(size)
	n := m.MarshalProto(*buf)
	*buf = (*buf)[:n]
	g.next(n)
	st.Sized.Add(1)
	return mem.BufferSlice{mem.NewBuffer(buf, bufferPool)}
}

// marshalBackwards writes m at the end of buf and returns its length, or
// false when buf is too short (the encoder indexed before its start).
func marshalBackwards(m protoMessage, buf []byte) (n int, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if _, bounds := p.(runtime.Error); !bounds {
				panic(p)
			}
			n, ok = 0, false
		}
	}()
	return m.MarshalProto(buf), true
}
