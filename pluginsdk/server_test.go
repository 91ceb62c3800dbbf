package pluginsdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// tagConfig is the test processor's config.
type tagConfig struct {
	Key   string `mapstructure:"key"`
	Value string `mapstructure:"value"`
}

func (c *tagConfig) Validate() error {
	if c.Key == "" {
		return errors.New("key must not be empty")
	}
	return nil
}

// tagProcessor sets one attribute on every span, or fails when the value
// is "fail".
type tagProcessor struct {
	cfg  *tagConfig
	next consumer.Traces
}

func (p *tagProcessor) Start(context.Context, component.Host) error { return nil }
func (p *tagProcessor) Shutdown(context.Context) error              { return nil }
func (p *tagProcessor) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: true}
}
func (p *tagProcessor) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if p.cfg.Value == "fail" {
		return errors.New("told to fail")
	}
	if p.cfg.Value == "later" {
		// Emits once the call has returned, with the call's context's
		// values (context.WithoutCancel), as a component with its own
		// schedule that keeps the client's metadata does.
		later := context.WithoutCancel(ctx)
		go func() {
			time.Sleep(10 * time.Millisecond)
			_ = p.next.ConsumeTraces(later, td)
		}()
		return nil
	}
	rs := td.ResourceSpans()
	for i := 0; i < rs.Len(); i++ {
		ss := rs.At(i).ScopeSpans()
		for j := 0; j < ss.Len(); j++ {
			spans := ss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				spans.At(k).Attributes().PutStr(p.cfg.Key, p.cfg.Value)
			}
		}
	}
	return p.next.ConsumeTraces(ctx, td)
}

func tagFactory() processor.Factory {
	return processor.NewFactory(component.MustNewType("tag"),
		func() component.Config { return &tagConfig{Key: "tagged"} },
		processor.WithTraces(func(_ context.Context, _ processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
			return &tagProcessor{cfg: cfg.(*tagConfig), next: next}, nil
		}, component.StabilityLevelAlpha))
}

// received is what the test's host callback got.
type received struct {
	instance string
	traces   ptrace.Traces
}

// connect serves a plugin over go-plugin's gRPC transport and returns the
// host's side, with a callback service that reports every batch on got.
func connect(t *testing.T) (*wire.Conn, uint32, chan received) {
	t.Helper()
	srv := newServer(Plugin{Name: "test", Version: "1.2.3", Processors: []processor.Factory{tagFactory()}})
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{wire.PluginName: &grpcPlugin{srv: srv}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(wire.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	conn := raw.(*wire.Conn)
	got := make(chan received, 16)
	id := conn.Broker.NextId()
	go conn.Broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(opts...)
		s.RegisterService(&grpc.ServiceDesc{
			ServiceName: wire.HostService,
			HandlerType: (*any)(nil),
			Methods: []grpc.MethodDesc{{MethodName: wire.MethodConsume, Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				in := new(wire.Frame)
				if err := dec(in); err != nil {
					return nil, err
				}
				md, _ := metadata.FromIncomingContext(ctx)
				td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(in.Value)
				if err != nil {
					return nil, err
				}
				got <- received{instance: first(md, wire.MetaInstance), traces: td}
				return new(wire.Frame), nil
			}}},
		}, nil)
		return s
	})
	return conn, id, got
}

