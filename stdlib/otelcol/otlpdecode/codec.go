package otlpdecode

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

// enabled switches the fast path; off, the codec hands every message to
// the codec it wraps.
var enabled atomic.Bool

// SetEnabled turns the fast decoder on or off for the whole process.
func SetEnabled(on bool) { enabled.Store(on) }

// request is one OTLP export request type the codec decodes: the pointer
// type gRPC hands to Unmarshal, and how to decode it into a value of the
// message type.
type request struct {
	typ    reflect.Type
	decode func(d *decoder, buf []byte) (reflect.Value, error)
	stats  *Stats
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

// stats are the codec's counters, by signal.
var stats = map[string]*Stats{"traces": {}, "metrics": {}, "logs": {}}

// StatsOf returns the counters of one signal: "traces", "metrics" or
// "logs"; nil for any other name.
func StatsOf(signal string) *Stats { return stats[signal] }

var (
	registerOnce sync.Once
	registerErr  error
	requests     []request
	decoders     = sync.Pool{New: func() any { return &decoder{strings: new(internTable)} }}
	bufferPool   = mem.NewTieredBufferPool(256, 4<<10, 16<<10, 32<<10, 512<<10, 1<<20, 4<<20, 16<<20)
)

// origType returns the type of the first field of a pdata wrapper such as
// ptrace.Traces or ptraceotlp.ExportRequest: the pointer to the protobuf
// message it wraps.
func origType(wrapper any) (reflect.Type, error) {
	t := reflect.TypeOf(wrapper)
	if t.Kind() != reflect.Struct || t.NumField() == 0 || t.Field(0).Name != "orig" || t.Field(0).Type.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("otlpdecode: %s does not wrap its message as expected", t)
	}
	return t.Field(0).Type, nil
}

// newRequest describes the request that exportRequest wraps, decoded into
// the data type that data is: both must wrap the same message. gRPC hands
// the codec a new, empty message to fill; the request's decode builds the
// data with pdata's API and returns its message, which the codec copies
// into gRPC's (a struct of slice headers: the data is not copied).
func newRequest[D any](signal string, exportRequest any, data D, decode func(*decoder, []byte) (D, error)) (request, error) {
	rt, err := origType(exportRequest)
	if err != nil {
		return request{}, err
	}
	dt, err := origType(data)
	if err != nil {
		return request{}, err
	}
	if rt != dt {
		return request{}, fmt.Errorf("otlpdecode: %T wraps %s, the request is %s", data, dt, rt)
	}
	return request{typ: rt, stats: stats[signal], decode: func(d *decoder, buf []byte) (reflect.Value, error) {
		out, err := decode(d, buf)
		if err != nil {
			return reflect.Value{}, err
		}
		p := reflect.ValueOf(out).Field(0).UnsafePointer()
		return reflect.NewAt(rt.Elem(), p).Elem(), nil
	}}, nil
}

// RegisterGRPCCodec wraps gRPC's "proto" codec (pdata's, which wraps the
// default one) with one that decodes OTLP export requests with this package
// and everything else as before. It is idempotent. The fast path is on
// after the first call; SetEnabled(false) turns it off.
func RegisterGRPCCodec() error {
	registerOnce.Do(func() {
		var err error
		defer func() { registerErr = err }()
		var rs [3]request
		if rs[0], err = newRequest("traces", ptraceotlp.NewExportRequest(), ptrace.NewTraces(), (*decoder).traces); err != nil {
			return
		}
		if rs[1], err = newRequest("metrics", pmetricotlp.NewExportRequest(), pmetric.NewMetrics(), (*decoder).metrics); err != nil {
			return
		}
		if rs[2], err = newRequest("logs", plogotlp.NewExportRequest(), plog.NewLogs(), (*decoder).logs); err != nil {
			return
		}
		requests = rs[:]
		encoding.RegisterCodecV2(&codec{delegate: encoding.GetCodecV2("proto")})
		enabled.Store(true)
	})
	return registerErr
}

// codec decodes OTLP export requests with the fast decoder and hands
// everything else, and every request the fast path declines, to the codec
// it wraps.
type codec struct {
	delegate encoding.CodecV2
}

func (c *codec) Name() string { return "proto" }

func (c *codec) Marshal(v any) (mem.BufferSlice, error) { return c.delegate.Marshal(v) }

func (c *codec) Unmarshal(data mem.BufferSlice, v any) error {
	t := reflect.TypeOf(v)
	for _, r := range requests {
		if r.typ != t {
			continue
		}
		if enabled.Load() && c.fast(r, data, v) {
			r.stats.Fast.Add(1)
			return nil
		}
		r.stats.Pdata.Add(1)
		break
	}
	return c.delegate.Unmarshal(data, v)
}

// fast decodes data into v and reports whether it did. A panic in the fast
// path (a bug: the tests and fuzzing look for them) is logged once and
// leaves the request to pdata rather than taking the process down.
func (c *codec) fast(r request, data mem.BufferSlice, v any) (ok bool) {
	buf := data.MaterializeToBuffer(bufferPool)
	defer buf.Free()
	d := decoders.Get().(*decoder)
	defer func() {
		if p := recover(); p != nil {
			panicOnce.Do(func() {
				slog.Error("OTLP fast decoding panicked; the request goes to pdata's decoder", "panic", p, "stack", string(debug.Stack()))
			})
			ok = false
			return
		}
		decoders.Put(d)
	}()
	msg, err := r.decode(d, buf.ReadOnlyData())
	if err != nil {
		return false
	}
	reflect.ValueOf(v).Elem().Set(msg)
	return true
}

var panicOnce sync.Once
