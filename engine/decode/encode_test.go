package decode

import (
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"
)

type encInner struct {
	Insecure bool          `lua:"insecure"`
	Timeout  time.Duration `lua:"timeout"`
}

type encSquashed struct {
	Region string `lua:"region"`
}

type encConsumer struct{ name string }

type encArgs struct {
	Endpoint    string            `lua:"endpoint"`
	Password    string            `lua:"password" secret:"true"`
	Unset       string            `lua:"unset" secret:"true"`
	Port        uint16            `lua:"port"`
	Ratio       float32           `lua:"ratio"`
	TLS         *encInner         `lua:"tls"`
	NoTLS       *encInner         `lua:"no_tls"`
	Headers     map[string]string `lua:"headers"`
	Tags        []string          `lua:"tags"`
	Empty       []string          `lua:"empty"`
	Outputs     []any             `lua:"outputs"`
	Raw         []byte            `lua:"raw"`
	IP          net.IP            `lua:"ip"`
	Func        func()            `lua:"func"`
	ByInt       map[int]string    `lua:"by_int"`
	Any         any               `lua:"any"`
	encSquashed `lua:",squash"`
	hidden      string
}

type jsonOnly struct{ n int }

func (j jsonOnly) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"n": j.n, "token": "tok-123"})
}

func TestEncode(t *testing.T) {
	c := &encConsumer{name: "batch"}
	args := encArgs{
		Endpoint:    "localhost:4317",
		Password:    "hunter2",
		Port:        4317,
		Ratio:       0.5,
		TLS:         &encInner{Insecure: true, Timeout: 200 * time.Millisecond},
		Headers:     map[string]string{"authorization": "Bearer tok-123"},
		Tags:        []string{"a", "b"},
		Outputs:     []any{c, &encConsumer{}, jsonOnly{n: 2}},
		Raw:         []byte("raw"),
		IP:          net.ParseIP("127.0.0.1"),
		Func:        func() {},
		ByInt:       map[int]string{1: "x"},
		Any:         map[string]any{"k": []int{1}},
		encSquashed: encSquashed{Region: "eu"},
		hidden:      "no",
	}
	got := Encode(args, EncodeOptions{
		Describe: func(v any) (string, bool) {
			if v == any(c) {
				return "<otelcol.processor.batch.default.input>", true
			}
			return "", false
		},
		Secret: func(s string) bool { return strings.Contains(s, "tok-123") },
	})
	want := map[string]any{
		"endpoint": "localhost:4317",
		"password": Redacted,
		"unset":    "",
		"port":     float64(4317),
		"ratio":    0.5,
		"tls":      map[string]any{"insecure": true, "timeout": "200ms"},
		"no_tls":   nil,
		"headers":  map[string]any{"authorization": Redacted},
		"tags":     []any{"a", "b"},
		"empty":    []any{},
		"outputs": []any{
			"<otelcol.processor.batch.default.input>",
			"<*decode.encConsumer>",
			map[string]any{"n": float64(2), "token": Redacted},
		},
		"raw":    "raw",
		"ip":     "127.0.0.1",
		"func":   "<func()>",
		"by_int": "<map[int]string>",
		"any":    map[string]any{"k": []any{float64(1)}},
		"region": "eu",
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.MarshalIndent(got, "", "  ")
		wj, _ := json.MarshalIndent(want, "", "  ")
		t.Fatalf("Encode:\n%s\nwant:\n%s", gj, wj)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatalf("the result is not JSON-friendly: %v", err)
	}
}

func TestEncodeScalarsAndCycles(t *testing.T) {
	type node struct {
		Next *node `lua:"next"`
	}
	n := &node{}
	n.Next = n
	if _, err := json.Marshal(Encode(n, EncodeOptions{})); err != nil {
		t.Fatalf("a cycle: %v", err)
	}
	for _, tc := range []struct {
		in   any
		want any
	}{
		{nil, nil},
		{3 * time.Second, "3s"},
		{int8(-3), float64(-3)},
		{"s", "s"},
		{(*encInner)(nil), nil},
		{struct{}{}, "<struct {}>"},
		{make(chan int), "<chan int>"},
	} {
		if got := Encode(tc.in, EncodeOptions{}); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Encode(%#v) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}
