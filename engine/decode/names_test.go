package decode

import (
	"reflect"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

func TestTypeName(t *testing.T) {
	type list []list
	tests := []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[string](), "string"},
		{reflect.TypeFor[Mode](), "string"},
		{reflect.TypeFor[bool](), "boolean"},
		{reflect.TypeFor[int8](), "integer"},
		{reflect.TypeFor[uint](), "integer"},
		{reflect.TypeFor[float32](), "number"},
		{reflect.TypeFor[time.Duration](), "duration"},
		{reflect.TypeFor[*time.Duration](), "duration"},
		{reflect.TypeFor[[]string](), "list(string)"},
		{reflect.TypeFor[[][]int](), "list(list(integer))"},
		{reflect.TypeFor[map[string]string](), "map(string)"},
		{reflect.TypeFor[map[int]string](), "map[int]string"},
		{reflect.TypeFor[tlsConfig](), "table"},
		{reflect.TypeFor[*tlsConfig](), "table"},
		{reflect.TypeFor[selector](), "table"},
		{reflect.TypeFor[any](), "any"},
		{reflect.TypeFor[dataplane.Consumer](), "dataplane.Consumer"},
		{reflect.TypeFor[[]dataplane.Consumer](), "list(dataplane.Consumer)"},
		{reflect.TypeFor[interface{ M() }](), "value"},
		{reflect.TypeFor[chan int](), "chan int"},
		{reflect.TypeFor[list](), "list(list(list(list(list(list(list(list(list(...)))))))))"},
		{nil, "nil"},
	}
	for _, tt := range tests {
		if got := TypeName(tt.t); got != tt.want {
			t.Errorf("TypeName(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}
