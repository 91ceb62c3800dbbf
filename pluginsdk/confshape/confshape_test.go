package confshape

import (
	"reflect"
	"testing"

	"go.opentelemetry.io/collector/config/configopaque"
)

type inner struct {
	Names []string `mapstructure:"names"`
}

type squashed struct {
	Endpoint string `mapstructure:"endpoint"`
}

type config struct {
	squashed `mapstructure:",squash"`
	Extract  inner                `mapstructure:"extract"`
	Labels   map[string]string    `mapstructure:"labels"`
	Headers  configopaque.MapList `mapstructure:"headers"`
	Rules    []inner              `mapstructure:"rules"`
	Skip     string               `mapstructure:"-"`
	Plain    int
}

func TestOf(t *testing.T) {
	s := Of(reflect.TypeFor[*config]())
	var keys []string
	for _, f := range s.Fields {
		keys = append(keys, f.Key)
	}
	want := []string{"endpoint", "extract", "labels", "headers", "rules", "Plain"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if s.Squashed["squashed"] == nil {
		t.Fatalf("the squashed struct is not named: %v", s.Squashed)
	}
	if got := At(reflect.TypeFor[config](), []string{"rules", "0", "names"}); got != reflect.TypeFor[[]string]() {
		t.Fatalf("At(rules.0.names) = %v", got)
	}
}

// TestShape checks that Lua's {} becomes what each field takes.
func TestShape(t *testing.T) {
	in := map[string]any{
		"extract": map[string]any{"names": map[string]any{}},
		"labels":  []any{},
		"headers": map[string]any{},
		"rules":   []any{map[string]any{"names": map[string]any{}}},
		"other":   map[string]any{},
	}
	got := Shape(in, reflect.TypeFor[config]())
	want := map[string]any{
		"extract": map[string]any{"names": []any{}},
		"labels":  map[string]any{},
		"headers": map[string]any{}, // a MapList may be a table
		"rules":   []any{map[string]any{"names": []any{}}},
		"other":   map[string]any{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Shape:\n got %#v\nwant %#v", got, want)
	}
}
