package otlpwire

import (
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Stats counts the requests of one signal the codec saw.
type Stats struct {
	// Fast is how many requests the fast path decoded.
	Fast atomic.Uint64
	// Pdata is how many pdata's decoder decoded: all of them when the fast
	// path is off, else those it declined (a repeated attribute key, a field
	// it does not know, malformed input, which pdata then accepts or rejects).
	Pdata atomic.Uint64
}

// signalNames names the signals of Codec.stats, in order.
var signalNames = [3]string{"traces", "metrics", "logs"}

var (
	decoders = sync.Pool{New: func() any { return &decoder{strings: new(internTable)} }}
)

func statsOf(stats *[3]Stats, signal string) *Stats {
	if i := signalIndex(signal); i >= 0 {
		return &stats[i]
	}
	return nil
}

// signalIndex returns the index of signal in signalNames, -1 if it is not
// one of them.
func signalIndex(signal string) int {
	for i, s := range signalNames {
		if s == signal {
			return i
		}
	}
	return -1
}

// guarded decodes buf with decode and a pooled decoder. A panic in the
// fast path (a bug: the tests and fuzzing look for them) is logged once
// and leaves the request to pdata (errUnsupported) rather than taking the
// process down.
func guarded[T any](buf []byte, decode func(*decoder, []byte) (T, error)) (out T, err error) {
	d := decoders.Get().(*decoder)
	defer func() {
		if p := recover(); p != nil {
			panicOnce.Do(func() {
				slog.Error("OTLP fast decoding panicked; the request goes to pdata's decoder", "panic", p, "stack", string(debug.Stack()))
			})
			var zero T
			out, err = zero, errUnsupported
			return
		}
		decoders.Put(d)
	}()
	out, err = decode(d, buf)
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

var panicOnce sync.Once
