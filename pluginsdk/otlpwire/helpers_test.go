package otlpwire

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func bytesField(num protowire.Number, payload []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), payload)
}

// keyValue encodes a KeyValue with a string value.
func keyValue(k, v string) []byte {
	return append(bytesField(1, []byte(k)), bytesField(2, bytesField(1, []byte(v)))...)
}

// TestPanicFallsBack checks that a panic in the fast path leaves the
// request to pdata instead of taking the process down.
func TestPanicFallsBack(t *testing.T) {
	_, err := guarded([]byte{1}, func(*decoder, []byte) (int, error) { panic("a bug") })
	if err == nil || refused(err) {
		t.Fatalf("fast after a panic: %v, want the request left to pdata", err)
	}
}
