package decode

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

func intPtr(i int) *int { return &i }

func TestDecodeKinds(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]any
		want kinds // compared when no errors are expected
		errs []string
	}{
		{name: "empty", in: map[string]any{}},
		{name: "string", in: map[string]any{"s": "x"}, want: kinds{S: "x"}},
		{name: "string from number", in: map[string]any{"s": 1.0}, errs: []string{"s: expected string, got number"}},
		{name: "string from boolean", in: map[string]any{"s": true}, errs: []string{"s: expected string, got boolean"}},
		{name: "named string", in: map[string]any{"named": "x"}, want: kinds{Named: "x"}},
		{name: "bool", in: map[string]any{"b": true}, want: kinds{B: true}},
		{name: "bool from string", in: map[string]any{"b": "true"}, errs: []string{"b: expected boolean, got string"}},
		{name: "int", in: map[string]any{"i": 42.0, "i8": -128.0, "i64": -9.007199254740992e15}, want: kinds{I: 42, I8: -128, I64: -9007199254740992}},
		{name: "int not integral", in: map[string]any{"i": 1.5}, errs: []string{"i: expected integer in [-9223372036854775808, 9223372036854775807], got 1.5"}},
		{name: "int NaN", in: map[string]any{"i": math.NaN()}, errs: []string{"i: expected integer in [-9223372036854775808, 9223372036854775807], got NaN"}},
		{name: "int Inf", in: map[string]any{"i": math.Inf(1)}, errs: []string{"i: expected integer in [-9223372036854775808, 9223372036854775807], got +Inf"}},
		{name: "int from string", in: map[string]any{"i": "1"}, errs: []string{"i: expected integer, got string"}},
		{name: "int8 range", in: map[string]any{"i8": 128.0}, errs: []string{"i8: expected integer in [-128, 127], got 128"}},
		{name: "int64 range", in: map[string]any{"i64": 1e19}, errs: []string{"i64: expected integer in [-9223372036854775808, 9223372036854775807], got 1e+19"}},
		{name: "uint", in: map[string]any{"u8": 255.0, "u64": 1.8e19}, want: kinds{U8: 255, U64: 18000000000000000000}},
		{name: "uint negative", in: map[string]any{"u8": -1.0}, errs: []string{"u8: expected integer in [0, 255], got -1"}},
		{name: "uint8 range", in: map[string]any{"u8": 256.0}, errs: []string{"u8: expected integer in [0, 255], got 256"}},
		{name: "uint64 range", in: map[string]any{"u64": 1e20}, errs: []string{"u64: expected integer in [0, 18446744073709551615], got 1e+20"}},
		{name: "float", in: map[string]any{"f": 1.5, "f32": 0.25}, want: kinds{F: 1.5, F32: 0.25}},
		{name: "float32 range", in: map[string]any{"f32": 1e39}, errs: []string{"f32: 1e+39 is out of range for a 32-bit number"}},
		{name: "float from string", in: map[string]any{"f": "1.5"}, errs: []string{"f: expected number, got string"}},
		{name: "duration", in: map[string]any{"d": "1m30s"}, want: kinds{D: 90 * time.Second}},
		{name: "duration ms", in: map[string]any{"d": "200ms"}, want: kinds{D: 200 * time.Millisecond}},
		{name: "duration bad unit", in: map[string]any{"d": "2 seconds"},
			errs: []string{`d: invalid duration "2 seconds": unknown unit " seconds" (use a number with a unit: "200ms", "1m30s")`}},
		{name: "duration missing unit", in: map[string]any{"d": "200"},
			errs: []string{`d: invalid duration "200": missing unit (use a number with a unit: "200ms", "1m30s")`}},
		{name: "duration garbage", in: map[string]any{"d": "abc"},
			errs: []string{`d: invalid duration "abc" (use a number with a unit: "200ms", "1m30s")`}},
		{name: "duration from number", in: map[string]any{"d": 5.0}, errs: []string{`d: expected duration string like "200ms", got number`}},
		{name: "duration from boolean", in: map[string]any{"d": true}, errs: []string{`d: expected duration string like "200ms", got boolean`}},
		{name: "list", in: map[string]any{"l": []any{"a", "b"}}, want: kinds{L: []string{"a", "b"}}},
		{name: "list from empty table", in: map[string]any{"l": map[string]any{}}, want: kinds{L: []string{}}},
		{name: "list from string", in: map[string]any{"l": "a"}, errs: []string{"l: expected list, got string"}},
		{name: "list from table", in: map[string]any{"l": map[string]any{"a": "b"}}, errs: []string{"l: expected list, got table"}},
		{name: "list element", in: map[string]any{"l": []any{"a", 1.0, "c", nil}},
			errs: []string{"l[2]: expected string, got number", "l[4]: expected string, got nil"}},
		{name: "map", in: map[string]any{"m": map[string]any{"a": 1.0}}, want: kinds{M: map[string]int{"a": 1}}},
		{name: "map from empty list", in: map[string]any{"m": []any{}}, want: kinds{M: map[string]int{}}},
		{name: "map from boolean", in: map[string]any{"m": true}, errs: []string{"m: expected table, got boolean"}},
		{name: "map value", in: map[string]any{"m": map[string]any{"a": 1.5}}, errs: []string{"m.a: expected integer in [-9223372036854775808, 9223372036854775807], got 1.5"}},
		{name: "pointer", in: map[string]any{"p": 3.0}, want: kinds{P: intPtr(3)}},
		{name: "pointer error", in: map[string]any{"p": "x"}, errs: []string{"p: expected integer, got string"}},
		{name: "any", in: map[string]any{"a": []any{"x", 1.0}}, want: kinds{A: []any{"x", 1.0}}},
		{name: "interface", in: map[string]any{"c": nop, "cl": []any{nop, nop}}, want: kinds{C: nop, CL: []dataplane.Consumer{nop, nop}}},
		{name: "interface from string", in: map[string]any{"c": "x"}, errs: []string{"c: expected dataplane.Consumer, got string"}},
		{name: "interface from Go value", in: map[string]any{"c": time.Time{}}, errs: []string{"c: expected dataplane.Consumer, got time.Time"}},
		{name: "interface list element", in: map[string]any{"cl": []any{nop, "x"}}, errs: []string{"cl[2]: expected dataplane.Consumer, got string"}},
		{name: "enum", in: map[string]any{"e": "zstd", "el": []any{"a", "b"}}, want: kinds{E: "zstd", EL: []string{"a", "b"}}},
		{name: "enum bad", in: map[string]any{"e": "gzp"},
			errs: []string{`e: expected one of "gzip", "zstd", "none", got "gzp" (did you mean "gzip"?)`}},
		{name: "enum far", in: map[string]any{"e": "brotli"},
			errs: []string{`e: expected one of "gzip", "zstd", "none", got "brotli"`}},
		{name: "enum list", in: map[string]any{"el": []any{"a", "xyz"}}, errs: []string{`el[2]: expected one of "a", "b", got "xyz"`}},
		{name: "nested", in: map[string]any{"tls": map[string]any{"insecure": true}}, want: kinds{Nested: tlsConfig{Insecure: true}}},
		{name: "nested error", in: map[string]any{"tls": map[string]any{"insecure": "yes"}}, errs: []string{"tls.insecure: expected boolean, got string"}},
		{name: "nested from string", in: map[string]any{"tls": "x"}, errs: []string{"tls: expected table, got string"}},
		{name: "nested from empty list", in: map[string]any{"tls": []any{}}, want: kinds{}},
		{name: "pointer to struct", in: map[string]any{"ptr": map[string]any{"ca_file": "ca.pem"}}, want: kinds{Ptr: &tlsConfig{CAFile: "ca.pem"}}},
		{name: "pointer to struct error", in: map[string]any{"ptr": map[string]any{"ca_fle": "ca.pem"}},
			errs: []string{`ptr: unknown field "ca_fle" (did you mean "ca_file"?)`}},
		{name: "list of structs", in: map[string]any{"rules": []any{
			map[string]any{"name": "a"},
			map[string]any{"action": "keep"},
			map[string]any{"name": "c", "action": "drp"},
		}}, errs: []string{
			`rules[2]: missing required field "name"`,
			`rules[3].action: expected one of "keep", "drop", got "drp" (did you mean "drop"?)`,
		}},
		{name: "unknown field", in: map[string]any{"tls": map[string]any{"insecur": true}},
			errs: []string{`tls: unknown field "insecur" (did you mean "insecure"?)`}},
		{name: "unknown field far", in: map[string]any{"zzzzzz": 1.0}, errs: []string{`unknown field "zzzzzz"`}},
		{name: "untagged field", in: map[string]any{"Hidden": "x"}, errs: []string{`unknown field "Hidden"`}},
		{name: "skipped field", in: map[string]any{"skip": "x"}, errs: []string{`unknown field "skip"`}},
		{name: "nil value is absent", in: map[string]any{"s": nil}},
		{name: "Go values fitting", in: map[string]any{"i": 5, "l": []string{"x"}, "d": 5 * time.Second, "f": float32(0.5)},
			want: kinds{I: 5, L: []string{"x"}, D: 5 * time.Second, F: 0.5}},
		{name: "Go values converted", in: map[string]any{"i": int32(7), "s": Mode("m"), "b": reflect.ValueOf(true).Interface(), "el": []Mode{"a"}, "m": map[string]int64{"k": 1}},
			want: kinds{I: 7, S: "m", B: true, EL: []string{"a"}, M: map[string]int{"k": 1}}},
		{name: "Go values refused", in: map[string]any{"s": 5 * time.Second, "i": 1.5, "m": map[string]string{"k": "v"}, "c": 3},
			errs: []string{
				"c: expected dataplane.Consumer, got number",
				"i: expected integer in [-9223372036854775808, 9223372036854775807], got 1.5",
				"m.k: expected integer, got string",
				"s: expected string, got time.Duration",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got kinds
			err := Decode(tt.in, &got)
			if gotErrs := errStrings(err); !slices.Equal(gotErrs, tt.errs) {
				t.Fatalf("errors:\n got %q\nwant %q", gotErrs, tt.errs)
			}
			if tt.errs == nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decoded:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestDecodeCollectsSorted checks that every error is reported, sorted by
// path with list indices in numeric order.
func TestDecodeCollectsSorted(t *testing.T) {
	list := make([]any, 12)
	for i := range list {
		list[i] = "a"
	}
	list[1], list[9] = 2.0, 10.0
	in := map[string]any{
		"s":       true,
		"b":       "no",
		"l":       list,
		"timeout": "1s",
		"tls":     map[string]any{"insecure": 1.0, "min_version": "1.1", "extra": true},
	}
	var got kinds
	err := Decode(in, &got)
	want := []string{
		`unknown field "timeout"`,
		"b: expected boolean, got string",
		"l[2]: expected string, got number",
		"l[10]: expected string, got number",
		"s: expected string, got boolean",
		`tls: unknown field "extra"`,
		"tls.insecure: expected boolean, got number",
		`tls.min_version: expected one of "1.2", "1.3", got "1.1" (did you mean "1.2"?)`,
	}
	if gotErrs := errStrings(err); !slices.Equal(gotErrs, want) {
		t.Fatalf("errors:\n got %q\nwant %q", gotErrs, want)
	}
	if got, want := err.Error(), strings.Join(want, "; "); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

type client struct {
	Endpoint string        `lua:"endpoint,required"`
	Timeout  time.Duration `lua:"timeout"`
	TLS      *tlsConfig    `lua:"tls"`
}

type clientArgs struct {
	Client client `lua:"client,required"`
}

func TestDecodeTopLevel(t *testing.T) {
	tests := []struct {
		name   string
		in     any
		target any
		errs   []string
	}{
		{name: "nil struct checks required", in: nil, target: new(client), errs: []string{`missing required field "endpoint"`}},
		{name: "empty list is an empty table", in: []any{}, target: new(client), errs: []string{`missing required field "endpoint"`}},
		{name: "not a table", in: "x", target: new(client), errs: []string{"expected table, got string"}},
		{name: "unknown with hint", in: map[string]any{"endpoint": "e", "timout": "1s"}, target: new(client),
			errs: []string{`unknown field "timout" (did you mean "timeout"?)`}},
		{name: "nested required", in: map[string]any{"client": map[string]any{}}, target: new(clientArgs),
			errs: []string{`client: missing required field "endpoint"`}},
		{name: "deep path", in: map[string]any{"client": map[string]any{"endpoint": "e", "tls": map[string]any{"insecure": "yes"}}},
			target: new(clientArgs), errs: []string{"client.tls.insecure: expected boolean, got string"}},
		{name: "scalar target", in: 3.0, target: new(int)},
		{name: "scalar target nil", in: nil, target: new(int)},
		{name: "list target", in: []any{1.0, "x"}, target: new([]int), errs: []string{"[2]: expected integer, got string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Decode(tt.in, tt.target)
			if got := errStrings(err); !slices.Equal(got, tt.errs) {
				t.Fatalf("errors:\n got %q\nwant %q", got, tt.errs)
			}
		})
	}
}

func TestDecodeBadTarget(t *testing.T) {
	var c client
	for _, target := range []any{c, (*client)(nil), nil} {
		err := Decode(map[string]any{}, target)
		if err == nil || !strings.Contains(err.Error(), "target must be a non-nil pointer") {
			t.Errorf("Decode(_, %T) = %v, want a target error", target, err)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	var got clientArgs
	in := map[string]any{"client": map[string]any{
		"endpoint": "127.0.0.1:4317",
		"timeout":  "200ms",
		"tls":      map[string]any{"insecure": true, "min_version": "1.3"},
	}}
	if err := Decode(in, &got); err != nil {
		t.Fatal(err)
	}
	want := clientArgs{Client: client{
		Endpoint: "127.0.0.1:4317",
		Timeout:  200 * time.Millisecond,
		TLS:      &tlsConfig{Insecure: true, MinVersion: "1.3"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestDecodeConcurrent decodes types never seen before from many
// goroutines at once (run with -race).
func TestDecodeConcurrent(t *testing.T) {
	type fresh1 struct {
		A []rule     `lua:"a"`
		B *tlsConfig `lua:"b"`
		C kinds      `lua:"c"`
	}
	in := map[string]any{
		"a": []any{map[string]any{"name": "x"}},
		"b": map[string]any{"insecure": true},
		"c": map[string]any{"s": "x", "cl": []any{nop}},
	}
	done := make(chan error)
	for range 8 {
		go func() {
			var v fresh1
			done <- Decode(in, &v)
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestDecodeExactIntegers checks that an integer field takes only an
// integral number in its type's range, never a truncated or wrapped one,
// and that Go integers a component exported arrive exactly.
func TestDecodeExactIntegers(t *testing.T) {
	tests := []struct {
		name   string
		in     any
		target any
		want   any
		err    string
	}{
		{name: "huge", in: 1e300, target: new(int64), err: "expected integer in [-9223372036854775808, 9223372036854775807], got 1e+300"},
		{name: "fraction", in: 2.5, target: new(uint16), err: "expected integer in [0, 65535], got 2.5"},
		{name: "negative into uint", in: -0.5, target: new(uint), err: "expected integer in [0, 18446744073709551615], got -0.5"},
		{name: "tiny fraction", in: 1e-300, target: new(int8), err: "expected integer in [-128, 127], got 1e-300"},
		{name: "-Inf", in: math.Inf(-1), target: new(int32), err: "expected integer in [-2147483648, 2147483647], got -Inf"},
		{name: "2^63", in: math.Ldexp(1, 63), target: new(int64), err: "expected integer in [-9223372036854775808, 9223372036854775807], got 9.223372036854776e+18"},
		{name: "-2^63", in: -math.Ldexp(1, 63), target: new(int64), want: int64(math.MinInt64)},
		{name: "Go int64 beyond 2^53", in: int64(1<<53 + 1), target: new(uint64), want: uint64(1<<53 + 1)},
		{name: "Go uint64 beyond int64", in: uint64(1 << 63), target: new(int64), err: "expected integer in [-9223372036854775808, 9223372036854775807], got 9223372036854775808"},
		{name: "Go int64 into int32", in: int64(1 << 60), target: new(int32), err: "expected integer in [-2147483648, 2147483647], got 1152921504606846976"},
		{name: "Go int64 into string", in: int64(1 << 60), target: new(string), err: "expected string, got number"},
		{name: "Go int into int8", in: 300, target: new(int8), err: "expected integer in [-128, 127], got 300"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Decode(tt.in, tt.target)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.err {
				t.Fatalf("error %q, want %q", got, tt.err)
			}
			if tt.err == "" {
				if v := reflect.ValueOf(tt.target).Elem().Interface(); v != tt.want {
					t.Errorf("decoded %v, want %v", v, tt.want)
				}
			}
		})
	}
}
