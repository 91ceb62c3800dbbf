package luacomponent

import (
	"context"
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/luabind/pdatalua"
)

// outputRef is where emitted batches go: an output argument's fan-outs,
// or one consumer.
type outputRef struct {
	src     dataplane.Output
	traces  consumer.Traces
	metrics consumer.Metrics
	logs    consumer.Logs
}

// newOutputRef returns the fan-outs of an output, observed by its tap
// (for live debugging and the graph's rates). An output the engine did not
// tap (one in a list, a map or a table) is observed by tap, the
// component's own.
func newOutputRef(o dataplane.Output, tap *dataplane.Tap) *outputRef {
	observed := o
	if o.Tap() == nil && tap != nil {
		observed = o.WithTap(tap)
	}
	return &outputRef{
		src:     o,
		traces:  dataplane.OutputTraces(observed),
		metrics: dataplane.OutputMetrics(observed),
		logs:    dataplane.OutputLogs(observed),
	}
}

// consumerOutput sends every signal to one consumer, through fan-outs
// observed by tap (the component's own): what a component emits to a
// consumer argument is counted on its edge and shown to live debugging as
// what it emits to an output is. It is built once per consumer handed to
// Lua, so that a batch costs the tap's per-batch counter and nothing more.
func consumerOutput(c dataplane.Consumer, tap *dataplane.Tap) *outputRef {
	cs := []dataplane.Consumer{c}
	return newOutputRef(dataplane.Output{Traces: cs, Metrics: cs, Logs: cs}, tap)
}

// tap returns the component's tap, nil in a state that runs no component.
func (v *vm) tap() *dataplane.Tap {
	if v.inst == nil {
		return nil
	}
	return v.inst.opts.Tap
}

// send passes a batch to the output's consumers of its signal.
func (o *outputRef) send(ctx context.Context, data any) error {
	switch d := data.(type) {
	case ptrace.Traces:
		return o.traces.ConsumeTraces(ctx, d)
	case pmetric.Metrics:
		return o.metrics.ConsumeMetrics(ctx, d)
	case plog.Logs:
		return o.logs.ConsumeLogs(ctx, d)
	}
	return fmt.Errorf("not a batch: %T", data)
}

// batch wraps a batch for Lua; the caller invalidates it.
func (v *vm) batch(data any) *pdatalua.Batch {
	switch d := data.(type) {
	case ptrace.Traces:
		return pdatalua.NewTraces(v.L, d)
	case pmetric.Metrics:
		return pdatalua.NewMetrics(v.L, d)
	case plog.Logs:
		return pdatalua.NewLogs(v.L, d)
	}
	panic(fmt.Sprintf("plugin: not a batch: %T", data))
}

// dataBatch wraps the batch of a data callback, reusing the state's
// Batch (and its buffers) from one callback to the next.
func (v *vm) dataBatch(data any) *pdatalua.Batch {
	if v.reuse == nil {
		v.reuse = v.batch(data)
		return v.reuse
	}
	switch d := data.(type) {
	case ptrace.Traces:
		v.reuse.ResetTraces(d)
	case pmetric.Metrics:
		v.reuse.ResetMetrics(d)
	case plog.Logs:
		v.reuse.ResetLogs(d)
	}
	return v.reuse
}

// wrapBatch wraps a batch for Lua during a call, which invalidates it
// when it returns.
func (v *vm) wrapBatch(data any) lua.LValue {
	b := v.batch(data)
	if v.cur != nil {
		v.cur.batches = append(v.cur.batches, b)
	}
	return b.Value()
}

// unwrapBatch returns the pdata batch a Lua value holds.
func unwrapBatch(x lua.LValue) (any, bool) {
	if td, ok := pdatalua.UnwrapTraces(x); ok {
		return td, true
	}
	if md, ok := pdatalua.UnwrapMetrics(x); ok {
		return md, true
	}
	if ld, ok := pdatalua.UnwrapLogs(x); ok {
		return ld, true
	}
	return nil, false
}

