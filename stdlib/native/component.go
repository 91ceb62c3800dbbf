package native

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// checkTimeout bounds a Check call (it may start the plugin).
const checkTimeout = 15 * time.Second

// Registration returns the registration of component c of the plugin
// under name (its own name, or a namespaced one), with source in listings.
func (p *Plugin) Registration(c wire.Component, name, source string) component.Registration {
	s := &schema{p: p, c: c}
	doc := c.Doc
	if doc == "" {
		doc = fmt.Sprintf("The %s %s, served by the native plugin %s.", c.Name, c.Class, p.label())
	}
	var services []string
	if c.Routes {
		services = []string{"http"}
	}
	return component.Registration{
		Name:          name,
		NeedsServices: services,
		Schema:        s,
		Doc:           doc,
		Source:        source,
		Fingerprint:   "native:" + p.sum,
		Accepts:       s.accepts,
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			a, ok := args.(Args)
			if !ok {
				a = Args{Values: map[string]any{}}
			}
			return newProxy(p, c, opts, a), nil
		},
	}
}

// Args are a plugin component's decoded arguments: the consumers of its
// output, decoded in the host, and the other values as plain values,
// which the plugin decodes.
type Args struct {
	Output dataplane.Output
	Values map[string]any
}

// MarshalJSON shows the plain values and the number of consumers, for the
// API.
func (a Args) MarshalJSON() ([]byte, error) {
	out := map[string]any{}
	for k, v := range a.Values {
		out[k] = v
	}
	if n := len(a.Output.Traces) + len(a.Output.Metrics) + len(a.Output.Logs); n > 0 {
		out["output"] = map[string]int{"traces": len(a.Output.Traces), "metrics": len(a.Output.Metrics), "logs": len(a.Output.Logs)}
	}
	return json.Marshal(out)
}

// schema is the component.Schema of a plugin component.
type schema struct {
	p *Plugin
	c wire.Component
}

// CollectorTypes returns the collector's class and the type names a
// collector config may write for the component (the factory's type, then
// its deprecated alias), for flowlua convert.
func (s *schema) CollectorTypes() (class string, types []string) {
	return s.c.Class, s.c.Types
}

// Class returns the component's collector class: receiver, processor,
// exporter, connector or extension.
func (s *schema) Class() string { return s.c.Class }

// Signals returns the signals the component takes or produces.
func (s *schema) Signals() []string { return slices.Clone(s.c.Signals) }

// Stability returns the stability the plugin reports, for each signal.
func (s *schema) Stability() map[string]string {
	if s.c.Stability == "" {
		return nil
	}
	level := strings.ToUpper(s.c.Stability[:1]) + s.c.Stability[1:]
	out := make(map[string]string, len(s.c.Signals))
	for _, sig := range s.c.Signals {
		out[sig] = level
	}
	return out
}

func (s *schema) hasOutput() bool { return s.c.Class == "receiver" || s.c.Class == "processor" }
func (s *schema) hasInput() bool  { return s.c.Class == "processor" || s.c.Class == "exporter" }

func (s *schema) supports(sig dataplane.Signal) bool {
	for _, name := range s.c.Signals {
		if name == sig.String() {
			return true
		}
	}
	return false
}

// accepts: an input takes the signals the component supports; a
// processor, only those it has consumers for.
func (s *schema) accepts(sig dataplane.Signal, outputs [dataplane.NumSignals]bool) error {
	if !s.supports(sig) {
		return fmt.Errorf("it takes %s", strings.Join(s.c.Signals, ", "))
	}
	if s.c.Class == "processor" && !outputs[sig] {
		return fmt.Errorf("its output has no consumers of %s", sig)
	}
	return nil
}

