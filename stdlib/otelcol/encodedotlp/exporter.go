package encodedotlp

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exporterhelper/xexporterhelper"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/pipeline"
	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
)

// NewFactory returns a factory of upstream's type, config and stability
// (upstream is otlpexporter.NewFactory()) whose exporters queue encoded
// requests. A config that is not an *otlpexporter.Config is refused.
func NewFactory(upstream exporter.Factory) exporter.Factory {
	return exporter.NewFactory(upstream.Type(), upstream.CreateDefaultConfig,
		exporter.WithTraces(createTraces, upstream.TracesStability()),
		exporter.WithMetrics(createMetrics, upstream.MetricsStability()),
		exporter.WithLogs(createLogs, upstream.LogsStability()),
	)
}

// The converters: pdata to an encoded request, when the exporter takes it.
func encodeTraces(_ context.Context, td ptrace.Traces) (xexporterhelper.Request, error) {
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	return newRequest(pipeline.SignalTraces, b, td.SpanCount()), err
}

func encodeMetrics(_ context.Context, md pmetric.Metrics) (xexporterhelper.Request, error) {
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	return newRequest(pipeline.SignalMetrics, b, md.DataPointCount()), err
}

func encodeLogs(_ context.Context, ld plog.Logs) (xexporterhelper.Request, error) {
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	return newRequest(pipeline.SignalLogs, b, ld.LogRecordCount()), err
}

// config returns cfg as the upstream exporter's config.
func config(cfg component.Config) (*otlpexporter.Config, error) {
	c, ok := cfg.(*otlpexporter.Config)
	if !ok {
		return nil, fmt.Errorf("the encoded OTLP exporter takes an *otlpexporter.Config, not %T", cfg)
	}
	return c, nil
}

func createTraces(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Traces, error) {
	c, err := config(cfg)
	if err != nil {
		return nil, err
	}
	s := newSender(c, set, pipeline.SignalTraces)
	return xexporterhelper.NewTracesRequest(ctx, set, encodeTraces, s.push, options(c, s)...)
}

func createMetrics(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
	c, err := config(cfg)
	if err != nil {
		return nil, err
	}
	s := newSender(c, set, pipeline.SignalMetrics)
	return xexporterhelper.NewMetricsRequest(ctx, set, encodeMetrics, s.push, options(c, s)...)
}

func createLogs(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Logs, error) {
	c, err := config(cfg)
	if err != nil {
		return nil, err
	}
	s := newSender(c, set, pipeline.SignalLogs)
	return xexporterhelper.NewLogsRequest(ctx, set, encodeLogs, s.push, options(c, s)...)
}

// options are the exporterhelper options the upstream exporter uses, with
// the queue of encoded requests.
func options(cfg *otlpexporter.Config, s *sender) []exporterhelper.Option {
	return []exporterhelper.Option{
		exporterhelper.WithCapabilities(consumer.Capabilities{MutatesData: false}),
		exporterhelper.WithTimeout(cfg.TimeoutConfig),
		exporterhelper.WithRetry(cfg.RetryConfig),
		xexporterhelper.WithQueueBatch(cfg.QueueConfig, xexporterhelper.QueueBatchSettings{Encoding: queueEncoding{signal: s.signal}}),
		exporterhelper.WithStart(s.start),
		exporterhelper.WithShutdown(s.shutdown),
	}
}

// methods are the gRPC methods of each signal's Export.
var methods = map[pipeline.Signal]string{
	pipeline.SignalTraces:  "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
	pipeline.SignalMetrics: "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
	pipeline.SignalLogs:    "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
}

// sender sends encoded requests of one signal to an OTLP/gRPC endpoint,
// as the upstream exporter's push does without the encoding: a
// connection from the same configgrpc.ClientConfig, with the same user
// agent and call options, to the same method, and the same reading of
// the response (which codes are retried, the server's throttling, a
// partial success logged).
type sender struct {
	cfg       *otlpexporter.Config
	tel       component.TelemetrySettings
	userAgent string
	signal    pipeline.Signal
	method    string

	conn        *grpc.ClientConn
	callOptions []grpc.CallOption
}

func newSender(cfg *otlpexporter.Config, set exporter.Settings, signal pipeline.Signal) *sender {
	return &sender{
		cfg:       cfg,
		tel:       set.TelemetrySettings,
		userAgent: fmt.Sprintf("%s/%s (%s/%s)", set.BuildInfo.Description, set.BuildInfo.Version, runtime.GOOS, runtime.GOARCH),
		signal:    signal,
		method:    methods[signal],
	}
}

func (s *sender) start(ctx context.Context, host component.Host) error {
	agent := configgrpc.WithGrpcDialOption(grpc.WithUserAgent(s.userAgent))
	conn, err := s.cfg.ClientConfig.ToClientConn(ctx, host.GetExtensions(), s.tel, agent)
	if err != nil {
		return err
	}
	s.conn = conn
	s.callOptions = []grpc.CallOption{
		grpc.WaitForReady(s.cfg.ClientConfig.WaitForReady),
		grpc.ForceCodecV2(rawCodec{}),
	}
	return nil
}

