package otelcol

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/extension/extensioncapabilities"
	"go.opentelemetry.io/collector/pdata/pcommon"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// adapter is a flowlua component running one upstream component.
type adapter struct {
	k        *kind
	opts     flowcomp.Options
	id       component.ID // the collector id: type, and the flowlua label as name
	settings settings
	metrics  *metricsBridge
	health   health

	// waits ends deferred updates (see Update) when Run finishes.
	waits      context.Context
	cancelWait context.CancelFunc

	input  *dataplane.Indirect            // processors, exporters, connectors: the exported input
	out    *dataplane.Indirect            // receivers, processors, connectors: the fan-out to output
	routes map[string]*dataplane.Indirect // connectors: the fan-out to each named output

	mu      sync.Mutex
	args    decoded
	gen     uint64     // counts updates: a deferred one applies if still the last
	ext     *Extension // extensions: the handle exported as id
	cur     *instance  // nil when not running (or failed to start)
	running bool       // between starting and stopping in Run
	done    bool       // Run has returned

	// started is set once Run's first start has finished, successfully or
	// not, or Run ended before it (Starting).
	started atomic.Bool
	bg      sync.WaitGroup // drains and shutdowns of replaced instances

	stopBy atomic.Pointer[time.Time] // once Run is stopping: when draining must end

	// sending tracks the sends of the instance taking the data, for an
	// exporter's health (sending.go); nil otherwise.
	sending atomic.Pointer[sending]
	// refusing tracks what a receiver's output refuses, for its health
	// (refusing.go); nil for other components.
	refusing *refusing
}

var _ flowcomp.HealthComponent = (*adapter)(nil)

// newAdapter builds the component: see the package comment.
func newAdapter(k *kind, opts flowcomp.Options, d decoded) (*adapter, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a := &adapter{k: k, opts: opts, id: collectorID(k, opts.ID), args: d}
	a.waits, a.cancelWait = context.WithCancel(context.Background())
	a.health.set(flowcomp.HealthUnknown, "not started")

	bridge, err := newMetricsBridge(opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("registering metrics of %s: %w", opts.ID, err)
	}
	a.metrics = bridge
	a.settings = settings{
		ctx: context.Background(),
		id:  a.id,
		tel: component.TelemetrySettings{
			Logger:         newZapLogger(opts.Logger),
			TracerProvider: tracenoop.NewTracerProvider(),
			MeterProvider:  bridge.MeterProvider(),
			Resource:       pcommon.NewResource(),
		},
		build: component.BuildInfo{Command: "flowlua", Description: "flowlua", Version: version()},
	}

	if k.hasOutput() {
		a.out = dataplane.NewIndirect()
		a.out.Set(dataplane.FanOut(d.output))
		a.setRoutes(d)
		if usedSignals(d.output) == ([dataplane.NumSignals]bool{}) && len(d.routes) == 0 {
			opts.Logger.Warn("no consumers in output: nothing will be sent on")
		}
	}
	if k.hasInput() {
		a.input = dataplane.NewIndirect()
	}
	if k.class == classReceiver {
		a.refusing = &refusing{}
	}
	if k.class == classExtension {
		a.ext = newExtension(a.id)
	}
	inst, err := a.newInstance(d)
	if err != nil {
		a.cleanup()
		return nil, err
	}
	a.cur = inst
	if opts.OnStateChange != nil {
		switch {
		case k.hasInput():
			opts.OnStateChange(dataplane.Exports{Input: a.input})
		case k.class == classExtension:
			opts.OnStateChange(ExtensionExports{ID: a.ext})
		}
	}
	return a, nil
}

// collectorID is the collector id of a flowlua component: the factory's
// type, named by the flowlua id without the component name
// ("otelcol.extension.file_storage.queue" → file_storage/queue,
// "gateway.eu.otelcol.extension.file_storage.queue" → file_storage/gateway.eu.queue).
func collectorID(k *kind, flowID string) component.ID {
	name := flowID
	if i := strings.Index(flowID, k.name+"."); i >= 0 {
		name = flowID[:i] + flowID[i+len(k.name)+1:]
	}
	if name == "" {
		return component.NewID(k.factory.Type())
	}
	return component.NewIDWithName(k.factory.Type(), name)
}

// version is flowlua's module version, for BuildInfo (user agents).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// config returns the upstream config for d: the one decoding made (it is
// not decoded again), with the data-directory keys the script left unset
// pointing at the component's data path.
func (a *adapter) config(d decoded) (component.Config, error) {
	unset := unsetDataDirs(a.k, d.values)
	if len(unset) == 0 {
		return d.config, nil
	}
	if a.opts.DataPath == "" {
		return nil, fmt.Errorf("%s: no data path to keep %s in", a.opts.ID, strings.Join(unset, ", "))
	}
	if err := os.MkdirAll(a.opts.DataPath, 0o750); err != nil {
		return nil, err
	}
	cfg, err := withDataDir(a.k, d.config, d.values, unset, a.opts.DataPath)
	if err != nil {
		return nil, err
	}
	if !d.partial {
		if err := confmap.Validate(cfg); err != nil {
			return nil, validateErrors(err, a.k.configType)
		}
	}
	return cfg, nil
}