// DecodeArgs decodes `output` in the host and asks the plugin to check
// the rest with the component's own decoding and Validate. In check mode
// a value not known yet (a placeholder) leaves the remote check out.
func (s *schema) DecodeArgs(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok && v != nil {
		return nil, decode.Errors{decode.Errorf("", "expected table, got %s", decode.ValueTypeName(v))}
	}
	a := Args{Values: map[string]any{}}
	var errs decode.Errors
	partial := false
	for _, k := range script.SortedKeys(m) {
		val := m[k]
		if k == "output" && s.hasOutput() {
			errs = append(errs, component.DecodeOutput(val, &a.Output, s.c.Name, s.supports)...)
			continue
		}
		pv, keep, perr := plain(k, val)
		if perr != nil {
			errs = append(errs, perr)
			continue
		}
		if !keep {
			partial = true
			continue
		}
		a.Values[k] = pv
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if !partial {
		if err := s.check(a.Values); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// check runs the component's decoding and Validate inside the plugin.
func (s *schema) check(values map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	proc, err := s.p.ensure(ctx)
	if err != nil {
		return decode.Errors{decode.Errorf("", "checking the arguments: %v", err)}
	}
	defer s.p.idleCheck()
	var resp wire.CheckResponse
	if err := proc.call(ctx, wire.MethodCheck, wire.CheckRequest{Name: s.c.Name, Values: values}, &resp); err != nil {
		return decode.Errors{decode.Errorf("", "checking the arguments in plugin %s: %v", s.p.label(), err)}
	}
	return fieldErrors(resp.Errors)
}

func fieldErrors(fes []wire.FieldError) error {
	if len(fes) == 0 {
		return nil
	}
	errs := make(decode.Errors, 0, len(fes))
	for _, fe := range fes {
		errs = append(errs, &decode.Error{Path: fe.Path, Message: fe.Message, Key: fe.Key})
	}
	return errs
}

// ExportTypes: `input` for processors and exporters.
func (s *schema) ExportTypes() map[string]reflect.Type {
	if !s.hasInput() {
		return nil
	}
	return decode.ExportTypes(reflect.TypeFor[dataplane.Exports]())
}

// Describe documents the fields the plugin reported and `output`.
func (s *schema) Describe() (args, exports []decode.Field) {
	for _, f := range s.c.Fields {
		df := decode.Field{Path: f.Name, Type: f.Type}
		if f.Default != nil {
			// As JSON, as the built-in components write theirs: a
			// table's keys and values, not Go's map notation.
			if b, err := json.Marshal(f.Default); err == nil {
				df.Default = string(b)
			} else {
				df.Default = fmt.Sprint(f.Default)
			}
		}
		args = append(args, df)
	}
	if s.hasOutput() {
		args = append(args, decode.Describe(reflect.TypeFor[struct {
			Output dataplane.Output `lua:"output" doc:"where batches are sent"`
		}]())...)
	}
	sort.Slice(args, func(i, j int) bool { return args[i].Path < args[j].Path })
	if s.hasInput() {
		exports = decode.Describe(reflect.TypeFor[dataplane.Exports]())
	}
	return args, exports
}

// plain converts an evaluated script value into a JSON value for the
// plugin. keep is false for a value not known yet (check mode).
func plain(path string, v any) (out any, keep bool, err *decode.Error) {
	switch x := v.(type) {
	case nil:
		return nil, true, nil
	case *script.Placeholder:
		return nil, false, nil
	case string, bool:
		return x, true, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true, nil
		}
		return x, true, nil
	case int, int64, int32, uint64, uint32, float32:
		return x, true, nil
	case map[string]any:
		m := make(map[string]any, len(x))
		keepAll := true
		for _, k := range script.SortedKeys(x) {
			pv, keep, err := plain(decode.JoinPath(path, k), x[k])
			if err != nil {
				return nil, false, err
			}
			keepAll = keepAll && keep
			if keep {
				m[k] = pv
			}
		}
		return m, keepAll, nil
	case []any:
		l := make([]any, 0, len(x))
		keepAll := true
		for i, e := range x {
			pv, keep, err := plain(decode.JoinPath(path, i), e)
			if err != nil {
				return nil, false, err
			}
			keepAll = keepAll && keep
			l = append(l, pv)
		}
		return l, keepAll, nil
	default:
		return nil, false, decode.Errorf(path, "a %s cannot be passed to a native plugin's component", decode.ValueTypeName(v))
	}
}

// proxy is a plugin component as the engine runs it: an instance in the
// plugin process.
type proxy struct {
	p      *Plugin
	c      wire.Component
	opts   component.Options
	wireID string

	mu        sync.Mutex
	args      Args
	outT      consumer.Traces
	outM      consumer.Metrics
	outL      consumer.Logs
	startedOn *process
	running   bool // Run is under way
	health    component.Health
	changed   chan struct{} // closed and replaced when startedOn or health change
}

func newProxy(p *Plugin, c wire.Component, opts component.Options, a Args) *proxy {
	px := &proxy{p: p, c: c, opts: opts, wireID: p.m.nextInstance(opts.ID), changed: make(chan struct{})}
	px.setArgs(a)
	px.health = component.Health{Health: component.HealthUnknown, Message: "starting", UpdateTime: time.Now()}
	if opts.OnStateChange != nil && (c.Class == "processor" || c.Class == "exporter") {
		opts.OnStateChange(dataplane.Exports{Input: &input{px: px}})
	}
	return px
}

var _ component.HealthComponent = (*proxy)(nil)

func (px *proxy) setArgs(a Args) {
	out := a.Output.WithTap(px.opts.Tap)
	px.args = a
	px.outT = dataplane.OutputTraces(out)
	px.outM = dataplane.OutputMetrics(out)
	px.outL = dataplane.OutputLogs(out)
}

// outputs are the signals the instance has consumers for.
func (px *proxy) outputs() []string {
	var out []string
	for _, sig := range dataplane.AllSignals {
		if len(px.args.Output.Consumers(sig)) > 0 {
			out = append(out, sig.String())
		}
	}
	return out
}

// Run starts the instance in the plugin and stops it, draining, when ctx
// ends.
func (px *proxy) Run(ctx context.Context) error {
	px.mu.Lock()
	px.running = true
	px.mu.Unlock()
	px.p.addInstance(px)
	defer px.p.removeInstance(px)
	unregister, err := px.serveRoutes()
	if err != nil {
		return fmt.Errorf("serving the routes of %s: %w", px.opts.ID, err)
	}
	defer unregister()
	startCtx, cancel := context.WithTimeout(ctx, px.p.m.opts.StartTimeout+checkTimeout)
	_, err = px.ensureStarted(startCtx)
	cancel()
	if err != nil && ctx.Err() == nil {
		var fe startError
		if errors.As(err, &fe) {
			return err // the component refused to start: as a built-in one would
		}
		// The plugin is down: supervision brings it back.
		px.setDown(err.Error())
	}
	<-ctx.Done()
	px.mu.Lock()
	proc := px.startedOn
	px.startedOn = nil
	px.running = false
	px.mu.Unlock()
	if proc == nil || proc.isDead() {
		return nil
	}
	deadline, ok := component.DrainDeadline(ctx)
	if !ok {
		deadline = time.Now().Add(5 * time.Second)
	}
	stopCtx, cancelStop := context.WithDeadline(context.Background(), deadline)
	defer cancelStop()
	var res wire.Result
	if err := proc.call(stopCtx, wire.MethodStop, wire.StopRequest{Instance: px.wireID}, &res); err != nil {
		return fmt.Errorf("stopping %s in plugin %s: %w", px.opts.ID, px.p.label(), err)
	}
	return fieldErrors(res.Errors)
}

// startError is a component's own refusal to start (its config, a port).
type startError struct{ error }

// ensureStarted returns the process the instance runs on, starting it
// there first if it does not run yet (the first time, or after a restart).
func (px *proxy) ensureStarted(ctx context.Context) (*process, error) {
	proc, err := px.p.ensure(ctx)
	if err != nil {
		return nil, err
	}
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.startedOn == proc {
		return proc, nil
	}
	if !px.running {
		return nil, status.Error(codes.Unavailable, "the component is not running")
	}
	req := wire.StartRequest{Instance: px.wireID, Name: px.c.Name, Values: px.args.Values, Outputs: px.outputs(), HostBroker: proc.hostID, DataPath: px.opts.DataPath}
	var res wire.Result
	if err := proc.call(ctx, wire.MethodStart, req, &res); err != nil {
		return nil, fmt.Errorf("starting %s in plugin %s: %w", px.opts.ID, px.p.label(), err)
	}
	if err := fieldErrors(res.Errors); err != nil {
		px.setHealthLocked(component.HealthUnhealthy, err.Error())
		return nil, startError{err}
	}
	px.startedOn = proc
	px.setHealthLocked(component.HealthHealthy, "started in plugin "+px.p.label())
	return proc, nil
}

// Update applies new arguments to the running instance.
func (px *proxy) Update(args component.Arguments) error {
	a, ok := args.(Args)
	if !ok {
		return fmt.Errorf("%s: arguments of type %T", px.opts.ID, args)
	}
	px.mu.Lock()
	px.setArgs(a)
	proc := px.startedOn
	req := wire.UpdateRequest{Instance: px.wireID, Values: a.Values, Outputs: px.outputs()}
	px.mu.Unlock()
	if proc == nil || proc.isDead() {
		return nil // it starts with these arguments
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	var res wire.Result
	if err := proc.call(ctx, wire.MethodUpdate, req, &res); err != nil {
		return fmt.Errorf("updating %s in plugin %s: %w", px.opts.ID, px.p.label(), err)
	}
	if err := fieldErrors(res.Errors); err != nil {
		px.setHealth(component.HealthUnhealthy, err.Error())
		return err
	}
	px.setHealth(component.HealthHealthy, "updated in plugin "+px.p.label())
	return nil
}

// CurrentHealth is the instance's health in the plugin.
func (px *proxy) CurrentHealth() component.Health {
	px.mu.Lock()
	defer px.mu.Unlock()
	return px.health
}

func (px *proxy) setHealth(h component.HealthType, msg string) {
	px.mu.Lock()
	defer px.mu.Unlock()
	px.setHealthLocked(h, msg)
}

func (px *proxy) setHealthLocked(h component.HealthType, msg string) {
	px.health = component.Health{Health: h, Message: msg, UpdateTime: time.Now()}
	close(px.changed)
	px.changed = make(chan struct{})
}

func (px *proxy) setDown(why string) { px.setHealth(component.HealthUnhealthy, why) }

// processDied marks the instance down when it ran on proc.
func (px *proxy) processDied(proc *process, why string) {
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.startedOn == proc {
		px.startedOn = nil
	}
	px.setHealthLocked(component.HealthUnhealthy, why)
}

// consume sends a batch to the instance, and again to the next process
// when the plugin died with it in flight, until ctx ends.
func (px *proxy) consume(ctx context.Context, signal string, b []byte) error {
	for {
		proc, err := px.ensureStarted(ctx)
		if err != nil {
			var se startError
			if ctx.Err() != nil || errors.As(err, &se) {
				return err
			}
			if werr := px.waitChange(ctx, nil); werr != nil {
				return fmt.Errorf("%w (last: %v)", werr, err)
			}
			continue
		}
		kv := []string{wire.MetaInstance, px.wireID, wire.MetaSignal, signal, wire.MetaReturnOutput, "1"}
		if addr := client.FromContext(ctx).Addr; addr != nil {
			kv = append(kv, wire.MetaClientAddr, addr.String())
		}
		resp := new(wire.Frame)
		err = proc.conn.Conn.Invoke(metadata.AppendToOutgoingContext(ctx, kv...), "/"+wire.PluginService+"/"+wire.MethodConsume, &wire.Frame{Value: b}, resp, grpc.ForceCodecV2(wire.Codec{}))
		if err == nil {
			// What a processor emitted while the call ran came back in
			// the response: its consumers run now, and their errors are
			// the caller's, as in process.
			return wire.DecodeOutputs(resp.Value, func(sig string, out []byte) error {
				return px.deliver(ctx, sig, out)
			})
		}
		st, _ := status.FromError(err)
		switch st.Code() {
		case codes.InvalidArgument:
			return consumererror.NewPermanent(errors.New(st.Message()))
		case codes.Unavailable, codes.Canceled:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// The process is dying, or the instance is not on it: send
			// again once it is back.
			if werr := px.waitChange(ctx, proc); werr != nil {
				return fmt.Errorf("%w (last: %v)", werr, err)
			}
		default:
			return errors.New(st.Message())
		}
	}
}

// waitChange waits until proc exits (or, when proc is alive after a
// while, forgets that the instance runs on it), or until the instance's
// state changes; nil proc waits for a state change only.
func (px *proxy) waitChange(ctx context.Context, proc *process) error {
	px.mu.Lock()
	ch := px.changed
	px.mu.Unlock()
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	var exited <-chan struct{}
	if proc != nil {
		exited = proc.exited
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	case <-exited:
	case <-t.C:
		if proc != nil {
			px.mu.Lock()
			if px.startedOn == proc {
				px.startedOn = nil // start it again there
			}
			px.mu.Unlock()
		}
	}
	return nil
}

// deliver hands a batch the plugin sent to the instance's consumers,
// decoded, with its encoding, which a consumer that would encode it again
// (another plugin's input) takes instead.
func (px *proxy) deliver(ctx context.Context, signal string, b []byte) error {
	sig, ok := dataplane.ParseSignal(signal)
	if !ok {
		return consumererror.NewPermanent(fmt.Errorf("unknown signal %q", signal))
	}
	px.mu.Lock()
	out := [dataplane.NumSignals]any{px.outT, px.outM, px.outL}[sig]
	px.mu.Unlock()
	return dataplane.ConsumeDecoded(ctx, out, sig, b)
}

// input is the `input` export of a plugin processor or exporter: it
// sends each batch to the instance, encoded, or as its sender had it
// encoded (dataplane.Encoded).
type input struct{ px *proxy }

var (
	_ dataplane.Consumer        = (*input)(nil)
	_ dataplane.EncodedConsumer = (*input)(nil)
)

func (in *input) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (in *input) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if !in.px.schemaSupports("traces") {
		return fmt.Errorf("traces: %w", dataplane.ErrUnsupportedSignal)
	}
	if b, ok := dataplane.Encoded(ctx, td); ok {
		return in.px.consume(ctx, "traces", b) // as the sender had it
	}
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return consumererror.NewPermanent(err)
	}
	return in.px.consume(ctx, "traces", b)
}

func (in *input) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	if !in.px.schemaSupports("metrics") {
		return fmt.Errorf("metrics: %w", dataplane.ErrUnsupportedSignal)
	}
	if b, ok := dataplane.Encoded(ctx, md); ok {
		return in.px.consume(ctx, "metrics", b) // as the sender had it
	}
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		return consumererror.NewPermanent(err)
	}
	return in.px.consume(ctx, "metrics", b)
}

func (in *input) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	if !in.px.schemaSupports("logs") {
		return fmt.Errorf("logs: %w", dataplane.ErrUnsupportedSignal)
	}
	if b, ok := dataplane.Encoded(ctx, ld); ok {
		return in.px.consume(ctx, "logs", b) // as the sender had it
	}
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		return consumererror.NewPermanent(err)
	}
	return in.px.consume(ctx, "logs", b)
}

// TakesEncoded: every signal the component takes; the plugin decodes.
func (in *input) TakesEncoded(s dataplane.Signal) bool { return in.px.schemaSupports(s.String()) }

// ConsumeEncoded sends b, as it came, to the instance.
func (in *input) ConsumeEncoded(ctx context.Context, s dataplane.Signal, b []byte, _ int) error {
	if !in.px.schemaSupports(s.String()) {
		return fmt.Errorf("%s: %w", s, dataplane.ErrUnsupportedSignal)
	}
	return in.px.consume(ctx, s.String(), b)
}

func (px *proxy) schemaSupports(signal string) bool {
	for _, s := range px.c.Signals {
		if s == signal {
			return true
		}
	}
	return false
}