func call[Resp any](t *testing.T, c *wire.Conn, method string, req any) Resp {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	out := new(wire.Frame)
	if err := c.Conn.Invoke(context.Background(), "/"+wire.PluginService+"/"+method, &wire.Frame{Value: b}, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	var resp Resp
	if err := json.Unmarshal(out.Value, &resp); err != nil {
		t.Fatalf("%s: decoding %q: %v", method, out.Value, err)
	}
	return resp
}

func consume(c *wire.Conn, instance string, td ptrace.Traces) error {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	ctx := metadata.AppendToOutgoingContext(context.Background(), wire.MetaInstance, instance, wire.MetaSignal, "traces")
	return c.Conn.Invoke(ctx, "/"+wire.PluginService+"/"+wire.MethodConsume, &wire.Frame{Value: b}, new(wire.Frame))
}

func spans(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for range n {
		ss.AppendEmpty().SetName("op")
	}
	return td
}

func TestDescribe(t *testing.T) {
	c, _, _ := connect(t)
	out := new(wire.Frame)
	if err := c.Conn.Invoke(context.Background(), "/"+wire.PluginService+"/"+wire.MethodDescribe, &wire.Frame{}, out); err != nil {
		t.Fatal(err)
	}
	var d wire.Description
	if err := json.Unmarshal(out.Value, &d); err != nil {
		t.Fatal(err)
	}
	if d.Plugin != "test" || d.Version != "1.2.3" || len(d.Components) != 1 {
		t.Fatalf("description: %+v", d)
	}
	comp := d.Components[0]
	if comp.Name != "otelcol.processor.tag" || comp.Class != "processor" || strings.Join(comp.Signals, ",") != "traces" || comp.Stability != "alpha" {
		t.Fatalf("component: %+v", comp)
	}
	if len(comp.Fields) != 2 || comp.Fields[0].Name != "key" || comp.Fields[0].Default != "tagged" || comp.Fields[1].Name != "value" {
		t.Fatalf("fields: %+v", comp.Fields)
	}
}

func TestCheck(t *testing.T) {
	c, _, _ := connect(t)
	for _, tc := range []struct {
		values map[string]any
		want   string
	}{
		{map[string]any{"key": "k", "value": "v"}, ""},
		{map[string]any{"key": ""}, "key must not be empty"},
		{map[string]any{"kye": "k"}, "kye"},
	} {
		resp := call[wire.CheckResponse](t, c, wire.MethodCheck, wire.CheckRequest{Name: "otelcol.processor.tag", Values: tc.values})
		switch {
		case tc.want == "" && len(resp.Errors) > 0:
			t.Errorf("%v: unexpected errors %+v", tc.values, resp.Errors)
		case tc.want != "" && (len(resp.Errors) != 1 || !strings.Contains(resp.Errors[0].Message, tc.want)):
			t.Errorf("%v: errors %+v, want one containing %q", tc.values, resp.Errors, tc.want)
		}
	}
	resp := call[wire.CheckResponse](t, c, wire.MethodCheck, wire.CheckRequest{Name: "otelcol.processor.nope"})
	if len(resp.Errors) != 1 || !strings.Contains(resp.Errors[0].Message, "does not serve otelcol.processor.nope") {
		t.Errorf("unknown component: %+v", resp.Errors)
	}
}

// TestProcessorRoundTrip starts an instance, sends it batches and checks
// that each comes back through the host's callback, processed, before
// Consume returns; an Update changes what it does in place; a failing
// consumer's error reaches the sender; Stop removes the instance.
func TestProcessorRoundTrip(t *testing.T) {
	c, host, got := connect(t)
	const id = "otelcol.processor.tag.t"
	if r := call[wire.Result](t, c, wire.MethodStart, wire.StartRequest{Instance: id, Name: "otelcol.processor.tag", Values: map[string]any{"value": "one"}, Outputs: []string{"traces"}, HostBroker: host}); len(r.Errors) > 0 {
		t.Fatalf("start: %+v", r.Errors)
	}
	expect := func(value string, n int) {
		t.Helper()
		if err := consume(c, id, spans(n)); err != nil {
			t.Fatalf("consume: %v", err)
		}
		select {
		case r := <-got:
			if r.instance != id || r.traces.SpanCount() != n {
				t.Fatalf("host got %d spans for %q, want %d for %q", r.traces.SpanCount(), r.instance, n, id)
			}
			v, _ := r.traces.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(n - 1).Attributes().Get("tagged")
			if v.Str() != value {
				t.Fatalf("tagged = %q, want %q", v.Str(), value)
			}
		default:
			t.Fatal("Consume returned before the host's consumer had the batch")
		}
	}
	expect("one", 3)
	if r := call[wire.Result](t, c, wire.MethodUpdate, wire.UpdateRequest{Instance: id, Values: map[string]any{"value": "two"}, Outputs: []string{"traces"}}); len(r.Errors) > 0 {
		t.Fatalf("update: %+v", r.Errors)
	}
	expect("two", 500)
	if r := call[wire.Result](t, c, wire.MethodUpdate, wire.UpdateRequest{Instance: id, Values: map[string]any{"value": "fail"}, Outputs: []string{"traces"}}); len(r.Errors) > 0 {
		t.Fatalf("update: %+v", r.Errors)
	}
	if err := consume(c, id, spans(1)); err == nil || !strings.Contains(err.Error(), "told to fail") {
		t.Fatalf("consume through a failing processor: %v", err)
	}
	if r := call[wire.Result](t, c, wire.MethodStop, wire.StopRequest{Instance: id}); len(r.Errors) > 0 {
		t.Fatalf("stop: %+v", r.Errors)
	}
	if err := consume(c, id, spans(1)); err == nil || !strings.Contains(err.Error(), "no instance") {
		t.Fatalf("consume after stop: %v", err)
	}
	select {
	case r := <-got:
		t.Fatalf("unexpected batch of %d spans", r.traces.SpanCount())
	default:
	}
}

func TestStartRefusesBadValues(t *testing.T) {
	c, host, _ := connect(t)
	r := call[wire.Result](t, c, wire.MethodStart, wire.StartRequest{Instance: "x", Name: "otelcol.processor.tag", Values: map[string]any{"key": ""}, Outputs: []string{"traces"}, HostBroker: host})
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "key must not be empty") {
		t.Fatalf("start with a bad key: %+v", r.Errors)
	}
}

