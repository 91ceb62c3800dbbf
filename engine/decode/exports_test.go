package decode

import (
	"reflect"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

type fileExports struct {
	common  `lua:",squash"`
	Content string `lua:"content"`
	Size    int
}

func TestExportTypes(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want map[string]reflect.Type
	}{
		{reflect.TypeFor[dataplane.Exports](), map[string]reflect.Type{"input": consumerType}},
		{reflect.TypeFor[*dataplane.Exports](), map[string]reflect.Type{"input": consumerType}},
		{reflect.TypeFor[fileExports](), map[string]reflect.Type{
			"endpoint": reflect.TypeFor[string](),
			"timeout":  reflect.TypeFor[time.Duration](),
			"content":  reflect.TypeFor[string](),
		}},
		{reflect.TypeFor[int](), map[string]reflect.Type{}},
		{nil, map[string]reflect.Type{}},
	}
	for _, tt := range tests {
		if got := ExportTypes(tt.t); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExportTypes(%v) = %v, want %v", tt.t, got, tt.want)
		}
	}
}

func TestExportValues(t *testing.T) {
	e := fileExports{Content: "c", Size: 3}
	e.Endpoint = "e"
	tests := []struct {
		v    any
		want map[string]any
	}{
		{nil, map[string]any{}},
		{(*fileExports)(nil), map[string]any{}},
		{3, map[string]any{}},
		{e, map[string]any{"endpoint": "e", "timeout": time.Duration(0), "content": "c"}},
		{&e, map[string]any{"endpoint": "e", "timeout": time.Duration(0), "content": "c"}},
		{dataplane.Exports{}, map[string]any{"input": nil}},
		{dataplane.Exports{Input: nop}, map[string]any{"input": nop}},
	}
	for _, tt := range tests {
		if got := ExportValues(tt.v); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExportValues(%#v) = %#v, want %#v", tt.v, got, tt.want)
		}
	}
}

// TestExportsRoundTrip checks that exported values decode into arguments
// of the export's type, and their placeholders type-check the same way.
func TestExportsRoundTrip(t *testing.T) {
	values := ExportValues(dataplane.Exports{Input: nop})
	types := ExportTypes(reflect.TypeFor[dataplane.Exports]())
	var out dataplane.Output
	if err := Decode(map[string]any{"traces": []any{values["input"]}}, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Traces) != 1 || out.Traces[0] != nop {
		t.Errorf("traces = %v", out.Traces)
	}
	if err := Decode(map[string]any{"traces": []any{ph[struct{}]("")}}, &out); err == nil {
		t.Error("a struct placeholder was accepted as a consumer")
	}
	p := ph[struct{}]("x.y.input")
	p.Type = types["input"]
	if err := Decode(map[string]any{"traces": []any{p}}, &out); err != nil {
		t.Error(err)
	}
}
