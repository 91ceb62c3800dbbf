package otelcol

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// instance is the set of upstream components built from one config: a
// receiver's or processor's components for the signals in use, an
// exporter's for every signal it supports, or one extension. As a
// dataplane.Consumer it dispatches each signal to its component.
//
// An instance is closed before its components are shut down: a call that
// arrives after that goes to redirect (the component's input, which by
// then points at the instance that replaced this one), and shutdown waits
// for the calls already inside to return, so that nothing in flight is
// lost to a component that is stopping.
type instance struct {
	comps   []component.Component
	traces  consumer.Traces
	metrics consumer.Metrics
	logs    consumer.Logs
	caps    consumer.Capabilities
	reject  [dataplane.NumSignals]error

	cfg   component.Config // the config the components were created from
	host  *host            // serves the extensions the config referenced
	ext   *Extension       // an extension instance's handle
	probe *probe           // watches the components' queues and drops (drain.go)

	redirect dataplane.Consumer
	inflight atomic.Int64
	closed   atomic.Bool
}

var _ dataplane.Consumer = (*instance)(nil)

// newInstance creates the upstream components for d. They are not started.
func (a *adapter) newInstance(d decoded) (*instance, error) {
	cfg, err := a.config(d)
	if err != nil {
		return nil, err
	}
	inst := &instance{cfg: cfg, redirect: a.input, host: &host{health: &a.health, extensions: d.extensions}}
	inst.probe = &probe{dropped: a.opts.Dropped, persistent: persistentQueue(cfg)}
	k := a.k
	s := a.settings
	if k.class == classExporter {
		inst.probe.send = &sending{}
		s.tel.Logger = sendingLogger(s.tel.Logger, inst.probe.send)
	}
	s.tel.MeterProvider = probeMeterProvider{MeterProvider: s.tel.MeterProvider, p: inst.probe}
	if k.class == classExtension {
		c, err := k.createExtension(s, cfg)
		if err != nil {
			return nil, fmt.Errorf("creating %s: %w", a.id, err)
		}
		inst.comps = append(inst.comps, c)
		inst.ext = a.ext
		if a.ext == nil || a.ext.isReady() { // the published handle is taken
			inst.ext = newExtension(a.id)
		}
		return inst, nil
	}
	used := usedSignals(d.output)
	if k.class == classConnector {
		if err := a.addConnections(inst, cfg, d); err != nil {
			_ = inst.shutdown(context.Background())
			return nil, err
		}
		return inst, nil
	}
	upstreamCfg, part := cfg, receiverPart(nil)
	if k.takeOver != nil {
		if upstreamCfg, part, err = k.takeOver(s, cfg); err != nil {
			return nil, err
		}
	}
	var firstErr error // an exporter's first signal its config rules out
	for _, sig := range dataplane.AllSignals {
		switch {
		case !k.supports[sig]:
			inst.reject[sig] = fmt.Errorf("%s does not accept %s: %w", a.opts.ID, sig, dataplane.ErrUnsupportedSignal)
			continue
		case k.hasOutput() && !used[sig]:
			inst.reject[sig] = fmt.Errorf("%s has no %s output: %w", a.opts.ID, sig, dataplane.ErrUnsupportedSignal)
			continue
		}
		var next dataplane.Consumer = a.out
		if k.class == classReceiver {
			next = dataplane.Entry(refusingConsumer{next: next, r: a.refusing})
		}
		c, err := k.create(s, upstreamCfg, sig, next)
		if err != nil && k.class == classExporter {
			// An exporter is created for every signal it supports, not
			// only those sent to it: a config may rule one out
			// (load_balancing's routing_key traceID takes no metrics).
			// That signal is refused; the others work.
			inst.reject[sig] = fmt.Errorf("%s cannot take %s with its config: %w", a.opts.ID, sig, err)
			if firstErr == nil {
				firstErr = fmt.Errorf("creating %s for %s: %w", a.id, sig, err)
			}
			continue
		}
		if err != nil {
			_ = inst.shutdown(context.Background())
			return nil, fmt.Errorf("creating %s for %s: %w", a.id, sig, err)
		}
		inst.comps = append(inst.comps, c)
		if k.class == classReceiver {
			if part != nil {
				part.setConsumer(sig, next)
			}
			continue
		}
		switch sig {
		case dataplane.Traces:
			inst.traces = c.(consumer.Traces)
		case dataplane.Metrics:
			inst.metrics = c.(consumer.Metrics)
		case dataplane.Logs:
			inst.logs = c.(consumer.Logs)
		}
		if c.(interface{ Capabilities() consumer.Capabilities }).Capabilities().MutatesData {
			inst.caps.MutatesData = true
		}
	}
	if len(inst.comps) == 0 && firstErr != nil {
		return nil, firstErr
	}
	if part != nil && len(inst.comps) > 0 {
		inst.comps = append(inst.comps, part) // started last, shut down first
	}
	return inst, nil
}

