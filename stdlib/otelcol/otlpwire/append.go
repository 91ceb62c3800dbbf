package otlpwire

import (
	"reflect"
	"slices"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// AppendRequest appends to dst the protobuf encoding of the export
// request that data (a ptrace.Traces, pmetric.Metrics or plog.Logs) wraps:
// the bytes pdata's ProtoMarshaler returns for it, written into dst's
// room instead of a new buffer. It reports false, leaving dst as it was,
// for any other value. The batch processor encodes the requests it keeps
// encoded with it (third_party/batchprocessor), into buffers it reuses:
// as the codec does (marshal.go), a request that fits the room dst has
// left is written there without being sized first; a larger one is
// sized, and dst grows.
func AppendRequest(dst []byte, data any) ([]byte, bool) {
	m, ok := wrappedMessage(data)
	if !ok {
		return dst, false
	}
	if room := dst[len(dst):cap(dst)]; len(room) > 0 {
		if n, ok := marshalBackwards(m, room); ok {
			copy(room, room[len(room)-n:])
			return dst[:len(dst)+n], true
		}
	}
	size := m.SizeProto()
	dst = slices.Grow(dst, size)
	end := len(dst) + size
	m.MarshalProto(dst[len(dst):end]) // fills it: pdata writes backwards from its end
	return dst[:end], true
}

// wrappedMessage returns the protobuf message data wraps.
func wrappedMessage(data any) (protoMessage, bool) {
	var t reflect.Type
	switch data.(type) {
	case ptrace.Traces:
		t = wrappedTypes[0]
	case pmetric.Metrics:
		t = wrappedTypes[1]
	case plog.Logs:
		t = wrappedTypes[2]
	default:
		return nil, false
	}
	if t == nil {
		return nil, false
	}
	p := reflect.ValueOf(data).Field(0).UnsafePointer()
	m, ok := reflect.NewAt(t.Elem(), p).Interface().(protoMessage)
	return m, ok && p != nil
}

// wrappedTypes are the message pointer types ptrace.Traces,
// pmetric.Metrics and plog.Logs wrap; nil if pdata's layout changed, and
// AppendRequest then reports false.
var wrappedTypes = func() (ts [3]reflect.Type) {
	for i, w := range []any{ptrace.NewTraces(), pmetric.NewMetrics(), plog.NewLogs()} {
		if t, err := origType(w); err == nil {
			ts[i] = t
		}
	}
	return ts
}()
