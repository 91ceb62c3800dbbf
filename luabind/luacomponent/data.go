package luacomponent

import (
	"context"
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// The consumers behind a data component's input, one per signal. They
// declare that they mutate data: the Lua code may write to the batches.
type (
	tracesInput  struct{ inst *instance }
	metricsInput struct{ inst *instance }
	logsInput    struct{ inst *instance }
)

var mutates = consumer.Capabilities{MutatesData: true}

func (c tracesInput) Capabilities() consumer.Capabilities  { return mutates }
func (c metricsInput) Capabilities() consumer.Capabilities { return mutates }
func (c logsInput) Capabilities() consumer.Capabilities    { return mutates }

// ConsumeTraces calls on_traces with td.
func (c tracesInput) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	return c.inst.consume(ctx, dataplane.Traces, td)
}

// ConsumeMetrics calls on_metrics with md.
func (c metricsInput) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	return c.inst.consume(ctx, dataplane.Metrics, md)
}

// ConsumeLogs calls on_logs with ld.
func (c logsInput) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	return c.inst.consume(ctx, dataplane.Logs, ld)
}

// consume hands a batch to its callback in a free state and forwards
// what the callback emitted and returned. When the callback fails, the
// batch is passed on as it is (edits made before the failure stay) or
// dropped, as on_error says.
func (inst *instance) consume(ctx context.Context, s dataplane.Signal, data any) error {
	v, err := inst.pool.acquire(ctx)
	if err != nil {
		return err
	}
	set := inst.set.Load()
	hook := hookName(s)
	inst.rebuildIfBroken(v)
	b := v.dataBatch(data)
	rets, c, err := v.callCollect(ctx, hook, v.hooks.on[s], set.timeout, set.memory, b.Value())
	var emits []emitted
	if err == nil {
		emits, err = inst.results(hook, rets, c.emits)
	}
	c.invalidate()
	b.Invalidate()
	restart := false
	if overLimit(err) {
		restart = inst.rebuild(v) && v.primary
	}
	inst.pool.release(v)
	if restart {
		inst.restart(v)
	}

	if err != nil {
		inst.failed(hook, err)
		out := inst.out.Load()
		if set.drop || out == nil {
			inst.opts.CountDropped(s.String(), component.DropOnError, dataplane.Items(data))
			return nil
		}
		return out.send(ctx, data)
	}
	inst.health.ok(hook)
	return forward(ctx, emits)
}

// results adds the batch a callback returned to what it emitted: a batch
// goes to the output (once, if it was emitted there already); nil, false
// or nothing adds nothing.
func (inst *instance) results(hook string, rets []lua.LValue, emits []emitted) ([]emitted, error) {
	if len(rets) == 0 || !lua.LVAsBool(rets[0]) {
		return emits, nil
	}
	data, ok := unwrapBatch(rets[0])
	if !ok {
		return nil, &callError{hook: hook, traceback: fmt.Sprintf("must return a batch, nil or false, got %s", rets[0].Type())}
	}
	out := inst.out.Load()
	if out == nil {
		return nil, &callError{hook: hook, traceback: "returned a batch but the component has no output argument: use emit(batch, output)"}
	}
	for _, e := range emits {
		if e.data == data && e.out == out {
			return emits, nil
		}
	}
	return append(emits, emitted{data: data, out: out}), nil
}