// CurrentHealth reports the upstream component's health: unhealthy when
// it failed to start or reported an error status; for an exporter, while
// its sends fail or its queue is full (sending.go); for a receiver, while
// its output refuses data (refusing.go).
func (a *adapter) CurrentHealth() flowcomp.Health {
	h := a.health.get()
	if h.Health != flowcomp.HealthHealthy {
		return h
	}
	if s := a.sending.Load(); s != nil {
		if msg, since, bad := s.problem(time.Now()); bad {
			return flowcomp.Health{Health: flowcomp.HealthUnhealthy, Message: msg, UpdateTime: since}
		}
	}
	if a.refusing != nil {
		if msg, since, bad := a.refusing.problem(time.Now()); bad {
			return flowcomp.Health{Health: flowcomp.HealthUnhealthy, Message: msg, UpdateTime: since}
		}
	}
	return h
}

// Starting reports whether Run has not yet finished starting the
// upstream component: until then a receiver does not listen, and the
// process is not ready.
func (a *adapter) Starting() bool { return !a.started.Load() }

// Run waits for the extensions the config references to start (the
// engine runs them before, but their Run starts them concurrently with
// this one), starts the instance and runs until ctx ends; it then stops
// the instance, which drains it.
func (a *adapter) Run(ctx context.Context) error {
	for {
		a.mu.Lock()
		exts := a.args.extensions
		if extensionsReady(exts) {
			break // holding a.mu
		}
		a.mu.Unlock()
		if !waitExtensions(ctx, exts) {
			a.started.Store(true)
			a.finish(context.Background()) // cancelled before the extensions ran
			return nil
		}
	}
	a.running = true
	if a.cur == nil {
		if inst, err := a.newInstance(a.args); err != nil {
			a.health.unhealthy(err.Error())
		} else {
			a.cur = inst
		}
	}
	if a.cur != nil {
		if err := a.startLocked(a.cur); err != nil {
			a.cur = nil
		}
	}
	a.started.Store(true)
	a.mu.Unlock()

	<-ctx.Done()

	a.finish(ctx)
	return nil
}

// finish stops the current instance (draining it until the stop's drain
// deadline, then shutting it down with ctx's values but not its
// cancellation) and releases what Build took. Updates after it only record
// their arguments.
func (a *adapter) finish(ctx context.Context) {
	stopBy, ok := flowcomp.DrainDeadline(ctx)
	if !ok {
		stopBy = time.Now().Add(a.opts.DrainTimeout)
	}
	a.stopBy.Store(&stopBy)
	a.mu.Lock()
	a.running = false
	a.done = true
	inst := a.cur
	a.cur = nil
	a.mu.Unlock()
	a.cancelWait()
	if inst != nil && a.input != nil && a.input.Get() == dataplane.Consumer(inst) {
		a.input.Set(nil) // upstream components are stopped first: nothing new comes
	}
	if inst != nil {
		a.drain(inst, "stopping", func() time.Time { return stopBy })
	}
	a.retire(context.WithoutCancel(ctx), inst)
	a.bg.Wait()
	a.cleanup()
}

// startLocked starts inst and makes it current: the input points at it,
// an extension's handle serves it (a new handle is exported).
func (a *adapter) startLocked(inst *instance) error {
	a.health.set(flowcomp.HealthUnknown, "starting")
	if err := inst.start(context.Background()); err != nil {
		a.health.unhealthy("starting: " + err.Error())
		a.opts.Logger.Error("failed to start", "err", err)
		return err
	}
	if inst.ext != nil {
		inst.ext.started(inst.comps[0])
		// The collector tells pipeline watchers (health_check) once its
		// pipelines run; an extension here starts after the components
		// it serves are built, and flowlua's own readiness is /-/ready.
		if w, ok := inst.comps[0].(extensioncapabilities.PipelineWatcher); ok {
			if err := w.Ready(); err != nil {
				a.opts.Logger.Warn("the extension refused the pipelines' readiness", "err", err)
			}
		}
		if inst.ext != a.ext {
			a.ext = inst.ext
			if a.opts.OnStateChange != nil {
				a.opts.OnStateChange(ExtensionExports{ID: a.ext})
			}
		}
	}
	if a.input != nil {
		a.input.Set(inst)
	}
	a.sending.Store(inst.probe.send)
	a.health.healthyUnless(flowcomp.HealthUnhealthy, "running")
	return nil
}

