package decode

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

func TestPlaceholders(t *testing.T) {
	const from = "file.read.token.content"
	tests := []struct {
		name string
		in   map[string]any
		errs []string
	}{
		{name: "unknown type fits anything", in: map[string]any{
			"s": &script.Placeholder{}, "b": &script.Placeholder{From: "compute(...)"}, "tls": &script.Placeholder{},
			"l": []any{&script.Placeholder{}}, "c": (*script.Placeholder)(nil),
		}},
		{name: "string into string", in: map[string]any{"s": ph[string](from)}},
		{name: "string into bool", in: map[string]any{"b": ph[string](from)},
			errs: []string{"b: expected boolean, got string (from file.read.token.content)"}},
		{name: "no From", in: map[string]any{"b": ph[string]("")}, errs: []string{"b: expected boolean, got string"}},
		{name: "number into integers", in: map[string]any{"i": ph[float64](from), "u8": ph[float64](from), "i64": ph[int](from), "f": ph[int32](from)}},
		{name: "number into string", in: map[string]any{"s": ph[int](from)}, errs: []string{"s: expected string, got number (from file.read.token.content)"}},
		{name: "string into duration", in: map[string]any{"d": ph[string](from)}},
		{name: "Duration into duration", in: map[string]any{"d": ph[time.Duration](from)}},
		{name: "number into duration", in: map[string]any{"d": ph[float64]("x")},
			errs: []string{`d: expected duration string like "200ms", got number (from x)`}},
		{name: "Duration into string", in: map[string]any{"s": ph[time.Duration]("x")},
			errs: []string{"s: expected string, got time.Duration (from x)"}},
		{name: "string into enum", in: map[string]any{"e": ph[string](from), "el": []any{ph[string](from)}}},
		{name: "named string into string", in: map[string]any{"s": ph[Mode](from), "named": ph[string](from)}},
		{name: "interface into interface", in: map[string]any{"c": ph[dataplane.Consumer]("a.b.input")}},
		{name: "implementation into interface", in: map[string]any{"c": &script.Placeholder{Type: reflect.TypeOf(nop)}}},
		{name: "narrower interface", in: map[string]any{"c": ph[consumer.Traces]("a.b.input")},
			errs: []string{"c: expected dataplane.Consumer, got consumer.Traces (from a.b.input)"}},
		{name: "interface into string", in: map[string]any{"s": ph[dataplane.Consumer]("a.b.input")},
			errs: []string{"s: expected string, got dataplane.Consumer (from a.b.input)"}},
		{name: "list elements", in: map[string]any{"cl": []any{ph[dataplane.Consumer]("a.b.input"), ph[string]("c.d.content")}},
			errs: []string{"cl[2]: expected dataplane.Consumer, got string (from c.d.content)"}},
		{name: "list types", in: map[string]any{"l": ph[[]string](from), "cl": ph[[]dataplane.Consumer](from), "el": ph[[]Mode](from)}},
		{name: "list of wrong elements", in: map[string]any{"l": ph[[]bool]("x")},
			errs: []string{"l: expected list(string), got list(boolean) (from x)"}},
		{name: "not a list", in: map[string]any{"l": ph[string]("x")}, errs: []string{"l: expected list, got string (from x)"}},
		{name: "map types", in: map[string]any{"m": ph[map[string]float64]("x"), "tls": ph[map[string]any]("y")}},
		{name: "map of wrong values", in: map[string]any{"m": ph[map[string]string]("x")},
			errs: []string{"m: expected map(integer), got map(string) (from x)"}},
		{name: "table into struct", in: map[string]any{"tls": ph[map[string]string]("x")}},
		{name: "scalar into struct", in: map[string]any{"tls": ph[bool]("x"), "ptr": ph[string]("y")},
			errs: []string{"ptr: expected table, got string (from y)", "tls: expected table, got boolean (from x)"}},
		{name: "Go struct into struct", in: map[string]any{"tls": ph[time.Time]("x")},
			errs: []string{"tls: expected table, got time.Time (from x)"}},
		{name: "pointer to its element", in: map[string]any{"p": ph[float64]("x"), "ptr": ph[tlsConfig]("y")}},
		{name: "anything into any", in: map[string]any{"a": ph[time.Time]("x")}},
		{name: "nested fields", in: map[string]any{"tls": map[string]any{"insecure": ph[string]("x")}, "rules": []any{map[string]any{"name": ph[bool]("y")}}},
			errs: []string{"rules[1].name: expected string, got boolean (from y)", "tls.insecure: expected boolean, got string (from x)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got kinds
			err := Decode(tt.in, &got)
			if gotErrs := errStrings(err); !slices.Equal(gotErrs, tt.errs) {
				t.Fatalf("errors:\n got %q\nwant %q", gotErrs, tt.errs)
			}
		})
	}
}

