package pluginsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sort"
	"sync"

	"github.com/hashicorp/go-plugin"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pipeline"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// server serves the plugin's components to one host.
type server struct {
	p      Plugin
	kinds  map[string]*kind
	broker *plugin.GRPCBroker
	// logger writes the components' logs to stderr, which flowlua logs.
	logger *zap.Logger

	mu        sync.Mutex
	instances map[string]*instance
	hosts     map[uint32]*grpc.ClientConn
}

func newServer(p Plugin) *server {
	logger, err := zap.NewProduction()
	if err != nil {
		logger = zap.NewNop()
	}
	s := &server{p: p, kinds: map[string]*kind{}, logger: logger, instances: map[string]*instance{}, hosts: map[uint32]*grpc.ClientConn{}}
	for _, f := range p.Receivers {
		k := receiverKind(f)
		s.kinds[k.name] = k
	}
	for _, f := range p.Processors {
		k := processorKind(f)
		s.kinds[k.name] = k
	}
	for _, f := range p.Exporters {
		k := exporterKind(f)
		s.kinds[k.name] = k
	}
	for _, k := range s.kinds {
		for _, t := range p.Routed {
			if k.factory.Type() == t {
				k.routed = true
			}
		}
		if k.class == "receiver" {
			k.feed = p.TargetFeeds[k.factory.Type()]
		}
	}
	return s
}

// serviceDesc is the plugin's gRPC service, with JSON control messages and
// OTLP batches in wire.Frames.
func (s *server) serviceDesc() *grpc.ServiceDesc {
	unary := func(name string, h func(ctx context.Context, in []byte) ([]byte, error)) grpc.MethodDesc {
		return grpc.MethodDesc{MethodName: name, Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			in := new(wire.Frame)
			if err := dec(in); err != nil {
				return nil, err
			}
			out, err := h(ctx, in.Value)
			if err != nil {
				return nil, err
			}
			return &wire.Frame{Value: out}, nil
		}}
	}
	return &grpc.ServiceDesc{
		ServiceName: wire.PluginService,
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{
			unary(wire.MethodDescribe, s.describe),
			unary(wire.MethodCheck, jsonCall(s.check)),
			unary(wire.MethodStart, jsonCall(s.start)),
			unary(wire.MethodUpdate, jsonCall(s.update)),
			unary(wire.MethodStop, jsonCall(s.stop)),
			unary(wire.MethodConsume, s.consume),
		},
	}
}

// jsonCall adapts a handler of JSON messages.
func jsonCall[Req, Resp any](h func(context.Context, Req) Resp) func(context.Context, []byte) ([]byte, error) {
	return func(ctx context.Context, in []byte) ([]byte, error) {
		var req Req
		if err := json.Unmarshal(in, &req); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "decoding the request: %v", err)
		}
		return json.Marshal(h(ctx, req))
	}
}

func (s *server) describe(context.Context, []byte) ([]byte, error) {
	d := wire.Description{Plugin: s.p.Name, Version: s.p.Version, Release: s.p.Release}
	for _, k := range s.kinds {
		d.Components = append(d.Components, k.describe())
	}
	sort.Slice(d.Components, func(i, j int) bool { return d.Components[i].Name < d.Components[j].Name })
	return json.Marshal(d)
}

func (s *server) check(_ context.Context, req wire.CheckRequest) wire.CheckResponse {
	k, ok := s.kinds[req.Name]
	if !ok {
		return wire.CheckResponse{Errors: []wire.FieldError{{Message: fmt.Sprintf("this plugin does not serve %s", req.Name)}}}
	}
	_, errs := k.decode(req.Values)
	return wire.CheckResponse{Errors: errs}
}

func (s *server) start(ctx context.Context, req wire.StartRequest) wire.Result {
	k, ok := s.kinds[req.Name]
	if !ok {
		return failed("this plugin does not serve %s", req.Name)
	}
	cfg, errs := k.decode(req.Values)
	if len(errs) > 0 {
		return wire.Result{Errors: errs}
	}
	conn, err := s.host(req.HostBroker)
	if err != nil {
		return failed("connecting to flowlua: %v", err)
	}
	s.mu.Lock()
	old := s.instances[req.Instance]
	delete(s.instances, req.Instance)
	s.mu.Unlock()
	if old != nil {
		_ = old.shutdown(ctx)
	}
	cfg, f, err := k.feedTargets(req.Values, cfg, req.DataPath)
	if err != nil {
		return failed("%v", err)
	}
	inst, err := k.create(context.Background(), s.logger, req.HostBroker, cfg, req.Outputs, &hostConsumer{conn: conn, instance: req.Instance})
	if err != nil {
		return failed("%v", err)
	}
	inst.outputs, inst.dataPath, inst.fed = slices.Clone(req.Outputs), req.DataPath, f
	s.mu.Lock()
	s.instances[req.Instance] = inst
	s.mu.Unlock()
	return wire.Result{}
}

// update applies new values: when they differ from the running
// instance's in targets fed through files alone, by writing the files
// (the instance keeps running); otherwise by starting it anew.
func (s *server) update(ctx context.Context, req wire.UpdateRequest) wire.Result {
	s.mu.Lock()
	inst := s.instances[req.Instance]
	s.mu.Unlock()
	if inst == nil {
		return failed("no instance %s", req.Instance)
	}
	if inst.fed != nil {
		cfg, errs := inst.kind.decode(req.Values)
		if len(errs) > 0 {
			return wire.Result{Errors: errs}
		}
		kept, err := inst.kind.retarget(inst, req.Values, cfg, req.Outputs)
		if err != nil {
			return failed("%v", err)
		}
		if kept {
			return wire.Result{}
		}
	}
	return s.start(ctx, wire.StartRequest{Instance: req.Instance, Name: inst.kind.name, Values: req.Values, Outputs: req.Outputs, HostBroker: inst.broker, DataPath: inst.dataPath})
}