// checkBatch returns the batch of argument n or raises an argument error.
func checkBatch(L *lua.LState, n int) any {
	data, ok := unwrapBatch(L.Get(n))
	if !ok {
		L.ArgError(n, "expected a batch (valid only during the callback it was handed to), got "+L.Get(n).Type().String())
	}
	return data
}

// emit is emit(batch [, output]): the batch goes to output (an argument
// of type output or consumer), by default to the component's output, once
// the callback returns. The batch is no longer the component's then.
func (v *vm) emit(L *lua.LState) int {
	data := checkBatch(L, 1)
	var out *outputRef
	switch x := L.Get(2).(type) {
	case *lua.LNilType:
		if v.inst != nil {
			out = v.inst.out.Load()
		}
		if out == nil && v.inst != nil {
			L.RaiseError("emit: the component has no output argument: pass where to send the batch, emit(batch, args.<output>)")
		}
	case *lua.LUserData:
		switch r := x.Value.(type) {
		case *outputRef:
			out = r
		case *consumerRef:
			out = r.out
		}
	}
	if out == nil && v.inst != nil {
		L.ArgError(2, "expected an output or a consumer argument, got "+L.Get(2).Type().String())
	}
	if v.cur == nil {
		L.RaiseError("emit: only during a callback")
	}
	if v.inst != nil {
		v.cur.emits = append(v.cur.emits, emitted{data: data, out: out})
	}
	return 0
}

// forward sends what a call emitted, in order. A batch emitted more than
// once is copied for all but its last destination: each consumer owns
// what it is given. A batch without records (all dropped) is not sent.
func forward(ctx context.Context, emits []emitted) error {
	var errs []error
	for i, e := range emits {
		data := e.data
		if isEmpty(data) {
			continue
		}
		for _, later := range emits[i+1:] {
			if later.data == e.data {
				data = cloneBatch(data)
				break
			}
		}
		if err := e.out.send(ctx, data); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// isEmpty reports whether a batch holds no span, data point or log record.
func isEmpty(data any) bool {
	switch d := data.(type) {
	case ptrace.Traces:
		return d.SpanCount() == 0
	case pmetric.Metrics:
		return d.DataPointCount() == 0
	case plog.Logs:
		return d.LogRecordCount() == 0
	}
	return false
}

// cloneBatch copies a batch.
func cloneBatch(data any) any {
	switch d := data.(type) {
	case ptrace.Traces:
		c := ptrace.NewTraces()
		d.CopyTo(c)
		return c
	case pmetric.Metrics:
		c := pmetric.NewMetrics()
		d.CopyTo(c)
		return c
	case plog.Logs:
		c := plog.NewLogs()
		d.CopyTo(c)
		return c
	}
	return data
}

// openBatchHelpers binds the helpers that work on whole batches in Go.
func (v *vm) openBatchHelpers() {
	v.L.SetGlobal("extract", v.L.NewFunction(v.extract))
}

// extract is extract(batch, key, value): it moves the records (spans, log
// records, metric data points) whose attribute key equals value (the
// record's own attribute, else its resource's) out of batch into a new
// batch, which it returns; nil when no record matches (pdatalua.Extract).
func (v *vm) extract(L *lua.LState) int {
	data := checkBatch(L, 1)
	key := L.CheckString(2)
	want := L.CheckAny(3)
	if want.Type() == lua.LTTable || want.Type() == lua.LTFunction || want == lua.LNil {
		L.ArgError(3, "expected a string, number or boolean")
	}
	value := lua.LVAsString(want)
	if b, ok := want.(lua.LBool); ok {
		value = "false"
		if b {
			value = "true"
		}
	}
	out, n := pdatalua.Extract(data, key, value)
	if n == 0 {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(v.wrapBatch(out))
	return 1
}
