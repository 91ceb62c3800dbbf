package otelcol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// flowlua serves the OTLP/HTTP protocol of otelcol.receiver.otlp itself
// (otlpreceiver.go), so that protobuf bodies are decoded by otlpwire: the
// upstream receiver's HTTP handler decodes with pdata and cannot be
// hooked. Everything but the decoding, its bound on nesting
// (otlpwire.MaxDepth) and the bytes decoded at once (DecodingBudget,
// admission.go) is the collector's (v0.165.0, otlpreceiver's otlphttp.go,
// encoder.go and internal/errors): the server comes from the same
// confighttp.ServerConfig (TLS, auth, CORS, decompression, body size
// limit, include_metadata, response headers, its own telemetry), with the
// same routes, methods, content types, status codes, bodies and obsreport
// metrics. TestOTLPHTTPSameAsUpstream holds it to that.

// otlpHTTP is the OTLP/HTTP server of one otlp receiver instance.
type otlpHTTP struct {
	cfg      otlpreceiver.HTTPConfig
	tel      component.TelemetrySettings
	obsrep   *receiverhelper.ObsReport
	decoding *httpDecoding
	admit    *admission // the bytes decoded at once (DecodingBudget)

	otlpConsumers // nil: the signal's route is not served

	server *http.Server
	addr   net.Addr
	serve  sync.WaitGroup
}

var _ receiverPart = (*otlpHTTP)(nil)

// newOTLPHTTP returns the server of cfg; consumers are set before Start.
func newOTLPHTTP(cfg otlpreceiver.HTTPConfig, set receiver.Settings, decoding *httpDecoding) (*otlpHTTP, error) {
	obsrep, err := receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{
		ReceiverID:             set.ID,
		Transport:              "http",
		ReceiverCreateSettings: set,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the receiver's http telemetry: %w", err)
	}
	return &otlpHTTP{cfg: cfg, tel: set.TelemetrySettings, obsrep: obsrep, decoding: decoding,
		admit: newAdmission(DecodingBudget, set.TelemetrySettings.MeterProvider, "http")}, nil
}

// Start builds the server from the config, binds its address and serves
// it until Shutdown; a serving error is reported to host as fatal.
func (h *otlpHTTP) Start(ctx context.Context, host component.Host) error {
	mux := http.NewServeMux()
	paths := map[string]string{}
	route := func(key string, path otlpreceiver.SanitizedURLPath, handler http.HandlerFunc) error {
		if other, taken := paths[string(path)]; taken {
			// The collector's mux panics here; a reload must not.
			return fmt.Errorf("http: %s and %s are both %q", other, key, path)
		}
		paths[string(path)] = key
		mux.HandleFunc(string(path), handler)
		return nil
	}
	var errs []error
	if h.traces != nil {
		errs = append(errs, route("traces_url_path", h.cfg.TracesURLPath, h.tracesHandler()))
	}
	if h.metrics != nil {
		errs = append(errs, route("metrics_url_path", h.cfg.MetricsURLPath, h.metricsHandler()))
	}
	if h.logs != nil {
		errs = append(errs, route("logs_url_path", h.cfg.LogsURLPath, h.logsHandler()))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	srv, err := h.cfg.ServerConfig.ToServer(ctx, host.GetExtensions(), h.tel, mux, confighttp.WithErrorHandler(errorHandler))
	if err != nil {
		return fmt.Errorf("building the http server: %w", err)
	}
	ln, err := h.cfg.ServerConfig.ToListener(ctx)
	if err != nil {
		return fmt.Errorf("listening for http: %w", err)
	}
	h.tel.Logger.Info("Starting HTTP server", zap.String("endpoint", ln.Addr().String()))
	h.server, h.addr = srv, ln.Addr()
	h.serve.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			componentstatus.ReportStatus(host, componentstatus.NewFatalErrorEvent(err))
		}
	})
	return nil
}

// Shutdown closes the listener, waits for the requests in flight (until
// ctx ends) and for the server to stop.
func (h *otlpHTTP) Shutdown(ctx context.Context) error {
	var err error
	if h.server != nil {
		err = h.server.Shutdown(ctx)
	}
	h.serve.Wait()
	return err
}

// tracesHandler serves export requests of traces.
func (h *otlpHTTP) tracesHandler() http.HandlerFunc {
	e := &exportOf[ptrace.Traces]{
		admit:     h.admit,
		proto:     h.decoding.proto.UnmarshalTraces,
		json:      h.decoding.json.UnmarshalTraces,
		count:     ptrace.Traces.SpanCount,
		start:     h.obsrep.StartTracesOp,
		end:       h.obsrep.EndTracesOp,
		consume:   h.traces.ConsumeTraces,
		protoResp: ptraceotlp.NewExportResponse().MarshalProto,
		jsonResp:  ptraceotlp.NewExportResponse().MarshalJSON,
	}
	return func(w http.ResponseWriter, r *http.Request) { serveExport(w, r, e) }
}

