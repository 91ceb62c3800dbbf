package otelcol

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/stdlib/otelcol/otlpwire"
)

// The OTLP exporter sends the batches the batch processor kept encoded
// (engine/component/dataplane/encoded.go) as they are: the patched
// exporterhelper queues them like pdata and hands them to an
// otlpEncodedSender, which flowlua gives each signal's exporter. It is
// the upstream exporter's push (v0.158.0, otlpexporter/otlp.go) without
// the encoding: a connection made from the same configgrpc.ClientConfig,
// with the same user agent and call options, to the same method, and the
// same reading of the response: which gRPC codes are retried, the
// server's throttling, a partial success logged. Upstream's connection
// for the signal stays idle (gRPC connects on the first call) unless
// pdata reaches the exporter some other way.

// The batch processor encodes the requests it keeps encoded with
// otlpwire, into buffers it reuses, rather than with pdata's
// ProtoMarshaler into a new buffer each.
func init() { batchprocessor.SetRequestEncoder(otlpwire.AppendRequest) }

// encodedBatchesOff says that the exporters get no otlpEncodedSender
// (SetEncodedBatches): every batch processor keeps pdata.
var encodedBatchesOff atomic.Bool

// SetEncodedBatches turns on or off, for the exporters built afterwards,
// sending the batches a batch processor kept encoded as they are (on by
// default; `flowlua run --no-otlp.encoded-batches` turns it off). Off, no
// exporter takes encoded requests, so every batch processor keeps pdata,
// as upstream's does.
func SetEncodedBatches(on bool) { encodedBatchesOff.Store(!on) }

// encodedBatchesSent counts, per signal, the batches the senders had a
// server take (flowlua_otlp_encoded_batches_total).
var encodedBatchesSent [dataplane.NumSignals]atomic.Uint64

// sendsEncoded gives every exporter of the kind an otlpEncodedSender.
func sendsEncoded() Option {
	return func(k *kind) { k.encodedSender = newOTLPEncodedSender }
}

// encodedPushSetter is the method of the patched exporterhelper's
// exporters that gives them a push for encoded requests.
type encodedPushSetter interface {
	SetEncodedPush(push func(ctx context.Context, payload []byte) error)
}

// otlpEncodedSender sends encoded requests of one signal to an OTLP/gRPC
// endpoint. It is a component so that the instance starts it before the
// exporter and shuts it down after the exporter has drained its queue.
type otlpEncodedSender struct {
	cfg       *otlpexporter.Config
	tel       component.TelemetrySettings
	userAgent string
	method    string // the full gRPC method of the signal's Export
	signal    dataplane.Signal

	conn        *grpc.ClientConn
	callOptions []grpc.CallOption

	sent atomic.Uint64 // requests the server took
}

// newOTLPEncodedSender returns the sender of sig for an exporter made
// from cfg; nil when cfg is not an otlp exporter's.
func newOTLPEncodedSender(s settings, cfg component.Config, sig dataplane.Signal) *otlpEncodedSender {
	c, ok := cfg.(*otlpexporter.Config)
	if !ok || encodedBatchesOff.Load() {
		return nil
	}
	method := map[dataplane.Signal]string{
		dataplane.Traces:  "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
		dataplane.Metrics: "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
		dataplane.Logs:    "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
	}[sig]
	return &otlpEncodedSender{
		cfg:       c,
		tel:       s.tel,
		userAgent: fmt.Sprintf("%s/%s (%s/%s)", s.build.Description, s.build.Version, runtime.GOOS, runtime.GOARCH),
		method:    method,
		signal:    sig,
	}
}

// Start makes the connection, as the upstream exporter's start does.
func (e *otlpEncodedSender) Start(ctx context.Context, host component.Host) error {
	agent := configgrpc.WithGrpcDialOption(grpc.WithUserAgent(e.userAgent))
	conn, err := e.cfg.ClientConfig.ToClientConn(ctx, host.GetExtensions(), e.tel, agent)
	if err != nil {
		return err
	}
	e.conn = conn
	e.callOptions = []grpc.CallOption{
		grpc.WaitForReady(e.cfg.ClientConfig.WaitForReady),
		grpc.ForceCodecV2(encodedCodec{}),
	}
	return nil
}

// Shutdown closes the connection.
func (e *otlpEncodedSender) Shutdown(context.Context) error {
	if e.conn != nil {
		return e.conn.Close()
	}
	return nil
}

// push sends payload and reads the response as the upstream exporter's
// pushTraces, pushMetrics and pushLogs do.
func (e *otlpEncodedSender) push(ctx context.Context, payload []byte) error {
	if e.conn == nil {
		return errors.New("otlp exporter not started")
	}
	var resp encodedMessage
	if err := processExportError(e.conn.Invoke(ctx, e.method, &encodedMessage{b: payload}, &resp, e.callOptions...)); err != nil {
		return err
	}
	e.sent.Add(1)
	encodedBatchesSent[e.signal].Add(1)
	e.logPartialSuccess(resp.b)
	return nil
}

// logPartialSuccess logs a response's partial success as upstream does.
func (e *otlpEncodedSender) logPartialSuccess(b []byte) {
	var (
		msg      string
		rejected int64
		field    string
	)
	switch e.signal {
	case dataplane.Traces:
		r := ptraceotlp.NewExportResponse()
		if r.UnmarshalProto(b) != nil {
			return
		}
		msg, rejected, field = r.PartialSuccess().ErrorMessage(), r.PartialSuccess().RejectedSpans(), "dropped_spans"
	case dataplane.Metrics:
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
		e.tel.Logger.Warn("Partial success response", zap.String("message", msg), zap.Int64(field, rejected))
	}
}

// processExportError is the upstream exporter's processError: nil for
// success, a permanent error for a code not worth retrying, a throttled
// retry when the server says when, else the error to retry.
func processExportError(err error) error {
	if err == nil {
		return nil
	}
	st := status.Convert(err)
	if st.Code() == codes.OK {
		return nil
	}
	retryInfo := retryInfoOf(st)
	if !shouldRetryExport(st.Code(), retryInfo) {
		return consumererror.NewPermanent(err)
	}
	if d := retryInfo.GetRetryDelay().AsDuration(); d != 0 {
		return exporterhelper.NewThrottleRetry(err, d)
	}
	return err
}

// shouldRetryExport is the upstream exporter's shouldRetry.
func shouldRetryExport(code codes.Code, retryInfo *errdetails.RetryInfo) bool {
	switch code {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss:
		return true
	case codes.ResourceExhausted:
		return retryInfo != nil
	}
	return false
}

// retryInfoOf is the collector's statusutil.GetRetryInfo.
func retryInfoOf(st *status.Status) *errdetails.RetryInfo {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.RetryInfo); ok {
			return info
		}
	}
	return nil
}

// encodedMessage is a message already encoded: the request sent, or the
// response received.
type encodedMessage struct{ b []byte }

// encodedCodec passes encodedMessages through gRPC as they are.
type encodedCodec struct{}

// Name is empty: gRPC makes a forced codec's name the content subtype
// (application/grpc+NAME), and the upstream exporter, with gRPC's default
// codec, sends plain application/grpc.
func (encodedCodec) Name() string { return "" }

func (encodedCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*encodedMessage)
	if !ok {
		return nil, fmt.Errorf("encoded codec: cannot marshal %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(m.b)}, nil
}

func (encodedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*encodedMessage)
	if !ok {
		return fmt.Errorf("encoded codec: cannot unmarshal into %T", v)
	}
	m.b = data.Materialize()
	return nil
}
