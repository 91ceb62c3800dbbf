package otlpwire

import (
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// request is one OTLP export request type the codec decodes: the pointer
// type gRPC hands to Unmarshal, which signal it carries, and how to decode
// it into a value of the message type.
type request struct {
	typ    reflect.Type
	signal int // index into Codec.stats
	decode func(d *decoder, buf []byte) (reflect.Value, error)
}

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

// origType returns the type of the first field of a pdata wrapper such as
// ptrace.Traces or ptraceotlp.ExportRequest: the pointer to the protobuf
// message it wraps.
func origType(wrapper any) (reflect.Type, error) {
	t := reflect.TypeOf(wrapper)
	if t.Kind() != reflect.Struct || t.NumField() == 0 || t.Field(0).Name != "orig" || t.Field(0).Type.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("otlpwire: %s does not wrap its message as expected", t)
	}
	return t.Field(0).Type, nil
}

// newRequest describes the request that exportRequest wraps, decoded into
// the data type that data is: both must wrap the same message. gRPC hands
// the codec a new, empty message to fill; the request's decode builds the
// data with pdata's API and returns its message, which the codec copies
// into gRPC's (a struct of slice headers: the data is not copied).
func newRequest[D any](signal int, exportRequest any, data D, decode func(*decoder, []byte) (D, error)) (request, error) {
	rt, err := origType(exportRequest)
	if err != nil {
		return request{}, err
	}
	dt, err := origType(data)
	if err != nil {
		return request{}, err
	}
	if rt != dt {
		return request{}, fmt.Errorf("otlpwire: %T wraps %s, the request is %s", data, dt, rt)
	}
	return request{typ: rt, signal: signal, decode: func(d *decoder, buf []byte) (reflect.Value, error) {
		out, err := decode(d, buf)
		if err != nil {
			return reflect.Value{}, err
		}
		p := reflect.ValueOf(out).Field(0).UnsafePointer()
		return reflect.NewAt(rt.Elem(), p).Elem(), nil
	}}, nil
}

// NewGRPCCodec returns a gRPC codec named "proto" that wraps delegate
// (gRPC's "proto" codec: pdata's, which wraps the default one) and
// decodes OTLP export requests with this package when fast is set, and
// everything else, and every request the fast path declines, with
// delegate. Off, it only counts the requests (all in Stats.Pdata).
// Nothing is installed: gRPC's codec registry is process-wide, and the
// caller decides (encoding.RegisterCodecV2).
func NewGRPCCodec(delegate encoding.CodecV2, fast bool) (*Codec, error) {
	if inner, ok := delegate.(*Codec); ok {
		delegate = inner.delegate // installed twice: wrap only once
	}
	c := &Codec{delegate: delegate, enabled: fast}
	var err error
	var rs [3]request
	if rs[0], err = newRequest(0, ptraceotlp.NewExportRequest(), ptrace.NewTraces(), (*decoder).traces); err != nil {
		return nil, err
	}
	if rs[1], err = newRequest(1, pmetricotlp.NewExportRequest(), pmetric.NewMetrics(), (*decoder).metrics); err != nil {
		return nil, err
	}
	if rs[2], err = newRequest(2, plogotlp.NewExportRequest(), plog.NewLogs(), (*decoder).logs); err != nil {
		return nil, err
	}
	c.requests = rs[:]
	return c, nil
}

// StatsOf returns the counters of one signal: "traces", "metrics" or
// "logs"; nil for any other name.
func (c *Codec) StatsOf(signal string) *Stats { return statsOf(&c.stats, signal) }

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

// Codec decodes OTLP export requests with the fast decoder and hands
// everything else, and every request the fast path declines, to the codec
// it wraps. Its methods are safe for concurrent use, as gRPC requires.
type Codec struct {
	delegate encoding.CodecV2
	enabled  bool // the fast path is on
	requests []request
	stats    [3]Stats
	guesses  [3]sizeGuess    // per signal, the size of the next request
	marshals [3]MarshalStats // per signal, how requests were encoded
}

var _ encoding.CodecV2 = (*Codec)(nil)

// Name is the name of the codec it replaces: "proto".
func (c *Codec) Name() string { return "proto" }

// Marshal encodes an OTLP export request (what an exporter sends) into a
// buffer of the guessed size when the fast path is on (marshal.go), and
// everything else with the wrapped codec.
func (c *Codec) Marshal(v any) (mem.BufferSlice, error) {
	if c.enabled {
		if r, ok := c.requestOf(v); ok {
			if m, ok := v.(protoMessage); ok {
				return marshal(m, &c.guesses[r.signal], &c.marshals[r.signal]), nil
			}
		}
	}
	return c.delegate.Marshal(v)
}

// MarshalStatsOf returns how the requests of one signal were encoded:
// "traces", "metrics" or "logs"; nil for any other name.
func (c *Codec) MarshalStatsOf(signal string) *MarshalStats {
	if i := signalIndex(signal); i >= 0 {
		return &c.marshals[i]
	}
	return nil
}

// Unmarshal decodes an OTLP export request with the fast path when it is
// on and accepts the request, else, unless the request is too deep for
// it (ErrTooDeep: refused), with the wrapped codec.
func (c *Codec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := c.requestOf(v)
	if !ok {
		return c.delegate.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(bufferPool)
	err := c.fast(r, buf.ReadOnlyData(), v)
	buf.Free()
	if err == nil {
		c.stats[r.signal].Fast.Add(1)
		return nil
	}
	if refused(err) {
		return err
	}
	c.stats[r.signal].Pdata.Add(1)
	return c.delegate.Unmarshal(data, v)
}

// requestOf returns the OTLP export request whose message v is.
func (c *Codec) requestOf(v any) (request, bool) {
	t := reflect.TypeOf(v)
	for _, r := range c.requests {
		if r.typ == t {
			return r, true
		}
	}
	return request{}, false
}

// fast decodes buf into v with the fast path when it is on: nil when it
// did, ErrTooDeep when the request is refused, another error when it is
// left to pdata's decoder. Off, it only checks the request's depth, which
// pdata's decoder does not bound.
func (c *Codec) fast(r request, buf []byte, v any) error {
	if !c.enabled {
		if err := checkDepth(buf, r.signal); err != nil {
			return err
		}
		return errUnsupported
	}
	msg, err := guarded(buf, r.decode)
	if err == nil {
		reflect.ValueOf(v).Elem().Set(msg)
		return nil
	}
	if refused(err) {
		return err
	}
	// Declined, perhaps before reaching a deep value: checked before
	// pdata's decoder reads it.
	if err := checkDepth(buf, r.signal); err != nil {
		return err
	}
	return err
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