// retire stops serving inst and shuts it down.
func (a *adapter) retire(ctx context.Context, inst *instance) {
	if inst == nil {
		return
	}
	if inst.ext != nil {
		inst.ext.stopped()
		if w, ok := inst.comps[0].(extensioncapabilities.PipelineWatcher); ok {
			_ = w.NotReady()
		}
	}
	if a.input != nil && a.input.Get() == dataplane.Consumer(inst) {
		a.input.Set(nil)
	}
	if left := inst.probe.queued(); left > 0 && inst.probe.persistent {
		// The exporterhelper logs the requests it was retrying as
		// "Dropping data", but a persistent queue keeps them.
		a.opts.Logger.Info("shutting down a persistent queue: what was not sent stays in its storage for the next instance", "queued", left)
	}
	if err := inst.shutdown(ctx); err != nil {
		a.opts.Logger.Error("failed to shut down", "err", err)
	}
}

// cleanup releases what Build took: the metrics.
func (a *adapter) cleanup() {
	a.cancelWait()
	a.metrics.close()
}

// Update applies new arguments (see the package comment). New arguments
// that reference an extension not started yet (the engine updates running
// components before it starts new ones) are applied once it has started.
func (a *adapter) Update(args flowcomp.Arguments) error {
	d, err := a.k.decoded(args)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.gen++
	if a.running && !extensionsReady(d.extensions) {
		gen := a.gen
		a.bg.Add(1)
		go a.applyWhenReady(gen, d)
		return nil
	}
	return a.applyLocked(d)
}

// applyWhenReady applies d once its extensions have started, unless
// another update came meanwhile or Run finished.
func (a *adapter) applyWhenReady(gen uint64, d decoded) {
	defer a.bg.Done()
	if !waitExtensions(a.waits, d.extensions) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done || a.gen != gen {
		return
	}
	if err := a.applyLocked(d); err != nil {
		a.health.unhealthy("update failed: " + err.Error())
		a.opts.Logger.Error("updating once its extensions started failed", "err", err)
	}
}

// applyLocked applies d.
func (a *adapter) applyLocked(d decoded) error {
	if a.done {
		a.args = d
		return nil
	}

	sameConfig := reflect.DeepEqual(a.args.values, d.values) || reflect.DeepEqual(a.args.config, d.config)
	sameConfig = sameConfig && slices.Equal(a.args.extensions, d.extensions)
	sameConfig = sameConfig && a.args.routes.sameNames(d.routes)
	if a.cur != nil && sameConfig && usedSignals(a.args.output) == usedSignals(d.output) {
		a.setOutput(d)
		a.args = d
		return nil
	}
	inst, err := a.newInstance(d)
	if err != nil {
		return err // the current instance keeps running
	}
	if !a.running {
		if a.cur != nil {
			_ = a.cur.shutdown(context.Background()) // never started
		}
		a.cur = inst
		a.setOutput(d)
		a.args = d
		return nil
	}
	if a.k.hasInput() && a.cur != nil {
		return a.replaceOverlapped(inst, d)
	}
	return a.replaceSequential(inst, d)
}

// setOutput points the fan-out at d's consumers.
func (a *adapter) setOutput(d decoded) {
	if a.out != nil {
		a.out.Set(dataplane.FanOut(d.output))
	}
	a.setRoutes(d)
}

// replaceOverlapped starts inst beside the current instance, swaps the
// input to it and shuts the old one down in the background. When inst
// cannot start beside it (both want one file), it falls back to
// replaceSequential, holding incoming data meanwhile.
func (a *adapter) replaceOverlapped(inst *instance, d decoded) error {
	old := a.cur
	if err := inst.start(context.Background()); err != nil {
		a.opts.Logger.Info("new instance could not start beside the old one; stopping the old one first", "err", err)
		g := newGate(a.input, old.caps)
		a.input.Set(g)
		defer g.release()
		fresh, ferr := a.newInstance(d)
		if ferr != nil {
			a.input.Set(old)
			return ferr
		}
		return a.replaceSequential(fresh, d)
	}
	a.setOutput(d)
	a.input.Set(inst)
	a.sending.Store(inst.probe.send)
	a.cur = inst
	a.args = d
	a.health.healthy("running")
	until := a.drainUntil()
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		// New calls go to inst; old drains its queue (with its own
		// config) before it is shut down.
		a.drain(old, "replaced", until)
		a.retire(context.Background(), old)
	}()
	return nil
}

// replaceSequential stops the current instance, then starts inst; if inst
// fails to start, the previous arguments are started again.
func (a *adapter) replaceSequential(inst *instance, d decoded) error {
	a.retire(context.Background(), a.cur)
	a.cur = nil
	a.setOutput(d)
	err := a.startLocked(inst)
	if err == nil {
		a.cur = inst
		a.args = d
		return nil
	}
	a.setOutput(a.args)
	if prev, perr := a.newInstance(a.args); perr == nil && a.startLocked(prev) == nil {
		a.cur = prev
		a.health.unhealthy("new arguments failed to start, running the previous ones: " + err.Error())
	} else if a.input != nil {
		a.input.Set(nil) // nothing runs: refuse data rather than hold it
	}
	return fmt.Errorf("starting %s with the new arguments: %w", a.opts.ID, err)
}