// start starts the components; if one fails, all are shut down (the
// collector's components must accept Shutdown without Start).
func (i *instance) start(ctx context.Context) error {
	for _, c := range i.comps {
		if err := c.Start(ctx, i.host); err != nil {
			_ = i.shutdown(ctx)
			return err
		}
	}
	return nil
}

// shutdown closes the instance, waits for the calls inside to return and
// shuts the components down (in reverse order), which drains them.
func (i *instance) shutdown(ctx context.Context) error {
	i.closed.Store(true)
	i.probe.retiring.Store(true)
	for d := 50 * time.Microsecond; i.inflight.Load() > 0; d = min(2*d, 10*time.Millisecond) {
		time.Sleep(d)
	}
	var errs []error
	for j := len(i.comps) - 1; j >= 0; j-- {
		errs = append(errs, i.comps[j].Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// enter counts a call in; it fails once the instance is closed.
func (i *instance) enter() bool {
	i.inflight.Add(1)
	if i.closed.Load() {
		i.inflight.Add(-1)
		return false
	}
	return true
}

func (i *instance) leave() { i.inflight.Add(-1) }

// unsupported counts n items of sig refused because the instance does not
// take sig.
func (i *instance) unsupported(sig dataplane.Signal, n int) {
	if i.probe.dropped != nil && n > 0 {
		i.probe.dropped(sig.String(), flowcomp.DropUnsupportedSignal, n)
	}
}

// Capabilities says whether any of the instance's components mutates data.
func (i *instance) Capabilities() consumer.Capabilities { return i.caps }

// ConsumeTraces hands td to the traces component.
func (i *instance) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if i.traces == nil {
		i.unsupported(dataplane.Traces, td.SpanCount())
		return consumererror.NewPermanent(i.reject[dataplane.Traces])
	}
	if !i.enter() {
		return i.redirect.ConsumeTraces(ctx, td)
	}
	defer i.leave()
	return i.traces.ConsumeTraces(ctx, td)
}

// ConsumeMetrics hands md to the metrics component.
func (i *instance) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	if i.metrics == nil {
		i.unsupported(dataplane.Metrics, md.DataPointCount())
		return consumererror.NewPermanent(i.reject[dataplane.Metrics])
	}
	if !i.enter() {
		return i.redirect.ConsumeMetrics(ctx, md)
	}
	defer i.leave()
	return i.metrics.ConsumeMetrics(ctx, md)
}

// ConsumeLogs hands ld to the logs component.
func (i *instance) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	if i.logs == nil {
		i.unsupported(dataplane.Logs, ld.LogRecordCount())
		return consumererror.NewPermanent(i.reject[dataplane.Logs])
	}
	if !i.enter() {
		return i.redirect.ConsumeLogs(ctx, ld)
	}
	defer i.leave()
	return i.logs.ConsumeLogs(ctx, ld)
}

// gate holds incoming calls while a component is replaced by stopping the
// old instance before starting the new one; once opened, the calls go on
// to next (the component's input, pointing at the new instance).
type gate struct {
	open chan struct{}
	next dataplane.Consumer
	caps consumer.Capabilities
}

func newGate(next dataplane.Consumer, caps consumer.Capabilities) *gate {
	return &gate{open: make(chan struct{}), next: next, caps: caps}
}

func (g *gate) release() { close(g.open) }

func (g *gate) wait(ctx context.Context) error {
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Capabilities are the replaced instance's.
func (g *gate) Capabilities() consumer.Capabilities { return g.caps }

// ConsumeTraces waits for the gate to open.
func (g *gate) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if err := g.wait(ctx); err != nil {
		return err
	}
	return g.next.ConsumeTraces(ctx, td)
}

// ConsumeMetrics waits for the gate to open.
func (g *gate) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	if err := g.wait(ctx); err != nil {
		return err
	}
	return g.next.ConsumeMetrics(ctx, md)
}

// ConsumeLogs waits for the gate to open.
func (g *gate) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	if err := g.wait(ctx); err != nil {
		return err
	}
	return g.next.ConsumeLogs(ctx, ld)
}
