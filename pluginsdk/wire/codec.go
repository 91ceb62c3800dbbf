package wire

import (
	"encoding/binary"
	"math"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// Codec is the gRPC codec of both sides of the protocol. A Frame goes on
// the wire as the protobuf BytesValue it is, but without the standard
// codec's two copies each way: its bytes (a whole OTLP batch) are sent
// as they are, behind a header of a few bytes, and a received Frame
// holds one copy of its bytes. Every other message (go-plugin's own
// services) goes through the standard codec. Its name is "proto", so a
// peer with the standard codec reads and writes the same bytes.
type Codec struct{}

// Name implements encoding.CodecV2.
func (Codec) Name() string { return proto.Name }

func standard() encoding.CodecV2 { return encoding.GetCodecV2(proto.Name) }

// Marshal implements encoding.CodecV2.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	f, ok := v.(*Frame)
	if !ok {
		return standard().Marshal(v)
	}
	if len(f.Value) == 0 {
		return nil, nil
	}
	// Field 1, wire type 2 (length-delimited), then the length.
	header := binary.AppendUvarint([]byte{0x0a}, uint64(len(f.Value)))
	return mem.BufferSlice{mem.SliceBuffer(header), mem.SliceBuffer(f.Value)}, nil
}

// Unmarshal implements encoding.CodecV2.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*Frame)
	if !ok {
		return standard().Unmarshal(data, v)
	}
	b := data.Materialize()
	if len(b) == 0 {
		f.Value = nil
		return nil
	}
	if b[0] == 0x0a {
		if n, k := binary.Uvarint(b[1:]); k > 0 && uint64(len(b)-1-k) == n {
			f.Value = b[1+k:]
			return nil
		}
	}
	// Anything else a BytesValue may be encoded as.
	return standard().Unmarshal(data, v)
}

// window is the HTTP/2 flow-control window of the connections between
// flowlua and a plugin, per stream and per connection: larger than a
// batch, so that a batch crosses in one go instead of waiting for window
// updates (gRPC starts at 64 KiB and grows it only as it measures the
// link), and the socket's buffer size for each read and write.
const (
	window     = 16 << 20
	bufferSize = 1 << 20
)

// DialOptions are the options of a connection to the other side.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithInitialWindowSize(window),
		grpc.WithInitialConnWindowSize(window),
		grpc.WithReadBufferSize(bufferSize),
		grpc.WithWriteBufferSize(bufferSize),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32)),
	}
}

// ServerOptions are the options of a server the other side connects to:
// those of DialOptions, no cap on the size of what it receives (batches
// are as large as the sender's), and Codec.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.InitialWindowSize(window),
		grpc.InitialConnWindowSize(window),
		grpc.ReadBufferSize(bufferSize),
		grpc.WriteBufferSize(bufferSize),
		grpc.MaxRecvMsgSize(math.MaxInt32),
		grpc.ForceServerCodecV2(Codec{}),
	}
}