// TestPlaceholderKeepsDefaults checks that a placeholder satisfies
// required, leaves the field at its default, and that Validate is not
// called on a value holding one anywhere inside.
func TestPlaceholderKeepsDefaults(t *testing.T) {
	type args struct {
		Client client `lua:"client"`
		Batch  batch  `lua:"batch"`
		Other  batch  `lua:"other"`
	}
	n, m := 0, 0
	got := args{}
	in := map[string]any{
		"client": map[string]any{"endpoint": ph[string]("a.b.c")},
		"batch":  map[string]any{"sizes": []any{map[string]any{"num_consumers": ph[float64]("x")}}, "timeout": ph[string]("y")},
		"other":  map[string]any{},
	}
	// Decode gives batch its defaults on the fresh value; count Validate
	// calls through a hook set after the defaults.
	err := decodeWith(in, &got, func() { got.Batch.validated, got.Other.validated = &n, &m })
	if err != nil {
		t.Fatal(err)
	}
	if got.Client.Endpoint != "" {
		t.Errorf("endpoint = %q, want the default", got.Client.Endpoint)
	}
	if got.Batch.Timeout != 200*time.Millisecond {
		t.Errorf("timeout = %v, want the default", got.Batch.Timeout)
	}
	if n != 0 || m != 1 {
		t.Errorf("Validate called %d times on the value with a placeholder, %d on the other; want 0 and 1", n, m)
	}
}

// decodeWith decodes like Decode, running hook after the target got its
// defaults.
func decodeWith(v any, target any, hook func()) error {
	dst := reflect.ValueOf(target).Elem()
	ti := mustInfo(dst.Type())
	applyDefaults(dst, ti)
	hook()
	var d decoder
	d.value(v, dst, ti, nil)
	if len(d.errs) == 0 {
		return nil
	}
	return d.errs
}

// TestPlaceholderNotUnmarshaled checks that an Unmarshaler is not given a
// placeholder for its whole value, and that the placeholders it is given
// inside a table stop validation above it.
func TestPlaceholderUnmarshaler(t *testing.T) {
	var w struct {
		W wholeTable `lua:"w"`
		V wholeTable `lua:"v"`
	}
	in := map[string]any{"w": ph[bool]("x"), "v": map[string]any{"k": ph[bool]("y")}}
	if err := Decode(in, &w); err != nil {
		t.Fatal(err)
	}
	if w.W.got != nil {
		t.Errorf("UnmarshalScript called with %v", w.W.got)
	}
	if !ContainsPlaceholder(w.V.got) {
		t.Errorf("UnmarshalScript got %v, want the table with its placeholder", w.V.got)
	}
}

// TestPlaceholderMatchesValues checks, for values of many Go types and
// fields of many kinds, that when a real value decodes into a field a
// placeholder of its type is accepted there, and that a rejected
// placeholder means a rejected value.
func TestPlaceholderMatchesValues(t *testing.T) {
	values := []any{
		"s", "200ms", "gzip", "a", Mode("a"), true, 1.0, 1.5, -1.0, 300.0, 7, uint8(3), float32(2),
		5 * time.Second, []any{"a"}, []string{"a"}, []any{nop}, []dataplane.Consumer{nop}, []bool{true},
		map[string]any{"insecure": true}, map[string]string{"k": "v"}, map[string]float64{"a": 1},
		nop, time.Time{}, &tlsConfig{}, tlsConfig{},
	}
	ti := mustInfo(reflect.TypeFor[kinds]())
	for _, v := range values {
		for _, f := range ti.fields {
			var real, placeholder kinds
			realErr := Decode(map[string]any{f.name: v}, &real)
			phErr := Decode(map[string]any{f.name: &script.Placeholder{Type: reflect.TypeOf(v)}}, &placeholder)
			if realErr == nil && phErr != nil {
				t.Errorf("%T %v into %s: the value decodes, its placeholder does not: %v", v, v, f.name, phErr)
			}
		}
	}
}
