package wire

import (
	"encoding/binary"

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
