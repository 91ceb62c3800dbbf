package luacomponent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/luabind/luamem"
)

// instance is a running Lua component.
//
// Its life:
//
//  1. Build (newInstance) creates the primary Lua state and, for data
//     components, concurrency-1 more; each runs the component file. It
//     publishes the exports (input for data components). Batches may
//     arrive from now on.
//  2. Run registers the metrics and routes, starts the timers created so
//     far, calls start(ctx) in the primary state, waits for its context
//     to end, stops the timers, calls stop() and removes the routes.
//  3. Update (concurrently with Run) sets the global args of every state
//     and calls update(args) in each.
type instance struct {
	k      *Kind
	opts   component.Options
	logger *slog.Logger

	pool    *pool
	primary *vm
	health  *health
	metrics *metricSet
	errs    *prometheus.CounterVec
	timers  timerSet
	input   dataplane.Consumer // nil unless data

	set atomic.Pointer[settings]
	out atomic.Pointer[outputRef] // the output argument, if any

	updateMu sync.Mutex // one Update at a time

	args   atomic.Pointer[reflect.Value]   // the decoded arguments in effect
	runCtx atomic.Pointer[context.Context] // Run's context, while it runs

	expMu   sync.Mutex
	exports reflect.Value // of the exports struct, addressable
}

// settings are the host arguments in effect.
type settings struct {
	timeout time.Duration
	memory  int64 // memory_limit, bytes
	drop    bool  // on_error = "drop"
	n       int   // concurrency
}

var (
	_ component.Component       = (*instance)(nil)
	_ component.HealthComponent = (*instance)(nil)
)

// newInstance builds a component of kind k.
func newInstance(k *Kind, opts component.Options, args component.Arguments) (*instance, error) {
	inst := &instance{
		k:       k,
		opts:    opts,
		logger:  opts.Logger,
		health:  newHealth(),
		metrics: newMetricSet(k.metricPrefix()),
	}
	if inst.logger == nil {
		inst.logger = slog.New(slog.DiscardHandler)
	}
	inst.errs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "flowlua_lua_errors_total",
		Help: "Calls into a Lua component's code that failed (reason: error or timeout), by hook.",
	}, []string{"hook", "reason"})
	_ = inst.metrics.add(inst.errs)

	av := reflect.ValueOf(args)
	inst.apply(av)
	set := inst.set.Load()
	inst.exports = k.initialExports() // the file may set exports as it runs
	primary, _, err := newVM(k, inst, true, av, set.timeout, set.memory)
	if err != nil {
		return nil, err
	}
	vms := []*vm{primary}
	for len(vms) < set.n {
		v, _, err := newVM(k, inst, false, av, set.timeout, set.memory)
		if err != nil {
			return nil, err
		}
		vms = append(vms, v)
	}
	inst.primary, inst.pool = primary, newPool(vms)

	if k.def.data {
		sigs := &dataplane.Signals{}
		if k.def.signals[dataplane.Traces] {
			sigs.Traces = tracesInput{inst}
		}
		if k.def.signals[dataplane.Metrics] {
			sigs.Metrics = metricsInput{inst}
		}
		if k.def.signals[dataplane.Logs] {
			sigs.Logs = logsInput{inst}
		}
		inst.input = sigs
	}
	if inst.input != nil {
		inst.expMu.Lock()
		inst.exports.Field(k.schema.exportIndex["input"]).Set(reflect.ValueOf(inst.input))
		inst.expMu.Unlock()
	}
	inst.publish()
	return inst, nil
}

// apply takes the host arguments of decoded arguments.
func (inst *instance) apply(args reflect.Value) {
	inst.args.Store(&args)
	s := &settings{timeout: DefaultTimeout, memory: DefaultMemoryLimit, n: 1}
	sch := inst.k.schema
	if f, ok := sch.hostArg(args, argTimeout); ok {
		s.timeout = time.Duration(f.Int())
	}
	if f, ok := sch.hostArg(args, argMemoryLimit); ok {
		if n, err := luamem.ParseSize(f.String()); err == nil {
			s.memory = n
		}
	}
	if f, ok := sch.hostArg(args, argOnError); ok {
		s.drop = f.String() == "drop"
	}
	if f, ok := sch.hostArg(args, argConcurrency); ok {
		s.n = int(f.Int())
	}
	inst.set.Store(s)
	if f, ok := sch.hostArg(args, argOutput); ok {
		inst.out.Store(newOutputRef(f.Interface().(dataplane.Output), inst.opts.Tap))
	}
}

// Run runs the component until ctx ends (see the type's comment).
func (inst *instance) Run(ctx context.Context) error {
	if err := inst.metrics.start(inst.opts.Registerer); err != nil {
		inst.logger.Error("registering the component's metrics failed", "err", err)
	}
	unroute := inst.serveRoutes()
	defer unroute()
	inst.runCtx.Store(&ctx)
	defer inst.runCtx.Store(nil)

	inst.timers.run(ctx, inst.fire)
	inst.start(ctx)
	<-ctx.Done()
	inst.timers.wait()
	// The hooks are read with the state locked: a rebuild replaces them.
	_ = inst.invoke(context.Background(), inst.primary, "stop", func(v *vm) (*lua.LFunction, []lua.LValue) {
		return v.hooks.stop, nil
	}, nil)
	return nil
}