func (s *server) stop(ctx context.Context, req wire.StopRequest) wire.Result {
	s.mu.Lock()
	inst := s.instances[req.Instance]
	delete(s.instances, req.Instance)
	s.mu.Unlock()
	if inst == nil {
		return wire.Result{}
	}
	if err := inst.shutdown(ctx); err != nil {
		return failed("%v", err)
	}
	return wire.Result{}
}

// stopAll shuts every instance down when the host goes away.
func (s *server) stopAll(ctx context.Context) {
	s.mu.Lock()
	insts := s.instances
	s.instances = map[string]*instance{}
	s.mu.Unlock()
	for _, inst := range insts {
		_ = inst.shutdown(ctx)
	}
}

// consume hands a batch to an instance's consumer and returns when it
// has returned.
func (s *server) consume(ctx context.Context, in []byte) ([]byte, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	id, sig := first(md, wire.MetaInstance), first(md, wire.MetaSignal)
	s.mu.Lock()
	inst := s.instances[id]
	s.mu.Unlock()
	if inst == nil {
		return nil, status.Errorf(codes.Unavailable, "no instance %q is running in this plugin", id)
	}
	if addr := clientAddr(first(md, wire.MetaClientAddr)); addr != nil {
		ctx = client.NewContext(ctx, client.Info{Addr: addr})
	}
	var out *captured
	if first(md, wire.MetaReturnOutput) != "" {
		out = &captured{}
		ctx = context.WithValue(ctx, capturedKey{}, out)
	}
	err := inst.consume(ctx, sig, in)
	if out == nil {
		return nil, err
	}
	signals, batches := out.close()
	if err != nil {
		return nil, err
	}
	return wire.EncodeOutputs(nil, signals, batches), nil
}

// capturedKey is the context key of the batches a processor emits while
// a Consume call runs, which go back in its response.
type capturedKey struct{}

// captured holds them; once the call has returned it is closed, and a
// batch emitted later with the call's context (by a component that kept
// it) goes to the host's Consume as any other.
type captured struct {
	mu      sync.Mutex
	closed  bool
	signals []string
	batches [][]byte
}

// add keeps a batch, and reports false when the call has returned.
func (c *captured) add(signal string, b []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.signals = append(c.signals, signal)
	c.batches = append(c.batches, b)
	return true
}

func (c *captured) close() ([]string, [][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return c.signals, c.batches
}

// host returns the connection to the host's callback service.
func (s *server) host(id uint32) (*grpc.ClientConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.hosts[id]; ok {
		return c, nil
	}
	c, err := s.broker.DialWithOptions(id, wire.DialOptions()...)
	if err != nil {
		return nil, err
	}
	s.hosts[id] = c
	return c, nil
}

// clientAddr parses the sender's address the host passed on, nil when
// there is none.
func clientAddr(s string) net.Addr {
	if s == "" {
		return nil
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		if ip, err := netip.ParseAddr(s); err == nil {
			return &net.IPAddr{IP: ip.AsSlice()}
		}
		return nil
	}
	return net.TCPAddrFromAddrPort(ap)
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func failed(format string, args ...any) wire.Result {
	return wire.Result{Errors: []wire.FieldError{{Message: fmt.Sprintf(format, args...)}}}
}

// hostConsumer sends an instance's output to the host, one call a batch;
// a call returns when the host's consumers have.
type hostConsumer struct {
	conn     *grpc.ClientConn
	instance string
}

func (h *hostConsumer) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (h *hostConsumer) send(ctx context.Context, signal string, b []byte) error {
	if c, ok := ctx.Value(capturedKey{}).(*captured); ok && c.add(signal, b) {
		return nil
	}
	ctx = metadata.AppendToOutgoingContext(ctx, wire.MetaInstance, h.instance, wire.MetaSignal, signal)
	err := h.conn.Invoke(ctx, "/"+wire.HostService+"/"+wire.MethodConsume, &wire.Frame{Value: b}, new(wire.Frame), grpc.ForceCodecV2(wire.Codec{}))
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	switch {
	case !ok:
		return err
	case st.Code() == codes.InvalidArgument:
		return consumererror.NewPermanent(errors.New(st.Message()))
	default:
		return errors.New(st.Message())
	}
}

func (h *hostConsumer) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	return h.send(ctx, "traces", b)
}

func (h *hostConsumer) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		return err
	}
	return h.send(ctx, "metrics", b)
}

func (h *hostConsumer) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		return err
	}
	return h.send(ctx, "logs", b)
}

// emptyHost is the component.Host of a plugin's components: extensions
// and exporters stay in the host process, so a plugin's components see
// none.
type emptyHost struct{}

func (emptyHost) GetExtensions() map[component.ID]component.Component { return nil }

// GetExporters is the collector's service host method that some receivers
// require of their host (k8s_cluster, for its metadata_exporters); a
// plugin has no exporters to give them.
func (emptyHost) GetExporters() map[pipeline.Signal]map[component.ID]component.Component {
	return nil
}