func (s *sender) shutdown(context.Context) error {
	if s.conn != nil {
		return s.conn.Close()
	}
	return nil
}

// push sends one request.
func (s *sender) push(ctx context.Context, req xexporterhelper.Request) error {
	r, ok := req.(*request)
	if !ok {
		return consumererror.NewPermanent(fmt.Errorf("the encoded OTLP exporter cannot send %T", req))
	}
	if s.conn == nil {
		return errors.New("otlp exporter not started")
	}
	var resp rawMessage
	if err := processError(s.conn.Invoke(ctx, s.method, &rawMessage{parts: r.parts}, &resp, s.callOptions...)); err != nil {
		return err
	}
	s.logPartialSuccess(resp.b)
	return nil
}

// logPartialSuccess logs a response's partial success as upstream does.
func (s *sender) logPartialSuccess(b []byte) {
	var (
		msg      string
		rejected int64
		field    string
	)
	switch s.signal {
	case pipeline.SignalTraces:
		r := ptraceotlp.NewExportResponse()
		if r.UnmarshalProto(b) != nil {
			return
		}
		msg, rejected, field = r.PartialSuccess().ErrorMessage(), r.PartialSuccess().RejectedSpans(), "dropped_spans"
	case pipeline.SignalMetrics:
		r := pmetricotlp.NewExportResponse()
		if r.UnmarshalProto(b) != nil {
			return
		}
		msg, rejected, field = r.PartialSuccess().ErrorMessage(), r.PartialSuccess().RejectedDataPoints(), "dropped_data_points"
	default:
		r := plogotlp.NewExportResponse()
		if r.UnmarshalProto(b) != nil {
			return
		}
		msg, rejected, field = r.PartialSuccess().ErrorMessage(), r.PartialSuccess().RejectedLogRecords(), "dropped_log_records"
	}
	if msg != "" || rejected != 0 {
		s.tel.Logger.Warn("Partial success response", zap.String("message", msg), zap.Int64(field, rejected))
	}
}

// processError is the upstream exporter's: nil for success, a permanent
// error for a code not worth retrying, a throttled retry when the server
// says when, else the error to retry.
func processError(err error) error {
	if err == nil {
		return nil
	}
	st := status.Convert(err)
	if st.Code() == codes.OK {
		return nil
	}
	retryInfo := retryInfoOf(st)
	if !shouldRetry(st.Code(), retryInfo) {
		return consumererror.NewPermanent(err)
	}
	if d := retryInfo.GetRetryDelay().AsDuration(); d != 0 {
		return exporterhelper.NewThrottleRetry(err, d)
	}
	return err
}

// shouldRetry is the upstream exporter's.
func shouldRetry(code codes.Code, retryInfo *errdetails.RetryInfo) bool {
	switch code {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss:
		return true
	case codes.ResourceExhausted:
		return retryInfo != nil
	}
	return false
}

func retryInfoOf(st *status.Status) *errdetails.RetryInfo {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.RetryInfo); ok {
			return info
		}
	}
	return nil
}

// rawMessage is a message already encoded: the request sent, in parts,
// or the response received, in b.
type rawMessage struct {
	parts [][]byte
	b     []byte
}

// rawCodec passes rawMessages through gRPC as they are. It is given to
// this exporter's calls only (grpc.ForceCodecV2), never registered.
type rawCodec struct{}

// Name is empty: gRPC makes a forced codec's name the content subtype
// (application/grpc+NAME), and the upstream exporter sends plain
// application/grpc.
func (rawCodec) Name() string { return "" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*rawMessage)
	if !ok {
		return nil, fmt.Errorf("raw codec: cannot marshal %T", v)
	}
	out := make(mem.BufferSlice, len(m.parts))
	for i, p := range m.parts {
		out[i] = mem.SliceBuffer(p)
	}
	return out, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*rawMessage)
	if !ok {
		return fmt.Errorf("raw codec: cannot unmarshal into %T", v)
	}
	m.b = data.Materialize()
	return nil
}

// queueEncoding stores encoded requests in a persistent queue: the
// signal is the queue's, the bytes are the request's.
type queueEncoding struct{ signal pipeline.Signal }

func (e queueEncoding) Marshal(_ context.Context, req xexporterhelper.Request) ([]byte, error) {
	r, ok := req.(*request)
	if !ok {
		return nil, fmt.Errorf("storing %T in an encoded OTLP queue", req)
	}
	return r.bytes(), nil
}

func (e queueEncoding) Unmarshal(b []byte) (context.Context, xexporterhelper.Request, error) {
	r := newRequest(e.signal, b, 0)
	d, err := decode(r)
	if err != nil {
		return context.Background(), nil, fmt.Errorf("reading an encoded %v request from the queue: %w", e.signal, err)
	}
	r.items = d.items()
	return context.Background(), r, nil
}