// start calls start(ctx) in the primary state, if the file has it.
func (inst *instance) start(ctx context.Context) {
	_ = inst.invoke(ctx, inst.primary, "start", func(v *vm) (*lua.LFunction, []lua.LValue) {
		if v.hooks.start == nil {
			return nil, nil
		}
		info := v.L.NewTable()
		info.RawSetString("id", lua.LString(inst.opts.ID))
		info.RawSetString("data_path", lua.LString(inst.opts.DataPath))
		return v.hooks.start, []lua.LValue{info}
	}, nil)
}

// Update applies new arguments to every state.
func (inst *instance) Update(args component.Arguments) error {
	inst.updateMu.Lock()
	defer inst.updateMu.Unlock()
	av := reflect.ValueOf(args)
	inst.apply(av)
	set := inst.set.Load()
	err := inst.pool.resize(set.n, func() (*vm, error) {
		v, _, err := newVM(inst.k, inst, false, av, set.timeout, set.memory)
		return v, err
	})
	if err != nil {
		return fmt.Errorf("starting a Lua state: %w", err)
	}
	var errs []error
	for _, v := range inst.pool.states() {
		err := inst.invoke(context.Background(), v, "update", func(v *vm) (*lua.LFunction, []lua.LValue) {
			t := v.toLua(av, inst.k.schema.args, 0)
			v.L.SetGlobal("args", t)
			return v.hooks.update, []lua.LValue{t}
		}, nil)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CurrentHealth returns the component's health.
func (inst *instance) CurrentHealth() component.Health { return inst.health.current() }

// invoke runs a hook in v: prepare (called with v locked) returns the
// function and its arguments, or a nil function for none; finish, if
// set, reads the results (v still locked). What the call
// emitted is forwarded once v is unlocked; a failure is recorded in the
// health and metrics and returned.
func (inst *instance) invoke(ctx context.Context, v *vm, hook string, prepare func(v *vm) (*lua.LFunction, []lua.LValue), finish func(v *vm, rets []lua.LValue) error) error {
	v.mu.Lock()
	inst.rebuildIfBroken(v)
	fn, args := prepare(v)
	if fn == nil {
		v.mu.Unlock()
		return nil
	}
	set := inst.set.Load()
	rets, c, err := v.callCollect(ctx, hook, fn, set.timeout, set.memory, args...)
	if err == nil && finish != nil {
		if ferr := finish(v, rets); ferr != nil {
			err = &callError{hook: hook, traceback: ferr.Error()}
		}
	}
	c.invalidate()
	restart := false
	if overLimit(err) {
		restart = inst.rebuild(v) && v.primary && hook != "start" && hook != "stop"
	}
	v.mu.Unlock()
	if restart {
		inst.restart(v)
	}
	if err != nil {
		inst.failed(hook, err)
		return err
	}
	inst.health.ok(hook)
	return forward(ctx, c.emits)
}

// fire calls a timer's function, unless its state was rebuilt since
// the timer was created.
func (inst *instance) fire(t *timer) {
	ctx := context.Background()
	err := inst.invoke(ctx, t.v, "timer", func(v *vm) (*lua.LFunction, []lua.LValue) {
		if t.gen != v.gen {
			t.cancel()
			return nil, nil
		}
		return t.fn, nil
	}, nil)
	var ce *callError
	if err != nil && !errors.As(err, &ce) {
		inst.logger.Warn("forwarding what a timer emitted failed", "err", err)
	}
}

// rebuild discards a state that went over its memory limit and builds a
// new one in its place (see vm.reset); the caller holds v.mu. It reports
// whether the new state is up.
func (inst *instance) rebuild(v *vm) bool {
	set := inst.set.Load()
	if err := v.reset(*inst.args.Load(), set.timeout, set.memory); err != nil {
		inst.logger.Error("rebuilding a Lua state failed", "err", err)
		return false
	}
	inst.logger.Warn("rebuilt a Lua state that went over its memory limit", "limit", luamem.FormatSize(set.memory))
	return true
}

// rebuildIfBroken retries building a state whose rebuild failed; the
// caller holds v.mu.
func (inst *instance) rebuildIfBroken(v *vm) {
	if v.L.IsClosed() {
		inst.rebuild(v)
	}
}

// restart calls start in a rebuilt primary state while the component
// runs: its timers died with the old state.
func (inst *instance) restart(v *vm) {
	ctx := inst.runCtx.Load()
	if ctx == nil || (*ctx).Err() != nil || v != inst.primary {
		return
	}
	inst.start(*ctx)
}

// failed records a failed call.
func (inst *instance) failed(hook string, err error) {
	reason := "error"
	var ce *callError
	if errors.As(err, &ce) {
		reason = ce.reason()
	}
	inst.errs.WithLabelValues(hook, reason).Inc()
	if inst.health.fail(hook, err.Error()) {
		inst.logger.Error("Lua code failed", "hook", hook, "reason", reason, "err", err.Error())
	}
}
