package decode

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

// fuzzArgs has a field of every kind and hook Decode handles.
type fuzzArgs struct {
	kinds  `lua:",squash"`
	common `lua:",squash"`
	Batch  batch               `lua:"batch"`
	Sel    selectors           `lua:"sel"`
	Tree   tree                `lua:"tree"`
	Queues map[string]*queue   `lua:"queues"`
	Lists  map[string][]uint16 `lua:"lists"`
	PP     **int32             `lua:"pp"`
	Out    dataplane.Output    `lua:"output"`
	Whole  *wholeTable         `lua:"whole"`
	Modes  []Mode              `lua:"modes" enum:"a,b"`
	Nested [][]float32         `lua:"nested"`
	Chan   chan int            `lua:"chan"`
}

// fuzzWords are the strings fuzz values are mostly made of, so that they
// hit field names, enums and durations.
var fuzzWords = []string{
	"", "s", "b", "i", "i8", "i64", "u8", "u64", "f32", "f", "d", "l", "m", "p", "a", "c", "cl", "e", "el",
	"named", "tls", "ptr", "rules", "endpoint", "timeout", "batch", "sel", "tree", "queues", "lists", "pp",
	"output", "traces", "metrics", "logs", "whole", "modes", "nested", "chan", "insecure", "ca_file",
	"min_version", "name", "action", "children", "next", "by_key", "one", "many", "val", "key", "value",
	"send_batch_size", "queue", "retry", "sizes", "by_name", "enabled", "num_consumers",
	"gzip", "zstd", "none", "keep", "drop", "1.2", "1.3", "200ms", "1m30s", "2 seconds", "-5s", "ok",
}

// fuzzTypes are the types of fuzz placeholders.
var fuzzTypes = []reflect.Type{
	nil, reflect.TypeFor[string](), reflect.TypeFor[float64](), reflect.TypeFor[bool](), reflect.TypeFor[int](),
	reflect.TypeFor[[]string](), reflect.TypeFor[map[string]string](), consumerType,
	reflect.TypeFor[consumer.Traces](), reflect.TypeFor[time.Duration](), reflect.TypeFor[tlsConfig](),
	reflect.TypeFor[any](), reflect.TypeFor[[]dataplane.Consumer](), reflect.TypeFor[*queue](),
}

// fuzzGoValues are Go values components could export.
var fuzzGoValues = []any{
	nop, 7, uint8(200), float32(1.5), Mode("a"), []string{"x"}, []string(nil), map[string]int{"k": 1},
	map[string]string(nil), 5 * time.Second, time.Time{}, (*tlsConfig)(nil), &queue{}, (*script.Placeholder)(nil),
	[]dataplane.Consumer{nop, nil}, errors.New("e"), make(chan int), struct{}{},
}

// fuzzValue builds a script value from fuzz bytes.
type fuzzValue struct{ b []byte }

func (f *fuzzValue) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzValue) word() string { return fuzzWords[int(f.byte())%len(fuzzWords)] }

func (f *fuzzValue) value(depth int) any {
	op := f.byte() % 12
	if depth > 6 && op >= 6 {
		op %= 6
	}
	switch op {
	case 0:
		return nil
	case 1:
		return f.byte()%2 == 0
	case 2:
		return float64(int8(f.byte()))
	case 3:
		var raw [8]byte
		for i := range raw {
			raw[i] = f.byte()
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(raw[:]))
	case 4:
		return f.word()
	case 5:
		n := int(f.byte() % 16)
		if n > len(f.b) {
			n = len(f.b)
		}
		s := string(f.b[:n])
		f.b = f.b[n:]
		return s
	case 6, 7:
		list := make([]any, f.byte()%5)
		for i := range list {
			list[i] = f.value(depth + 1)
		}
		return list
	case 8, 9:
		n := int(f.byte() % 5)
		m := make(map[string]any, n)
		for range n {
			m[f.word()] = f.value(depth + 1)
		}
		return m
	case 10:
		return &script.Placeholder{Type: fuzzTypes[int(f.byte())%len(fuzzTypes)], From: f.word()}
	default:
		return fuzzGoValues[int(f.byte())%len(fuzzGoValues)]
	}
}

// FuzzDecode decodes values built from fuzz bytes into fuzzArgs: Decode
// must not panic, must return nil or sorted Errors, and must give the
// same errors twice.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{8, 3, 4, 1, 2, 4, 15, 10, 7, 4, 24, 4, 1})
	f.Add([]byte{9, 4, 4, 25, 8, 2, 4, 33, 1, 0, 4, 34, 6, 3, 11, 0, 10, 7, 0})
	f.Add([]byte{8, 4, 4, 27, 8, 3, 4, 50, 6, 2, 8, 1, 4, 55, 4, 56, 4, 49, 8, 1, 4, 48, 3, 1, 2, 3, 4, 5, 6, 7, 8, 4, 60, 10, 5, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		fv := &fuzzValue{b: data}
		v := fv.value(0)
		var a, b fuzzArgs
		errA := Decode(v, &a)
		errB := Decode(v, &b)
		if errA == nil {
			if errB != nil {
				t.Fatalf("second decode failed: %v", errB)
			}
			return
		}
		if errB == nil || errA.Error() != errB.Error() {
			t.Fatalf("decoding twice differs:\n%v\n%v", errA, errB)
		}
		var es Errors
		if !errors.As(errA, &es) || len(es) == 0 {
			t.Fatalf("error is not Errors: %#v", errA)
		}
		for i, e := range es {
			if e.Message == "" {
				t.Errorf("empty message at %q", e.Path)
			}
			if i > 0 && comparePaths(es[i-1].Path, e.Path) > 0 {
				t.Errorf("errors not sorted: %q before %q", es[i-1].Path, e.Path)
			}
		}
	})
}
