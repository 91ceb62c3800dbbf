package otelcol

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/pluginsdk/otlpwire"
)

// flowlua serves the OTLP/gRPC protocol of otelcol.receiver.otlp itself,
// as it serves OTLP/HTTP (otlphttp.go), so that export requests are
// decoded by otlpwire through pdata's public API: the upstream receiver
// registers pdata's generated services, whose messages only gRPC's
// process-wide "proto" codec can decode. This server forces its own codec
// (grpc.ForceServerCodecV2), which touches no other server or client of
// the process. Everything but the decoding and its bounds is the
// collector's (otlpreceiver's otlp.go and internal/{trace,metrics,logs}):
// the server comes from the same configgrpc.ServerConfig (TLS, auth,
// keepalive, message size limit, decompression, include_metadata, its
// own telemetry), with the same services, status codes and obsreport
// metrics. TestOTLPGRPCSameAsUpstream holds it to that.

// otlpGRPC is the OTLP/gRPC server of one otlp receiver instance.
type otlpGRPC struct {
	cfg    configgrpc.ServerConfig
	tel    component.TelemetrySettings
	obsrep *receiverhelper.ObsReport
	decode *otlpwire.Unmarshaler
	admit  *grpcAdmission

	otlpConsumers // nil: the signal's service is not served

	server *grpc.Server
	addr   net.Addr
	serve  sync.WaitGroup
}

var _ receiverPart = (*otlpGRPC)(nil)

// newOTLPGRPC returns the server of cfg; consumers are set before Start.
func newOTLPGRPC(cfg configgrpc.ServerConfig, set receiver.Settings, decode *otlpwire.Unmarshaler) (*otlpGRPC, error) {
	obsrep, err := receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{
		ReceiverID:             set.ID,
		Transport:              "grpc",
		ReceiverCreateSettings: set,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the receiver's grpc telemetry: %w", err)
	}
	maxMsg := int64(cfg.MaxRecvMsgSizeMiB) << 20
	if maxMsg <= 0 {
		maxMsg = 4 << 20 // gRPC's default
	}
	return &otlpGRPC{cfg: cfg, tel: set.TelemetrySettings, obsrep: obsrep, decode: decode,
		admit: newGRPCAdmission(DecodingBudget, maxMsg, set.TelemetrySettings.MeterProvider)}, nil
}

// Start builds the server from the config, binds its address and serves
// it until Shutdown; a serving error is reported to host as fatal.
func (g *otlpGRPC) Start(ctx context.Context, host component.Host) error {
	opts := []configgrpc.ToServerOption{configgrpc.WithGrpcServerOption(grpc.ForceServerCodecV2(exportCodec{}))}
	for _, o := range g.admit.serverOptions() {
		opts = append(opts, configgrpc.WithGrpcServerOption(o))
	}
	srv, err := g.cfg.ToServer(ctx, host.GetExtensions(), g.tel, opts...)
	if err != nil {
		return fmt.Errorf("building the grpc server: %w", err)
	}
	responses, err := exportResponses()
	if err != nil {
		return err
	}
	if g.traces != nil {
		srv.RegisterService(exportService("opentelemetry.proto.collector.trace.v1.TraceService", &grpcExport[ptrace.Traces]{
			decode: g.decode.UnmarshalTraces, response: responses[0], count: ptrace.Traces.SpanCount,
			start: g.obsrep.StartTracesOp, end: g.obsrep.EndTracesOp, consume: g.traces.ConsumeTraces,
			signal: dataplane.Traces, next: g.traces,
		}), nil)
	}
	if g.metrics != nil {
		srv.RegisterService(exportService("opentelemetry.proto.collector.metrics.v1.MetricsService", &grpcExport[pmetric.Metrics]{
			decode: g.decode.UnmarshalMetrics, response: responses[1], count: pmetric.Metrics.DataPointCount,
			start: g.obsrep.StartMetricsOp, end: g.obsrep.EndMetricsOp, consume: g.metrics.ConsumeMetrics,
			signal: dataplane.Metrics, next: g.metrics,
		}), nil)
	}
	if g.logs != nil {
		srv.RegisterService(exportService("opentelemetry.proto.collector.logs.v1.LogsService", &grpcExport[plog.Logs]{
			decode: g.decode.UnmarshalLogs, response: responses[2], count: plog.Logs.LogRecordCount,
			start: g.obsrep.StartLogsOp, end: g.obsrep.EndLogsOp, consume: g.logs.ConsumeLogs,
			signal: dataplane.Logs, next: g.logs,
		}), nil)
	}
	ln, err := g.cfg.NetAddr.Listen(ctx)
	if err != nil {
		return fmt.Errorf("listening for grpc: %w", err)
	}
	g.tel.Logger.Info("Starting GRPC server", zap.String("endpoint", ln.Addr().String()))
	g.server, g.addr = srv, ln.Addr()
	g.serve.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	})
	return nil
}

