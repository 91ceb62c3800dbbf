package otelcol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/pluginsdk/otlpwire"
)

// grpcTestConfig is the grpc protocol both sides serve: a 1 MiB message
// limit and include_metadata, so that those paths are compared.
var grpcTestConfig = map[string]any{
	"endpoint":              "127.0.0.1:0",
	"max_recv_msg_size_mib": 1,
	"include_metadata":      true,
}

// otlpGRPCConfig decodes an otlp receiver config with only the grpc
// protocol.
func otlpGRPCConfig(t testing.TB, grpcCfg map[string]any) *otlpreceiver.Config {
	t.Helper()
	cfg := otlpreceiver.NewFactory().CreateDefaultConfig().(*otlpreceiver.Config)
	if err := confmap.NewFromStringMap(map[string]any{"protocols": map[string]any{"grpc": grpcCfg}}).Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Protocols.HTTP.HasValue() {
		t.Fatal("the test config has an http protocol")
	}
	return cfg
}

// grpcListeningOn returns the endpoint the gRPC server logged it listens on.
func grpcListeningOn(t testing.TB, logs *observer.ObservedLogs) string {
	t.Helper()
	return loggedEndpoint(t, logs, "Starting GRPC server")
}

// grpcSide is one OTLP/gRPC receiver under comparison.
type grpcSide struct {
	rec  *recorder
	tel  *componenttest.Telemetry
	conn *grpc.ClientConn
}

func dialSide(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// startUpstreamGRPC runs the collector's otlp receiver (grpc only).
func startUpstreamGRPC(t testing.TB) *grpcSide {
	t.Helper()
	s := &grpcSide{rec: &recorder{}, tel: componenttest.NewTelemetry()}
	s.conn = dialSide(t, startUpstreamReceiver(t, otlpGRPCConfig(t, grpcTestConfig), s.rec, s.tel, "Starting GRPC server"))
	return s
}

// startFlowluaGRPC runs flowlua's server of the same config.
func startFlowluaGRPC(t testing.TB, decode *otlpwire.Unmarshaler) *grpcSide {
	t.Helper()
	s := &grpcSide{rec: &recorder{}, tel: componenttest.NewTelemetry()}
	set, logs := testSettings(s.tel)
	g, err := newOTLPGRPC(*otlpGRPCConfig(t, grpcTestConfig).Protocols.GRPC.Get(), set, decode)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range dataplane.AllSignals {
		g.setConsumer(sig, s.rec)
	}
	if err := g.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	addr := grpcListeningOn(t, logs)
	if addr != g.addr.String() {
		t.Fatalf("logged %s, listens on %s", addr, g.addr)
	}
	s.conn = dialSide(t, addr)
	return s
}

// rawCodec sends a call's message as the bytes it is given and receives
// the response's bytes, under gRPC's name for protobuf.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

// grpcExchange is one call of the comparison and the code both sides
// must answer.
type grpcExchange struct {
	name        string
	method      string
	body        []byte
	gzip        bool
	metadata    []string
	consumerErr error
	wantCode    codes.Code
	wantData    bool
}

// grpcAnswer is what a side answered: the response's bytes, or the
// status's protobuf encoding (code, message and details).
type grpcAnswer struct {
	code     codes.Code
	response []byte
	status   []byte
}

func (s *grpcSide) call(t *testing.T, ex grpcExchange) grpcAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if len(ex.metadata) > 0 {
		ctx = metadata.AppendToOutgoingContext(ctx, ex.metadata...)
	}
	if ex.consumerErr != nil {
		s.rec.err.Store(&ex.consumerErr)
		defer s.rec.err.Store(nil)
	}
	opts := []grpc.CallOption{grpc.ForceCodecV2(rawCodec{})}
	if ex.gzip {
		opts = append(opts, grpc.UseCompressor(gzip.Name))
	}
	in, out := ex.body, []byte(nil)
	err := s.conn.Invoke(ctx, ex.method, &in, &out, opts...)
	st := status.Convert(err)
	b, merr := proto.MarshalOptions{Deterministic: true}.Marshal(st.Proto())
	if merr != nil {
		t.Fatal(merr)
	}
	if err == nil {
		b = nil
	}
	return grpcAnswer{code: st.Code(), response: out, status: b}
}

const (
	tracesExport  = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
	metricsExport = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"
	logsExport    = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"
)