// metricsHandler serves export requests of metrics.
func (h *otlpHTTP) metricsHandler() http.HandlerFunc {
	e := &exportOf[pmetric.Metrics]{
		admit:     h.admit,
		proto:     h.decoding.proto.UnmarshalMetrics,
		json:      h.decoding.json.UnmarshalMetrics,
		count:     pmetric.Metrics.DataPointCount,
		start:     h.obsrep.StartMetricsOp,
		end:       h.obsrep.EndMetricsOp,
		consume:   h.metrics.ConsumeMetrics,
		protoResp: pmetricotlp.NewExportResponse().MarshalProto,
		jsonResp:  pmetricotlp.NewExportResponse().MarshalJSON,
	}
	return func(w http.ResponseWriter, r *http.Request) { serveExport(w, r, e) }
}

// logsHandler serves export requests of logs.
func (h *otlpHTTP) logsHandler() http.HandlerFunc {
	e := &exportOf[plog.Logs]{
		admit:     h.admit,
		proto:     h.decoding.proto.UnmarshalLogs,
		json:      h.decoding.json.UnmarshalLogs,
		count:     plog.Logs.LogRecordCount,
		start:     h.obsrep.StartLogsOp,
		end:       h.obsrep.EndLogsOp,
		consume:   h.logs.ConsumeLogs,
		protoResp: plogotlp.NewExportResponse().MarshalProto,
		jsonResp:  plogotlp.NewExportResponse().MarshalJSON,
	}
	return func(w http.ResponseWriter, r *http.Request) { serveExport(w, r, e) }
}

// exportOf is what serving one signal's export requests takes.
type exportOf[D any] struct {
	admit     *admission
	proto     func([]byte) (D, error)
	json      func([]byte) (D, error)
	count     func(D) int
	start     func(context.Context) context.Context
	end       func(ctx context.Context, format string, n int, err error)
	consume   func(context.Context, D) error
	protoResp func() ([]byte, error)
	jsonResp  func() ([]byte, error)
}

// The collector's OTLP/HTTP content types, and the data format its
// obsreport records for every request, JSON ones included.
const (
	pbContentType       = "application/x-protobuf"
	jsonContentType     = "application/json"
	obsreportFormat     = "protobuf"
	fallbackContentType = "application/json"
)

// fallbackMsg is the collector's body for a status it cannot marshal.
var fallbackMsg = []byte(`{"code": 13, "message": "failed to marshal error message"}`)

// serveExport serves one export request as the collector's handler does:
// method and content type checked, body read and decoded (protobuf by
// otlpwire), data consumed, response written in the request's encoding.
// Between reading the body and the end of its consumption, the body's
// bytes count against the receiver's DecodingBudget; a body that does
// not fit is refused as retryable (503, Retry-After).
func serveExport[D any](w http.ResponseWriter, r *http.Request, e *exportOf[D]) {
	if r.Method != http.MethodPost {
		writeResponse(w, "text/plain", http.StatusMethodNotAllowed, fmt.Appendf(nil, "%v method not allowed, supported: [POST]", http.StatusMethodNotAllowed))
		return
	}
	var isJSON bool
	switch mimeType(r.Header.Get("Content-Type")) {
	case pbContentType:
	case jsonContentType:
		isJSON = true
	default:
		writeResponse(w, "text/plain", http.StatusUnsupportedMediaType, fmt.Appendf(nil, "%v unsupported media type, supported: [%s, %s]", http.StatusUnsupportedMediaType, jsonContentType, pbContentType))
		return
	}

	body, err := readBody(r)
	if err != nil {
		writeError(w, isJSON, err, http.StatusBadRequest)
		return
	}
	cost, ok := e.admit.take(body.Len())
	if !ok {
		releaseBody(body)
		writeError(w, isJSON, errThrottled, http.StatusServiceUnavailable)
		return
	}
	defer e.admit.release(cost)
	var data D
	if isJSON {
		data, err = e.json(body.Bytes())
		releaseBody(body) // nothing decoded points into it
		body = nil
	} else {
		// Kept until the batch is consumed: its consumers may send these
		// bytes on (dataplane.WithEncoded); nothing decoded points into it.
		data, err = e.proto(body.Bytes())
		defer releaseBody(body)
	}
	if err != nil {
		writeError(w, isJSON, err, http.StatusBadRequest)
		return
	}

	if n := e.count(data); n > 0 {
		ctx := e.start(r.Context())
		done := func() {}
		if body != nil {
			ctx, done = dataplane.WithEncoded(ctx, any(data), body.Bytes())
		}
		err := e.consume(ctx, data)
		done()
		e.end(ctx, obsreportFormat, n, err)
		if err != nil {
			writeError(w, isJSON, statusFromConsumerError(err), http.StatusInternalServerError)
			return
		}
	}

	marshal, contentType := e.protoResp, pbContentType
	if isJSON {
		marshal, contentType = e.jsonResp, jsonContentType
	}
	msg, err := marshal()
	if err != nil {
		writeError(w, isJSON, err, http.StatusInternalServerError)
		return
	}
	writeResponse(w, contentType, http.StatusOK, msg)
}

