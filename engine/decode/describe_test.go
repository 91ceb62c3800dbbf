package decode

import (
	"reflect"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

type exporterArgs struct {
	common      `lua:",squash"`
	Compression string             `lua:"compression" enum:"gzip,zstd,none" doc:"how to compress"`
	Headers     map[string]string  `lua:"headers" doc:"extra headers"`
	Keys        []string           `lua:"keys"`
	Levels      []string           `lua:"levels" enum:"info,warn"`
	TLS         *tlsConfig         `lua:"tls" doc:"TLS settings"`
	Rules       []rule             `lua:"rules"`
	Selector    selector           `lua:"selector" doc:"opaque"`
	Described   described          `lua:"described"`
	Output      *dataplane.Output  `lua:"output,required"`
	Ratio       float64            `lua:"ratio"`
	Any         any                `lua:"any"`
	Consumer    dataplane.Consumer `lua:"consumer"`
	internal    int
}

func (a *exporterArgs) SetToDefault() {
	a.common.SetToDefault()
	a.Compression = "gzip"
	a.Headers = map[string]string{"x-b": "2", "a": "1"}
	a.Keys = []string{"user.email"}
	a.Ratio = 0.5
}

// described is an Unmarshaler that describes itself.
type described struct{ selector }

func (d *described) SetToDefault() { d.Key = "k" }

func (d *described) DescribeFields() []Field {
	return []Field{{Path: "key", Type: "string", Default: `"` + d.Key + `"`}}
}

func TestDescribe(t *testing.T) {
	want := []Field{
		{Path: "endpoint", Type: "string", Required: true, Doc: "host:port"},
		{Path: "timeout", Type: "duration", Default: `"5s"`},
		{Path: "compression", Type: `one of "gzip", "zstd", "none"`, Default: `"gzip"`, Doc: "how to compress"},
		{Path: "headers", Type: "map(string)", Default: `{ a = "1", ["x-b"] = "2" }`, Doc: "extra headers"},
		{Path: "keys", Type: "list(string)", Default: `{ "user.email" }`},
		{Path: "levels", Type: `list(one of "info", "warn")`},
		{Path: "tls", Type: "table", Doc: "TLS settings"},
		{Path: "tls.insecure", Type: "boolean", Doc: "skip certificate checks"},
		{Path: "tls.ca_file", Type: "string", Doc: "CA bundle"},
		{Path: "tls.min_version", Type: `one of "1.2", "1.3"`, Doc: "lowest TLS version"},
		{Path: "rules", Type: "list(table)"},
		{Path: "rules[].name", Type: "string", Required: true},
		{Path: "rules[].action", Type: `one of "keep", "drop"`},
		{Path: "selector", Type: "table", Doc: "opaque"},
		{Path: "described", Type: "table"},
		{Path: "described.key", Type: "string", Default: `"k"`},
		{Path: "output", Type: "table", Required: true},
		{Path: "output.traces", Type: "list(dataplane.Consumer)", Doc: "consumers of traces"},
		{Path: "output.metrics", Type: "list(dataplane.Consumer)", Doc: "consumers of metrics"},
		{Path: "output.logs", Type: "list(dataplane.Consumer)", Doc: "consumers of logs"},
		{Path: "ratio", Type: "number", Default: "0.5"},
		{Path: "any", Type: "any"},
		{Path: "consumer", Type: "dataplane.Consumer"},
	}
	got := Describe(reflect.TypeFor[*exporterArgs]())
	if len(got) != len(want) {
		t.Errorf("got %d fields, want %d", len(got), len(want))
	}
	for i := range max(len(got), len(want)) {
		var g, w Field
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("field %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

type tree struct {
	Name     string           `lua:"name"`
	Children []tree           `lua:"children"`
	Next     *tree            `lua:"next"`
	ByKey    map[string]*tree `lua:"by_key"`
}

func TestDescribeRecursive(t *testing.T) {
	want := []Field{
		{Path: "name", Type: "string"},
		{Path: "children", Type: "list(table)"},
		{Path: "next", Type: "table"},
		{Path: "by_key", Type: "map(table)"},
	}
	got := Describe(reflect.TypeFor[tree]())
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// And decoding a recursive type works.
	var v tree
	err := Decode(map[string]any{"children": []any{map[string]any{"next": map[string]any{"name": 1.0}}}}, &v)
	if got, want := errStrings(err), []string{"children[1].next.name: expected string, got number"}; !reflect.DeepEqual(got, want) {
		t.Errorf("errors: got %q, want %q", got, want)
	}
}

func TestDescribeNothing(t *testing.T) {
	if got := Describe(nil); got != nil {
		t.Errorf("Describe(nil) = %v", got)
	}
	if got := Describe(reflect.TypeFor[int]()); got != nil {
		t.Errorf("Describe(int) = %v", got)
	}
	if got := Describe(reflect.TypeFor[wholeTable]()); got != nil {
		t.Errorf("Describe(an Unmarshaler) = %v", got)
	}
}

func TestDescribeMapOfTables(t *testing.T) {
	type args struct {
		Pipelines map[string]queue `lua:"pipelines"`
	}
	want := []Field{
		{Path: "pipelines", Type: "map(table)"},
		{Path: "pipelines.<key>.enabled", Type: "boolean", Default: "true"},
		{Path: "pipelines.<key>.num_consumers", Type: "integer", Default: "10"},
	}
	if got := Describe(reflect.TypeFor[args]()); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestFormatDefault(t *testing.T) {
	s := "x"
	tests := []struct {
		v    any
		want string
	}{
		{"", ""},
		{0, ""},
		{"a\"b", `"a\"b"`},
		{true, "true"},
		{-3, "-3"},
		{uint16(3), "3"},
		{1e21, "1e+21"},
		{90 * time.Second, `"1m30s"`},
		{&s, `"x"`},
		{[]int{}, "{}"},
		{[]any{1.0, "a", nil}, `{ 1, "a", nil }`},
		{map[string]bool{"b": true, "a-1": false}, `{ ["a-1"] = false, b = true }`},
		{map[int]string{1: "a"}, "map[1:a]"},
		{tlsConfig{Insecure: true}, ""},
		{[]tlsConfig{{}}, "{ {...} }"},
	}
	for _, tt := range tests {
		if got := formatDefault(reflect.ValueOf(tt.v)); got != tt.want {
			t.Errorf("formatDefault(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