// Shutdown stops accepting requests and waits for those in flight to be
// consumed and answered, as the collector's receiver does; when ctx ends
// first, the rest are cancelled (their clients retry: nothing they sent
// was acknowledged).
func (g *otlpGRPC) Shutdown(ctx context.Context) error {
	if g.server == nil {
		return nil
	}
	stopped := make(chan struct{})
	go func() {
		g.server.GracefulStop()
		close(stopped)
	}()
	var err error
	select {
	case <-stopped:
	case <-ctx.Done():
		g.server.Stop()
		<-stopped
		err = fmt.Errorf("stopping the grpc server: %w", ctx.Err())
	}
	g.serve.Wait()
	return err
}

// exportResponses returns the encoded empty responses of traces, metrics
// and logs, as pdata encodes them.
func exportResponses() ([3][]byte, error) {
	var out [3][]byte
	var errs [3]error
	out[0], errs[0] = ptraceotlp.NewExportResponse().MarshalProto()
	out[1], errs[1] = pmetricotlp.NewExportResponse().MarshalProto()
	out[2], errs[2] = plogotlp.NewExportResponse().MarshalProto()
	if err := errors.Join(errs[:]...); err != nil {
		return out, fmt.Errorf("encoding the export responses: %w", err)
	}
	return out, nil
}

// grpcExport serves one signal's Export method.
type grpcExport[D any] struct {
	decode   func([]byte) (D, error)
	response []byte // the encoded exportResponse
	count    func(D) int
	start    func(context.Context) context.Context
	end      func(ctx context.Context, format string, n int, err error)
	consume  func(context.Context, D) error
	// signal and next are the signal and its consumer, which may take
	// batches encoded (dataplane.EncodedConsumer): then requests are
	// counted, not decoded, and their bytes go on as they came.
	signal dataplane.Signal
	next   any
}

// exportRequest is the message an Export call receives: exportCodec
// decodes the call's bytes into data with decode, and keeps them (raw)
// until the call is answered: they go with data to its consumers
// (dataplane.WithEncoded), so that a native plugin's input sends them
// rather than encoding data again.
type exportRequest[D any] struct {
	decode func([]byte) (D, error)
	data   D
	raw    mem.Buffer
	// encoded: the request is to go on as raw, holding items items,
	// undecoded (its consumers take it so); signal is its signal.
	encoded bool
	signal  dataplane.Signal
	items   int
}

func (r *exportRequest[D]) decodeFrom(buf mem.Buffer) (err error) {
	if r.encoded {
		r.items, err = otlpwire.Count(r.signal.String(), buf.ReadOnlyData())
		if err != nil {
			buf.Free()
			return err
		}
		r.raw = buf
		grpcUndecoded[r.signal].Add(1)
		return nil
	}
	r.data, err = r.decode(buf.ReadOnlyData())
	if err != nil {
		buf.Free()
		return err
	}
	r.raw = buf
	return nil
}