// Request bodies are read into pooled buffers. One that grew past
// maxPooledBody is left to the garbage collector rather than kept.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBody = 4 << 20

// readBody reads and closes the request's body, as the collector's
// handler does (with the same errors: the body size limit's, the
// decompressor's).
func readBody(r *http.Request) (*bytes.Buffer, error) {
	b := bodies.Get().(*bytes.Buffer)
	b.Reset()
	if n := r.ContentLength; n > 0 && n <= maxPooledBody {
		b.Grow(int(n) + bytes.MinRead) // ReadFrom wants MinRead spare to see EOF
	}
	if _, err := b.ReadFrom(r.Body); err != nil {
		releaseBody(b)
		return nil, err
	}
	if err := r.Body.Close(); err != nil {
		releaseBody(b)
		return nil, err
	}
	return b, nil
}

func releaseBody(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBody {
		bodies.Put(b)
	}
}

// mimeType is the media type of a Content-Type header, "" if it does not
// parse.
func mimeType(contentType string) string {
	mediatype, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return mediatype
}

// statusFromConsumerError is the collector's status for a consumer's
// error: its own gRPC status, else Unavailable (retryable) or, for a
// permanent error, Internal.
func statusFromConsumerError(err error) error {
	s, ok := status.FromError(err)
	if !ok {
		code := codes.Unavailable
		if consumererror.IsPermanent(err) {
			code = codes.Internal
		}
		s = status.New(code, err.Error())
	}
	return s.Err()
}

// httpStatusOf maps a gRPC status to the collector's HTTP status code
// (the OTLP specification's retryable and non-retryable failures).
func httpStatusOf(s *status.Status) int {
	switch s.Code() {
	case codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.Unavailable, codes.DataLoss:
		return http.StatusServiceUnavailable
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.InvalidArgument:
		return http.StatusBadRequest
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unimplemented:
		return http.StatusNotFound
	default:
		return http.StatusInternalServerError
	}
}

// statusOf makes the gRPC status of an HTTP error, as the collector does.
func statusOf(msg string, httpStatus int) *status.Status {
	var c codes.Code
	switch httpStatus {
	case http.StatusBadRequest:
		c = codes.InvalidArgument
	case http.StatusUnauthorized:
		c = codes.Unauthenticated
	case http.StatusForbidden:
		c = codes.PermissionDenied
	case http.StatusNotFound:
		c = codes.Unimplemented
	case http.StatusTooManyRequests:
		c = codes.ResourceExhausted
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		c = codes.Unavailable
	default:
		c = codes.Unknown
	}
	return status.New(c, msg)
}

// writeError writes err as a google.rpc.Status in the request's encoding:
// with its own status code when err carries a gRPC status, else with
// httpStatus.
func writeError(w http.ResponseWriter, isJSON bool, err error, httpStatus int) {
	s, ok := status.FromError(err)
	if ok {
		httpStatus = httpStatusOf(s)
	} else {
		s = statusOf(err.Error(), httpStatus)
	}
	writeStatus(w, isJSON, httpStatus, s)
}

// errorHandler is the server's handler of the errors its decompressor
// meets (and the auth interceptor's), the collector's: the status as
// protobuf for a protobuf request, else as JSON, with the status code it
// was given (a client's error stays a 4xx).
func errorHandler(w http.ResponseWriter, r *http.Request, errMsg string, httpStatus int) {
	writeStatus(w, mimeType(r.Header.Get("Content-Type")) != pbContentType, httpStatus, statusOf(errMsg, httpStatus))
}

// writeStatus writes s, with a Retry-After header when it is a throttling
// status (429, 503) that carries a RetryInfo.
func writeStatus(w http.ResponseWriter, isJSON bool, httpStatus int, s *status.Status) {
	if httpStatus == http.StatusTooManyRequests || httpStatus == http.StatusServiceUnavailable {
		for _, d := range s.Details() {
			if ri, ok := d.(*errdetails.RetryInfo); ok {
				w.Header().Set("Retry-After", strconv.FormatInt(int64(ri.GetRetryDelay().AsDuration()/time.Second), 10))
				break
			}
		}
	}
	msg, err := marshalStatus(isJSON, s.Proto())
	if err != nil {
		writeResponse(w, fallbackContentType, http.StatusInternalServerError, fallbackMsg)
		return
	}
	contentType := pbContentType
	if isJSON {
		contentType = jsonContentType
	}
	writeResponse(w, contentType, httpStatus, msg)
}

func marshalStatus(isJSON bool, s *spb.Status) ([]byte, error) {
	if isJSON {
		return protojson.Marshal(s)
	}
	return proto.Marshal(s)
}

func writeResponse(w http.ResponseWriter, contentType string, httpStatus int, msg []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(httpStatus)
	_, _ = w.Write(msg) // nothing to do if the client is gone
}