// grpcEquivalenceCases are the calls of TestOTLPGRPCSameAsUpstream.
func grpcEquivalenceCases(t *testing.T) []grpcExchange {
	tracesPB := mustMarshal(t)((&ptrace.ProtoMarshaler{}).MarshalTraces(fixtureTraces(t)))
	metricsPB := mustMarshal(t)((&pmetric.ProtoMarshaler{}).MarshalMetrics(fixtureMetrics(t)))
	logsPB := mustMarshal(t)((&plog.ProtoMarshaler{}).MarshalLogs(fixtureLogs(t)))
	big := mustMarshal(t)((&ptrace.ProtoMarshaler{}).MarshalTraces(spans(100000))) // over the 1 MiB limit
	if len(big) <= 1<<20 {
		t.Fatalf("the oversized request is %d bytes", len(big))
	}
	throttled := status.New(codes.ResourceExhausted, "slow down")
	throttled, _ = throttled.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(3 * time.Second)})
	return []grpcExchange{
		{name: "traces", method: tracesExport, body: tracesPB, wantCode: codes.OK, wantData: true},
		{name: "metrics", method: metricsExport, body: metricsPB, wantCode: codes.OK, wantData: true},
		{name: "logs", method: logsExport, body: logsPB, wantCode: codes.OK, wantData: true},
		{name: "gzip", method: tracesExport, body: tracesPB, gzip: true, wantCode: codes.OK, wantData: true},
		{name: "include_metadata", method: logsExport, body: logsPB, metadata: []string{"x-tenant", "acme"}, wantCode: codes.OK, wantData: true},
		{name: "empty request", method: tracesExport, wantCode: codes.OK},
		{name: "repeated attribute key (left to pdata)", method: tracesExport, body: duplicateKeyTraces(), wantCode: codes.OK, wantData: true},
		{name: "malformed", method: tracesExport, body: []byte("this is not OTLP"), wantCode: codes.Internal},
		{name: "truncated", method: logsExport, body: logsPB[:len(logsPB)/2], wantCode: codes.Internal},
		{name: "oversized", method: tracesExport, body: big, wantCode: codes.ResourceExhausted},
		{name: "permanent consumer error", method: tracesExport, body: tracesPB, consumerErr: consumererror.NewPermanent(errors.New("no such tenant")), wantCode: codes.Internal, wantData: true},
		{name: "retryable consumer error", method: metricsExport, body: metricsPB, consumerErr: errors.New("queue is full"), wantCode: codes.Unavailable, wantData: true},
		{name: "throttled with RetryInfo", method: logsExport, body: logsPB, consumerErr: throttled.Err(), wantCode: codes.ResourceExhausted, wantData: true},
		{name: "status InvalidArgument", method: tracesExport, body: tracesPB, consumerErr: status.Error(codes.InvalidArgument, "bad span"), wantCode: codes.InvalidArgument, wantData: true},
		{name: "unknown method", method: "/opentelemetry.proto.collector.trace.v1.TraceService/Other", body: tracesPB, wantCode: codes.Unimplemented},
		{name: "unknown service", method: "/opentelemetry.proto.collector.trace.v1.SpanService/Export", body: tracesPB, wantCode: codes.Unimplemented},
	}
}

// TestOTLPGRPCSameAsUpstream sends the same calls to the collector's otlp
// receiver (grpc only) and to flowlua's server of the same config, with
// flowlua's fast decoding on and off: codes, status messages and details,
// and responses are the same, the consumers receive the same data with
// the same client metadata, and the receivers record the same obsreport
// metrics.
func TestOTLPGRPCSameAsUpstream(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			up := startUpstreamGRPC(t)
			decode := otlpwire.NewUnmarshaler(fast)
			fl := startFlowluaGRPC(t, decode)
			for _, ex := range grpcEquivalenceCases(t) {
				want := up.call(t, ex)
				got := fl.call(t, ex)
				if want.code != ex.wantCode {
					t.Errorf("%s: the collector answered %v, the case expects %v", ex.name, want.code, ex.wantCode)
				}
				if got.code != want.code {
					t.Errorf("%s: code %v, the collector's %v", ex.name, got.code, want.code)
				}
				if !bytes.Equal(got.status, want.status) {
					t.Errorf("%s: status %q, the collector's %q", ex.name, got.status, want.status)
				}
				if !bytes.Equal(got.response, want.response) {
					t.Errorf("%s: response %q, the collector's %q", ex.name, got.response, want.response)
				}
				upData, flData := up.rec.take(), fl.rec.take()
				if !slices.Equal(flData, upData) {
					t.Errorf("%s: consumed %q, the collector's consumer %q", ex.name, flData, upData)
				}
				if ex.wantData != (len(flData) > 0) {
					t.Errorf("%s: consumed %d batches; want data %v", ex.name, len(flData), ex.wantData)
				}
			}
			compareReceiverMetrics(t, up.tel, fl.tel, "grpc")

			var fastN, pdataN uint64
			for _, sig := range []string{"traces", "metrics", "logs"} {
				fastN += decode.StatsOf(sig).Fast.Load()
				pdataN += decode.StatsOf(sig).Pdata.Load()
			}
			if fast && (fastN == 0 || pdataN == 0) || !fast && (fastN != 0 || pdataN == 0) {
				t.Errorf("decoded %d fast, %d by pdata", fastN, pdataN)
			}
		})
	}
}

// Shutdown waits for a call in flight to be consumed and answered.
func TestOTLPGRPCShutdownDrains(t *testing.T) {
	s := &grpcSide{rec: &recorder{}, tel: componenttest.NewTelemetry()}
	set, logs := testSettings(s.tel)
	g, err := newOTLPGRPC(*otlpGRPCConfig(t, grpcTestConfig).Protocols.GRPC.Get(), set, otlpwire.NewUnmarshaler(true))
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}, 1), make(chan struct{})
	g.setConsumer(dataplane.Traces, blockingTraces{entered: entered, release: release})
	if err := g.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	s.conn = dialSide(t, grpcListeningOn(t, logs))
	body := mustMarshal(t)((&ptrace.ProtoMarshaler{}).MarshalTraces(spans(3)))
	answered := make(chan grpcAnswer, 1)
	go func() { answered <- s.call(t, grpcExchange{method: tracesExport, body: body}) }()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- g.Shutdown(context.Background()) }()
	close(release) // a Shutdown that did not wait has cancelled the call
	if err := <-stopped; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if a := <-answered; a.code != codes.OK {
		t.Errorf("the call in flight was answered %v, want OK", a.code)
	}
}

// blockingTraces is a traces consumer that waits for release.
type blockingTraces struct {
	entered chan struct{}
	release chan struct{}
}

func (blockingTraces) Capabilities() consumer.Capabilities                   { return consumer.Capabilities{} }
func (blockingTraces) ConsumeMetrics(context.Context, pmetric.Metrics) error { return nil }
func (blockingTraces) ConsumeLogs(context.Context, plog.Logs) error          { return nil }

func (b blockingTraces) ConsumeTraces(context.Context, ptrace.Traces) error {
	b.entered <- struct{}{}
	<-b.release
	return nil
}