// free returns the request's bytes to their pool.
func (r *exportRequest[D]) free() {
	if r.raw != nil {
		r.raw.Free()
		r.raw = nil
	}
}

// exportResponse is what an Export call answers: the encoding of an
// Export*ServiceResponse with an empty partial success, what the
// collector's receiver answers (pdata encodes it so; the receiver never
// reports a partial success).
type exportResponse struct{ encoded []byte }

// export serves one call as the collector's receiver does: an empty
// request is answered without reaching the consumer; a consumer's error
// becomes its gRPC status (statusFromConsumerError).
func (e *grpcExport[D]) export(ctx context.Context, req *exportRequest[D]) (*exportResponse, error) {
	resp := &exportResponse{encoded: e.response}
	if req.encoded {
		return resp, e.exportEncoded(ctx, req)
	}
	n := e.count(req.data)
	if n == 0 {
		return resp, nil
	}
	ctx = e.start(ctx)
	var done func()
	if req.raw != nil {
		ctx, done = dataplane.WithEncoded(ctx, any(req.data), req.raw.ReadOnlyData())
	}
	err := e.consume(ctx, req.data)
	if done != nil {
		done()
	}
	e.end(ctx, obsreportFormat, n, err)
	if err != nil {
		return resp, statusFromConsumerError(err)
	}
	return resp, nil
}

// exportEncoded serves a call whose request goes on undecoded.
func (e *grpcExport[D]) exportEncoded(ctx context.Context, req *exportRequest[D]) error {
	if req.items == 0 {
		return nil
	}
	ctx = e.start(ctx)
	err := dataplane.ConsumeEncoded(ctx, e.next, e.signal, req.raw.ReadOnlyData(), req.items)
	e.end(ctx, obsreportFormat, req.items, err)
	if err != nil {
		return statusFromConsumerError(err)
	}
	return nil
}

// exportService describes the OTLP service named service, whose one
// unary method, Export, e serves: what pdata's generated registration
// describes, with messages exportCodec decodes.
func exportService[D any](service string, e *grpcExport[D]) *grpc.ServiceDesc {
	method := "/" + service + "/Export"
	return &grpc.ServiceDesc{
		ServiceName: service,
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: "Export",
			Handler: func(_ any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
				in := &exportRequest[D]{decode: e.decode, signal: e.signal, encoded: dataplane.TakesEncoded(e.next, e.signal)}
				if err := dec(in); err != nil {
					return nil, err
				}
				defer in.free()
				if interceptor == nil {
					return e.export(ctx, in)
				}
				info := &grpc.UnaryServerInfo{Server: e, FullMethod: method}
				return interceptor(ctx, in, info, func(ctx context.Context, req any) (any, error) {
					return e.export(ctx, req.(*exportRequest[D]))
				})
			},
		}},
		Metadata: "opentelemetry/proto/collector/" + service,
	}
}

// exportCodec is the codec of flowlua's OTLP/gRPC servers: it decodes an
// Export call's request with the request's own decoder and encodes its
// empty response. gRPC decompresses and bounds the message before.
type exportCodec struct{}

// wireDecoder is a request exportCodec decodes: it owns buf from then on.
type wireDecoder interface{ decodeFrom(buf mem.Buffer) error }

// Name is gRPC's name for protobuf: clients send application/grpc or
// application/grpc+proto.
func (exportCodec) Name() string { return "proto" }

// Marshal encodes a response.
func (exportCodec) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*exportResponse); ok {
		return mem.BufferSlice{mem.SliceBuffer(r.encoded)}, nil
	}
	return nil, fmt.Errorf("otlp grpc server: cannot encode %T", v)
}

// Unmarshal decodes a request. The bytes are copied into one pooled
// buffer, which the request keeps until it is answered: nothing decoded
// points into them.
func (exportCodec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(wireDecoder)
	if !ok {
		return fmt.Errorf("otlp grpc server: cannot decode into %T", v)
	}
	return r.decodeFrom(data.MaterializeToBuffer(mem.DefaultBufferPool()))
}
