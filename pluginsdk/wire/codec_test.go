package wire

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// TestCodecIsProto checks that a Frame the codec writes is the bytes the
// standard codec writes and reads, both ways, so that a peer built with
// the standard codec understands it.
func TestCodecIsProto(t *testing.T) {
	std := encoding.GetCodecV2(proto.Name)
	for _, n := range []int{0, 1, 127, 128, 300_000} {
		value := bytes.Repeat([]byte{7}, n)
		ours, err := Codec{}.Marshal(&Frame{Value: value})
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := std.Marshal(&Frame{Value: value})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours.Materialize(), theirs.Materialize()) {
			t.Fatalf("%d bytes: the codec writes %x..., the standard codec %x...", n, head(ours.Materialize()), head(theirs.Materialize()))
		}
		var back Frame
		if err := (Codec{}).Unmarshal(theirs, &back); err != nil || !bytes.Equal(back.Value, value) {
			t.Fatalf("%d bytes: read back %d bytes, err %v", n, len(back.Value), err)
		}
		var std2 Frame
		if err := std.Unmarshal(ours, &std2); err != nil || !bytes.Equal(std2.Value, value) {
			t.Fatalf("%d bytes: the standard codec read %d bytes, err %v", n, len(std2.Value), err)
		}
	}
}

// TestCodecCopiesOnRead checks that a received Frame does not alias the
// transport's buffers, which gRPC reuses once Unmarshal returns.
func TestCodecCopiesOnRead(t *testing.T) {
	raw := append([]byte{0x0a, 3}, 'a', 'b', 'c')
	var f Frame
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(raw)}, &f); err != nil {
		t.Fatal(err)
	}
	raw[2] = 'x'
	if string(f.Value) != "abc" {
		t.Fatalf("the frame changed with the transport's buffer: %q", f.Value)
	}
}

func TestOutputsRoundTrip(t *testing.T) {
	signals := []string{"traces", "logs", "metrics"}
	batches := [][]byte{[]byte("t1"), nil, bytes.Repeat([]byte{1}, 1000)}
	var gotSig []string
	var got [][]byte
	err := DecodeOutputs(EncodeOutputs(nil, signals, batches), func(s string, b []byte) error {
		gotSig, got = append(gotSig, s), append(got, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(gotSig) != fmt.Sprint(signals) || len(got) != 3 || !bytes.Equal(got[2], batches[2]) || len(got[1]) != 0 {
		t.Fatalf("got %v %v", gotSig, got)
	}
	for _, bad := range [][]byte{{9, 0}, {0, 5, 1}, {0}} {
		if err := DecodeOutputs(bad, func(string, []byte) error { return nil }); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
}

func head(b []byte) []byte {
	if len(b) > 8 {
		return b[:8]
	}
	return b
}