// A host that reads answers gets what the processor emitted during the
// call in the answer, and nothing through its callback; what is emitted
// after the call still reaches the callback.
func TestOutputInAnswer(t *testing.T) {
	c, host, got := connect(t)
	const id = "otelcol.processor.tag.t"
	if r := call[wire.Result](t, c, wire.MethodStart, wire.StartRequest{Instance: id, Name: "otelcol.processor.tag", Values: map[string]any{"value": "one"}, Outputs: []string{"traces"}, HostBroker: host}); len(r.Errors) > 0 {
		t.Fatalf("start: %+v", r.Errors)
	}
	answer := func() []byte {
		t.Helper()
		b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(spans(4))
		if err != nil {
			t.Fatal(err)
		}
		ctx := metadata.AppendToOutgoingContext(context.Background(), wire.MetaInstance, id, wire.MetaSignal, "traces", wire.MetaReturnOutput, "1")
		out := new(wire.Frame)
		if err := c.Conn.Invoke(ctx, "/"+wire.PluginService+"/"+wire.MethodConsume, &wire.Frame{Value: b}, out, grpc.ForceCodecV2(wire.Codec{})); err != nil {
			t.Fatalf("consume: %v", err)
		}
		return out.Value
	}
	var n int
	err := wire.DecodeOutputs(answer(), func(sig string, b []byte) error {
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
		if err != nil {
			return err
		}
		if sig != "traces" {
			t.Errorf("signal %q", sig)
		}
		v, _ := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().Get("tagged")
		if v.Str() != "one" {
			t.Errorf("tagged = %q", v.Str())
		}
		n += td.SpanCount()
		return nil
	})
	if err != nil || n != 4 {
		t.Fatalf("the answer held %d spans (%v), want 4", n, err)
	}
	select {
	case r := <-got:
		t.Fatalf("the callback got %d spans too", r.traces.SpanCount())
	default:
	}

	if r := call[wire.Result](t, c, wire.MethodUpdate, wire.UpdateRequest{Instance: id, Values: map[string]any{"value": "later"}, Outputs: []string{"traces"}}); len(r.Errors) > 0 {
		t.Fatalf("update: %+v", r.Errors)
	}
	if out := answer(); len(out) != 0 {
		t.Fatalf("the answer holds %d bytes; the processor emitted nothing during the call", len(out))
	}
	select {
	case r := <-got:
		if r.traces.SpanCount() != 4 {
			t.Fatalf("the callback got %d spans, want 4", r.traces.SpanCount())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("what the processor emitted after the call never reached the host")
	}
}
