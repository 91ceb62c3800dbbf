package decode

import (
	"errors"
	"reflect"
	"time"

	"go.opentelemetry.io/collector/consumer/consumertest"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

// nop is a Go value implementing dataplane.Consumer, as a component
// would export it.
var nop dataplane.Consumer = consumertest.NewNop()

var consumerType = reflect.TypeFor[dataplane.Consumer]()

// ph returns a placeholder of Go type T.
func ph[T any](from string) *script.Placeholder {
	return &script.Placeholder{Type: reflect.TypeFor[T](), From: from}
}

// errStrings returns the messages of an error from Decode, one per error.
func errStrings(err error) []string {
	if err == nil {
		return nil
	}
	var es Errors
	if !errors.As(err, &es) {
		return []string{"not Errors: " + err.Error()}
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Error()
	}
	return out
}

// Mode is a named string type.
type Mode string

// kinds has a field of every kind Decode handles.
type kinds struct {
	S      string               `lua:"s"`
	B      bool                 `lua:"b"`
	I      int                  `lua:"i"`
	I8     int8                 `lua:"i8"`
	I64    int64                `lua:"i64"`
	U8     uint8                `lua:"u8"`
	U64    uint64               `lua:"u64"`
	F32    float32              `lua:"f32"`
	F      float64              `lua:"f"`
	D      time.Duration        `lua:"d"`
	L      []string             `lua:"l"`
	M      map[string]int       `lua:"m"`
	P      *int                 `lua:"p"`
	A      any                  `lua:"a"`
	C      dataplane.Consumer   `lua:"c"`
	CL     []dataplane.Consumer `lua:"cl"`
	E      string               `lua:"e" enum:"gzip,zstd,none"`
	EL     []string             `lua:"el" enum:"a,b"`
	Named  Mode                 `lua:"named"`
	Nested tlsConfig            `lua:"tls"`
	Ptr    *tlsConfig           `lua:"ptr"`
	Rules  []rule               `lua:"rules"`
	Hidden string
	Skip   string `lua:"-"`
}

type tlsConfig struct {
	Insecure   bool   `lua:"insecure" doc:"skip certificate checks"`
	CAFile     string `lua:"ca_file" doc:"CA bundle"`
	MinVersion string `lua:"min_version" enum:"1.2,1.3" doc:"lowest TLS version"`
}

type rule struct {
	Name   string `lua:"name,required"`
	Action string `lua:"action" enum:"keep,drop"`
}
