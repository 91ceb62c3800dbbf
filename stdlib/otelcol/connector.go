package otelcol

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pipeline"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// A connector (otelcol.connector.*) is an exporter of one signal and a
// receiver of another, as in the collector: its `input` takes the signals
// it has a connection from, its `output` the signals it connects them to.
// An instance holds one upstream component per connection in use (an
// input signal it accepts to an output signal with consumers), created
// from one config pointer as the collector does, so that a connector that
// shares state between its connections (spanmetrics, servicegraph) shares
// it here too. Each input signal fans out to its connections; each
// connection feeds a router (connector.NewTracesRouter) over the output
// pipelines of its signal, by collector pipeline id: the default output
// of the signal, named after it ("traces"), and the named outputs of that
// signal ("traces/errors", see routes). Connectors that route (routing)
// pick pipelines by those ids; the others use the router as a consumer,
// which fans out to all of them. Every pipeline is a fan-out behind an
// Indirect that the adapter swaps on Update, as a processor's output.

// pipelineSignals maps flowlua's signals to the collector's.
var pipelineSignals = [dataplane.NumSignals]pipeline.Signal{
	dataplane.Traces:  pipeline.SignalTraces,
	dataplane.Metrics: pipeline.SignalMetrics,
	dataplane.Logs:    pipeline.SignalLogs,
}

// connectionsOf returns which connections f has: [in][out].
func connectionsOf(f connector.Factory) [dataplane.NumSignals][dataplane.NumSignals]bool {
	levels := [dataplane.NumSignals][dataplane.NumSignals]component.StabilityLevel{
		dataplane.Traces:  {f.TracesToTracesStability(), f.TracesToMetricsStability(), f.TracesToLogsStability()},
		dataplane.Metrics: {f.MetricsToTracesStability(), f.MetricsToMetricsStability(), f.MetricsToLogsStability()},
		dataplane.Logs:    {f.LogsToTracesStability(), f.LogsToMetricsStability(), f.LogsToLogsStability()},
	}
	var c [dataplane.NumSignals][dataplane.NumSignals]bool
	for in := range levels {
		for out, l := range levels[in] {
			c[in][out] = l != component.StabilityLevelUndefined
		}
	}
	return c
}

// createConnector creates f's connection from in to out, feeding a
// router over next, the output pipelines of signal out.
func createConnector(f connector.Factory, s settings, cfg component.Config, in, out dataplane.Signal, next map[pipeline.ID]dataplane.Consumer) (component.Component, error) {
	set := connector.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
	switch out {
	case dataplane.Traces:
		r := connector.NewTracesRouter(pipelinesOf[consumer.Traces](next))
		switch in {
		case dataplane.Traces:
			return f.CreateTracesToTraces(s.ctx, set, cfg, r)
		case dataplane.Metrics:
			return f.CreateMetricsToTraces(s.ctx, set, cfg, r)
		default:
			return f.CreateLogsToTraces(s.ctx, set, cfg, r)
		}
	case dataplane.Metrics:
		r := connector.NewMetricsRouter(pipelinesOf[consumer.Metrics](next))
		switch in {
		case dataplane.Traces:
			return f.CreateTracesToMetrics(s.ctx, set, cfg, r)
		case dataplane.Metrics:
			return f.CreateMetricsToMetrics(s.ctx, set, cfg, r)
		default:
			return f.CreateLogsToMetrics(s.ctx, set, cfg, r)
		}
	default:
		r := connector.NewLogsRouter(pipelinesOf[consumer.Logs](next))
		switch in {
		case dataplane.Traces:
			return f.CreateTracesToLogs(s.ctx, set, cfg, r)
		case dataplane.Metrics:
			return f.CreateMetricsToLogs(s.ctx, set, cfg, r)
		default:
			return f.CreateLogsToLogs(s.ctx, set, cfg, r)
		}
	}
}

// pipelinesOf returns next with its consumers as Cs.
func pipelinesOf[C any](next map[pipeline.ID]dataplane.Consumer) map[pipeline.ID]C {
	m := make(map[pipeline.ID]C, len(next))
	for id, c := range next {
		m[id] = any(c).(C)
	}
	return m
}

// routes are a connector's named outputs, by collector pipeline id
// ("traces/errors"): output keys beside traces, metrics and logs, for
// the connectors whose config names pipelines (routing's table[].pipelines
// and default_pipelines). The default output of a signal is the pipeline
// named after it ("traces").
type routes map[pipeline.ID][]dataplane.Consumer

// sameNames reports whether r and o name the same pipelines.
func (r routes) sameNames(o routes) bool {
	if len(r) != len(o) {
		return false
	}
	for id := range r {
		if _, ok := o[id]; !ok {
			return false
		}
	}
	return true
}

// signalOf returns the flowlua signal of a pipeline id.
func signalOf(id pipeline.ID) dataplane.Signal {
	for s, ps := range pipelineSignals {
		if ps == id.Signal() {
			return dataplane.Signal(s)
		}
	}
	return dataplane.Logs
}

