package luacomponent

import (
	"reflect"
	"slices"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/luabind/luamem"
	"github.com/flowlua/flowlua/luabind/schema"
)

// The arguments every Lua component gets besides its own, and those of
// data components. Their names are reserved.
const (
	argTimeout     = "timeout"
	argMemoryLimit = "memory_limit"
	argOnError     = "on_error"
	argConcurrency = "concurrency"
	argOutput      = "output"

	// DefaultTimeout bounds one call into a component's Lua code unless
	// its `timeout` argument says otherwise.
	DefaultTimeout = time.Second
	// MaxConcurrency bounds the `concurrency` argument: the number of Lua
	// states of one component.
	MaxConcurrency = 64
	// DefaultMemoryLimit bounds the memory of each Lua state of a
	// component unless its `memory_limit` argument says otherwise.
	DefaultMemoryLimit = luamem.DefaultLimit
	// MinMemoryLimit is the smallest `memory_limit`: a state holds its
	// libraries and the component's code.
	MinMemoryLimit = 1 << 20
)

// hostFields returns the arguments the host adds to a component's own.
func hostFields(data, output bool) []*schema.Field {
	fs := []*schema.Field{{
		Name: argTimeout, Type: &schema.Type{Kind: schema.KindDuration}, Default: DefaultTimeout.String(),
		Doc: "time limit of one call into the component's Lua code",
	}, {
		Name: argMemoryLimit, Type: &schema.Type{Kind: schema.KindString}, Default: "64MiB",
		Doc: "memory budget of each Lua state of the component (\"64MiB\", \"1GiB\"): a call that goes over it fails, and the state is rebuilt",
	}}
	if data {
		fs = append(fs,
			&schema.Field{
				Name: argOnError, Type: &schema.Type{Kind: schema.KindString}, Default: "pass", Enum: []string{"pass", "drop"},
				Doc: "what happens to a batch when the Lua code fails: passed on as it is, or dropped",
			},
			&schema.Field{
				Name: argConcurrency, Type: &schema.Type{Kind: schema.KindInteger}, Default: float64(1), Min: ptr(1), Max: ptr(MaxConcurrency),
				Doc: "Lua states processing batches in parallel (each has its own globals)",
			})
	}
	if data && output {
		fs = append(fs, &schema.Field{
			Name: argOutput, Type: &schema.Type{Kind: schema.KindOutput},
			Doc: "where batches are sent (emit, or returned by on_traces, on_metrics, on_logs)",
		})
	}
	return fs
}

func ptr(f float64) *float64 { return &f }

// componentSchema is the component.Schema of a Lua component: the typing
// of its declared arguments and exports (a schema.Object, as a module's),
// with the host's arguments added and checked.
type componentSchema struct {
	*schema.Object
	args        *schema.Type // Object.Args
	exports     *schema.Type // Object.Exports; data components have "input"
	argIndex    map[string]int
	exportIndex map[string]int
	data        bool
}

var _ component.Schema = (*componentSchema)(nil)

// newComponentSchema builds the schema of a component from its declared
// fields (already checked against the reserved names).
func newComponentSchema(args, exports []*schema.Field, data, output bool) *componentSchema {
	exp := slices.Clone(exports)
	if data {
		exp = append(exp, &schema.Field{Name: "input", Type: &schema.Type{Kind: schema.KindConsumer}, Doc: "where other components send data to this one"})
	}
	o := schema.NewObject(append(slices.Clone(args), hostFields(data, output)...), exp)
	s := &componentSchema{Object: o, args: o.Args, exports: o.Exports, data: data, argIndex: map[string]int{}, exportIndex: map[string]int{}}
	for i, f := range s.args.Fields {
		s.argIndex[f.Name] = i
	}
	for i, f := range s.exports.Fields {
		s.exportIndex[f.Name] = i
	}
	return s
}

// DecodeArgs decodes and checks the arguments as schema.Object does, then
// the host's: a positive timeout, a memory limit of at least
// MinMemoryLimit.
func (s *componentSchema) DecodeArgs(v any) (any, error) {
	decoded, err := s.Object.DecodeArgs(v)
	if err != nil {
		return nil, err
	}
	args := reflect.ValueOf(decoded)
	if i, ok := s.argIndex[argTimeout]; ok && args.Field(i).Int() <= 0 {
		return nil, decode.Errors{decode.Errorf(argTimeout, "must be positive, got %s", time.Duration(args.Field(i).Int()))}
	}
	m, _ := v.(map[string]any)
	if i, ok := s.argIndex[argMemoryLimit]; ok && !decode.ContainsPlaceholder(m[argMemoryLimit]) {
		n, err := luamem.ParseSize(args.Field(i).String())
		if err != nil {
			return nil, decode.Errors{decode.Errorf(argMemoryLimit, "%v", err)}
		}
		if n < MinMemoryLimit {
			return nil, decode.Errors{decode.Errorf(argMemoryLimit, "at least %s, got %s", luamem.FormatSize(MinMemoryLimit), args.Field(i).String())}
		}
	}
	return decoded, nil
}

// hostArg returns the value of a host argument of decoded arguments.
func (s *componentSchema) hostArg(args reflect.Value, name string) (reflect.Value, bool) {
	i, ok := s.argIndex[name]
	if !ok {
		return reflect.Value{}, false
	}
	return args.Field(i), true
}