// splitRoutes takes the named outputs ("traces/errors") out of a
// connector's output table; the rest is the default output.
func splitRoutes(k *kind, v any) (any, routes, decode.Errors) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil, nil
	}
	var rs routes
	var errs decode.Errors
	rest := map[string]any{}
	for key, val := range m {
		if !strings.Contains(key, "/") {
			rest[key] = val
			continue
		}
		path := "output." + key
		var id pipeline.ID
		if err := id.UnmarshalText([]byte(key)); err != nil {
			errs = append(errs, decode.Errorf(path, "a named output is <signal>/<name>: %v", err))
			continue
		}
		sig := signalOf(id)
		if id.Signal() != pipelineSignals[sig] || !k.produces[sig] {
			errs = append(errs, decode.Errorf(path, "%s does not produce %s", k.name, id.Signal()))
			continue
		}
		var cs []dataplane.Consumer
		if err := decode.Decode(val, &cs); err != nil {
			errs = append(errs, decode.Errorf(path, "%v", err))
			continue
		}
		if rs == nil {
			rs = routes{}
		}
		rs[id] = cs
	}
	return rest, rs, errs
}

// setRoutes points each named output's fan-out at d's consumers; an
// output a new instance will name gets its fan-out here, before the
// instance is created.
func (a *adapter) setRoutes(d decoded) {
	for id, cs := range d.routes {
		ind := a.routes[id.String()]
		if ind == nil {
			if a.routes == nil {
				a.routes = map[string]*dataplane.Indirect{}
			}
			ind = dataplane.NewIndirect()
			a.routes[id.String()] = ind
		}
		var o dataplane.Output
		switch signalOf(id) {
		case dataplane.Traces:
			o.Traces = cs
		case dataplane.Metrics:
			o.Metrics = cs
		default:
			o.Logs = cs
		}
		ind.Set(dataplane.FanOut(o))
	}
}

// addConnections creates the connections of a connector instance: for
// each input signal, the connections to the output signals with
// consumers (in output or a named output), fanned out to when there are
// several.
func (a *adapter) addConnections(inst *instance, cfg component.Config, d decoded) error {
	k := a.k
	next := [dataplane.NumSignals]map[pipeline.ID]dataplane.Consumer{}
	for _, out := range dataplane.AllSignals {
		next[out] = map[pipeline.ID]dataplane.Consumer{}
		if len(d.output.Consumers(out)) > 0 {
			next[out][pipeline.NewID(pipelineSignals[out])] = a.out
		}
	}
	for id := range d.routes {
		next[signalOf(id)][id] = a.routes[id.String()]
	}
	for _, in := range dataplane.AllSignals {
		var fan connFanOut
		for _, out := range dataplane.AllSignals {
			if !k.connects[in][out] || len(next[out]) == 0 {
				continue
			}
			c, err := k.createConnector(a.settings, cfg, in, out, next[out])
			if err != nil {
				return fmt.Errorf("creating %s from %s to %s: %w", a.id, in, out, err)
			}
			inst.comps = append(inst.comps, c)
			fan = append(fan, c)
			if mutates(c) {
				inst.caps.MutatesData = true
			}
		}
		switch {
		case len(fan) == 0 && !k.supports[in]:
			inst.reject[in] = fmt.Errorf("%s does not accept %s: %w", a.opts.ID, in, dataplane.ErrUnsupportedSignal)
		case len(fan) == 0:
			inst.reject[in] = fmt.Errorf("%s has no output for what it makes of %s: %w", a.opts.ID, in, dataplane.ErrUnsupportedSignal)
		case in == dataplane.Traces:
			inst.traces = fan.traces()
		case in == dataplane.Metrics:
			inst.metrics = fan.metrics()
		default:
			inst.logs = fan.logs()
		}
	}
	return nil
}

// connFanOut hands one input signal to each connection from it. Like the
// collector's fan-out, it gives every connection that mutates data but
// the last its own copy.
type connFanOut []component.Component

func mutates(c component.Component) bool {
	return c.(interface{ Capabilities() consumer.Capabilities }).Capabilities().MutatesData
}

func (f connFanOut) traces() consumer.Traces {
	if len(f) == 1 {
		return f[0].(consumer.Traces)
	}
	fn, _ := consumer.NewTraces(func(ctx context.Context, td ptrace.Traces) error {
		var errs []error
		for i, c := range f {
			d := td
			if i < len(f)-1 && mutates(c) {
				d = ptrace.NewTraces()
				td.CopyTo(d)
			}
			errs = append(errs, c.(consumer.Traces).ConsumeTraces(ctx, d))
		}
		return errors.Join(errs...)
	})
	return fn
}

func (f connFanOut) metrics() consumer.Metrics {
	if len(f) == 1 {
		return f[0].(consumer.Metrics)
	}
	fn, _ := consumer.NewMetrics(func(ctx context.Context, md pmetric.Metrics) error {
		var errs []error
		for i, c := range f {
			d := md
			if i < len(f)-1 && mutates(c) {
				d = pmetric.NewMetrics()
				md.CopyTo(d)
			}
			errs = append(errs, c.(consumer.Metrics).ConsumeMetrics(ctx, d))
		}
		return errors.Join(errs...)
	})
	return fn
}

func (f connFanOut) logs() consumer.Logs {
	if len(f) == 1 {
		return f[0].(consumer.Logs)
	}
	fn, _ := consumer.NewLogs(func(ctx context.Context, ld plog.Logs) error {
		var errs []error
		for i, c := range f {
			d := ld
			if i < len(f)-1 && mutates(c) {
				d = plog.NewLogs()
				ld.CopyTo(d)
			}
			errs = append(errs, c.(consumer.Logs).ConsumeLogs(ctx, d))
		}
		return errors.Join(errs...)
	})
	return fn
}
