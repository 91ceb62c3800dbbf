package otelcol

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// recorder is the consumer behind one receiver in the equivalence test:
// it returns the error it is given, and records every batch (as
// OTLP/JSON) with the client metadata include_metadata put in its context.
type recorder struct {
	mu  sync.Mutex
	got []string
	err atomic.Pointer[error]
}

func (r *recorder) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (r *recorder) record(ctx context.Context, kind string, b []byte, err error) error {
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant := strings.Join(client.FromContext(ctx).Metadata.Get("x-tenant"), ",")
	r.got = append(r.got, kind+" tenant="+tenant+" "+string(b))
	if e := r.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (r *recorder) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	return r.record(ctx, "traces", b, err)
}

func (r *recorder) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	return r.record(ctx, "metrics", b, err)
}

func (r *recorder) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	b, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	return r.record(ctx, "logs", b, err)
}

// take returns what was recorded since the last call.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.got
	r.got = nil
	return got
}

// side is one OTLP/HTTP receiver under comparison.
type side struct {
	url  string
	next dataplane.Consumer
	rec  *recorder // next, when it is the recorder
	tel  *componenttest.Telemetry
	http *http.Client
}

func newSide(next dataplane.Consumer) *side {
	s := &side{next: next, tel: componenttest.NewTelemetry(), http: &http.Client{}}
	if next == nil {
		s.rec = &recorder{}
		s.next = s.rec
	}
	return s
}

// httpTestConfig is the http protocol both sides serve: a small body
// limit, CORS, include_metadata and a response header, so that each of
// those paths is compared.
var httpTestConfig = map[string]any{
	"endpoint":              "127.0.0.1:0",
	"max_request_body_size": 16384,
	"include_metadata":      true,
	"cors":                  map[string]any{"allowed_origins": []any{"https://app.example.com"}, "max_age": 60},
	"response_headers":      map[string]any{"X-Served-By": "otlp"},
}

// otlpConfig decodes an otlp receiver config with only the http protocol.
func otlpConfig(t testing.TB, http map[string]any) *otlpreceiver.Config {
	t.Helper()
	cfg := otlpreceiver.NewFactory().CreateDefaultConfig().(*otlpreceiver.Config)
	if err := confmap.NewFromStringMap(map[string]any{"protocols": map[string]any{"http": http}}).Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Protocols.GRPC.HasValue() {
		t.Fatal("the test config has a grpc protocol")
	}
	return cfg
}

// testSettings are receiver settings with telemetry kept in memory and a
// logger whose entries are observed (the servers log their address).
func testSettings(tel *componenttest.Telemetry) (receiver.Settings, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.InfoLevel)
	set := receivertest.NewNopSettings(otlpreceiver.NewFactory().Type())
	set.ID = component.NewIDWithName(set.ID.Type(), "eq")
	set.TelemetrySettings = tel.NewTelemetrySettings()
	set.Logger = zap.New(core)
	return set, logs
}

// listeningOn returns the endpoint the HTTP server logged it listens on.
func listeningOn(t testing.TB, logs *observer.ObservedLogs) string {
	t.Helper()
	return loggedEndpoint(t, logs, "Starting HTTP server")
}

// loggedEndpoint returns the endpoint of the one entry logged with msg.
func loggedEndpoint(t testing.TB, logs *observer.ObservedLogs, msg string) string {
	t.Helper()
	entries := logs.FilterMessage(msg).All()
	if len(entries) != 1 {
		t.Fatalf("%d %q entries", len(entries), msg)
	}
	return entries[0].ContextMap()["endpoint"].(string)
}

// startUpstream runs the collector's otlp receiver (http only, httpCfg),
// created from its factory for the three signals as the collector creates
// it, sending to next (nil: a recorder).
func startUpstream(t testing.TB, httpCfg map[string]any, next dataplane.Consumer) *side {
	t.Helper()
	s := newSide(next)
	s.url = "http://" + startUpstreamReceiver(t, otlpConfig(t, httpCfg), s.next, s.tel, "Starting HTTP server")
	return s
}

// startUpstreamReceiver runs the collector's otlp receiver of cfg for the
// three signals, sending to next, and returns the address its server
// logged with message (startingMsg).
func startUpstreamReceiver(t testing.TB, cfg *otlpreceiver.Config, next dataplane.Consumer, tel *componenttest.Telemetry, startingMsg string) string {
	t.Helper()
	set, logs := testSettings(tel)
	f := otlpreceiver.NewFactory()
	ctx := context.Background()
	tr, err := f.CreateTraces(ctx, set, cfg, next)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreateMetrics(ctx, set, cfg, next); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreateLogs(ctx, set, cfg, next); err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(ctx, componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tr.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return loggedEndpoint(t, logs, startingMsg)
}

// startFlowlua runs flowlua's server of the same config.
func startFlowlua(t testing.TB, httpCfg map[string]any, next dataplane.Consumer, decoding *httpDecoding) *side {
	t.Helper()
	s := newSide(next)
	set, logs := testSettings(s.tel)
	h, err := newOTLPHTTP(*otlpConfig(t, httpCfg).Protocols.HTTP.Get(), set, decoding)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range dataplane.AllSignals {
		h.setConsumer(sig, s.next)
	}
	if err := h.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	s.url = "http://" + listeningOn(t, logs)
	if s.url != "http://"+h.addr.String() {
		t.Fatalf("logged %s, listens on %s", s.url, h.addr)
	}
	return s
}

// exchange is one request of the comparison and what both sides must
// answer (the status code; the rest must only be the same).
type exchange struct {
	name        string
	method      string // POST when empty
	path        string
	header      map[string]string
	body        []byte
	consumerErr error
	wantStatus  int
	wantData    bool // the consumer receives the data
}

// response is what a side answered.
type response struct {
	status  int
	headers map[string]string
	body    []byte
}

// comparedHeaders are the response headers the comparison reads (Date
// and Content-Length follow from the rest).
var comparedHeaders = []string{"Content-Type", "Retry-After", "Allow", "X-Served-By", "Vary",
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"Access-Control-Allow-Credentials", "Access-Control-Max-Age", "Access-Control-Expose-Headers"}

func (s *side) do(t *testing.T, ex exchange) response {
	t.Helper()
	method := ex.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, s.url+ex.path, bytes.NewReader(ex.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range ex.header {
		req.Header.Set(k, v)
	}
	if ex.consumerErr != nil {
		s.rec.err.Store(&ex.consumerErr)
		defer s.rec.err.Store(nil)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", ex.name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the response: %v", ex.name, err)
	}
	r := response{status: resp.StatusCode, body: body, headers: map[string]string{}}
	for _, h := range comparedHeaders {
		if v := resp.Header.Values(h); len(v) > 0 {
			r.headers[h] = strings.Join(v, ", ")
		}
	}
	return r
}

// TestOTLPHTTPSameAsUpstream sends the same requests to the collector's
// otlp receiver (http only) and to flowlua's server of the same config,
// with flowlua's fast decoding on and off: status codes, compared headers
// and body bytes are the same, error bodies are google.rpc.Status in the
// request's encoding, the consumers receive the same data with the same
// client metadata, and the receivers record the same obsreport metrics.
func TestOTLPHTTPSameAsUpstream(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			up := startUpstream(t, httpTestConfig, nil)
			decoding := newHTTPDecoding(fast)
			fl := startFlowlua(t, httpTestConfig, nil, decoding)
			exchanges := equivalenceCases(t)
			for _, ex := range exchanges {
				want := up.do(t, ex)
				got := fl.do(t, ex)
				if want.status != ex.wantStatus {
					t.Errorf("%s: the collector answered %d, the case expects %d: %s", ex.name, want.status, ex.wantStatus, want.body)
				}
				if got.status != want.status {
					t.Errorf("%s: status %d, the collector's %d", ex.name, got.status, want.status)
				}
				for _, h := range comparedHeaders {
					if got.headers[h] != want.headers[h] {
						t.Errorf("%s: header %s %q, the collector's %q", ex.name, h, got.headers[h], want.headers[h])
					}
				}
				if !bytes.Equal(got.body, want.body) {
					t.Errorf("%s: body %q, the collector's %q", ex.name, got.body, want.body)
				}
				checkBody(t, ex, got)
				upData, flData := up.rec.take(), fl.rec.take()
				if !slices.Equal(flData, upData) {
					t.Errorf("%s: consumed %q, the collector's consumer %q", ex.name, flData, upData)
				}
				if ex.wantData != (len(flData) > 0) {
					t.Errorf("%s: consumed %d batches; want data %v", ex.name, len(flData), ex.wantData)
				}
			}
			compareReceiverMetrics(t, up.tel, fl.tel, "http")

			var fastN, pdataN, jsonFastN, jsonN uint64
			for _, sig := range []string{"traces", "metrics", "logs"} {
				fastN += decoding.proto.StatsOf(sig).Fast.Load()
				pdataN += decoding.proto.StatsOf(sig).Pdata.Load()
				jsonFastN += decoding.json.StatsOf(sig).Fast.Load()
				jsonN += decoding.json.StatsOf(sig).Pdata.Load()
			}
			if fast && (fastN == 0 || pdataN == 0 || jsonFastN == 0 || jsonN == 0) ||
				!fast && (fastN != 0 || pdataN == 0 || jsonFastN != 0 || jsonN == 0) {
				t.Errorf("decoded %d fast, %d pdata, %d JSON fast, %d JSON by pdata", fastN, pdataN, jsonFastN, jsonN)
			}
		})
	}
}

// checkBody checks that a response body is in the request's encoding: an
// ExportResponse on success, a google.rpc.Status on an OTLP error.
func checkBody(t *testing.T, ex exchange, r response) {
	t.Helper()
	ct := r.headers["Content-Type"]
	if ct == "text/plain" || r.status == http.StatusNotFound || r.status == http.StatusNoContent {
		return
	}
	if r.status == http.StatusOK {
		// An ExportResponse with an empty partial success; the three
		// signals' responses share that shape.
		resp := ptraceotlp.NewExportResponse()
		var err error
		switch ct {
		case pbContentType:
			err = resp.UnmarshalProto(r.body)
		case jsonContentType:
			err = resp.UnmarshalJSON(r.body)
		default:
			t.Errorf("%s: success with content type %q", ex.name, ct)
		}
		if err != nil || resp.PartialSuccess().RejectedSpans() != 0 || resp.PartialSuccess().ErrorMessage() != "" {
			t.Errorf("%s: success body %q is not an empty ExportResponse (%v)", ex.name, r.body, err)
		}
		return
	}
	var st spb.Status
	var err error
	switch ct {
	case pbContentType:
		err = proto.Unmarshal(r.body, &st)
	case jsonContentType:
		err = protojson.Unmarshal(r.body, &st)
	default:
		t.Errorf("%s: error with content type %q", ex.name, ct)
		return
	}
	if err != nil || st.GetMessage() == "" {
		t.Errorf("%s: error body %q is not a google.rpc.Status (%v)", ex.name, r.body, err)
	}
}

// compareReceiverMetrics compares the otelcol_receiver_* metrics of the
// two sides, data point by data point.
func compareReceiverMetrics(t *testing.T, up, fl *componenttest.Telemetry, transport string) {
	t.Helper()
	points := func(tel *componenttest.Telemetry, name string) map[string]int64 {
		m, err := tel.GetMetric(name)
		if err != nil {
			return nil
		}
		out := map[string]int64{}
		if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
			for _, dp := range sum.DataPoints {
				out[dp.Attributes.Encoded(nil)+fmt.Sprint(dp.Attributes.ToSlice())] = dp.Value
			}
		}
		return out
	}
	for _, what := range []string{"spans", "metric_points", "log_records"} {
		for _, outcome := range []string{"accepted", "refused", "failed"} {
			name := "otelcol_receiver_" + outcome + "_" + what
			want, got := points(up, name), points(fl, name)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %v, the collector's %v", name, got, want)
			}
		}
	}
	if accepted := points(fl, "otelcol_receiver_accepted_spans"); len(accepted) == 0 || !strings.Contains(fmt.Sprint(accepted), "transport") || !strings.Contains(fmt.Sprint(accepted), transport) {
		t.Errorf("otelcol_receiver_accepted_spans: %v, want points of transport %s", accepted, transport)
	}
}

// equivalenceCases are the requests of TestOTLPHTTPSameAsUpstream.
func equivalenceCases(t *testing.T) []exchange {
	traces, metrics, logs := readFixture(t, "trace.json"), readFixture(t, "metrics.json"), readFixture(t, "logs.json")
	tracesPB := mustMarshal(t)((&ptrace.ProtoMarshaler{}).MarshalTraces(fixtureTraces(t)))
	metricsPB := mustMarshal(t)((&pmetric.ProtoMarshaler{}).MarshalMetrics(fixtureMetrics(t)))
	logsPB := mustMarshal(t)((&plog.ProtoMarshaler{}).MarshalLogs(fixtureLogs(t)))
	big := mustMarshal(t)((&ptrace.ProtoMarshaler{}).MarshalTraces(spans(2000))) // over the 16 KiB limit
	pb := map[string]string{"Content-Type": pbContentType}
	js := map[string]string{"Content-Type": jsonContentType}
	with := func(h map[string]string, kv ...string) map[string]string {
		out := maps.Clone(h)
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	throttled := status.New(codes.ResourceExhausted, "slow down")
	throttled, _ = throttled.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(3 * time.Second)})
	unavailable := status.New(codes.Unavailable, "backend restarting")
	unavailable, _ = unavailable.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(7 * time.Second)})

	return []exchange{
		{name: "traces protobuf", path: "/v1/traces", header: pb, body: tracesPB, wantStatus: 200, wantData: true},
		{name: "traces JSON", path: "/v1/traces", header: js, body: traces, wantStatus: 200, wantData: true},
		{name: "metrics protobuf", path: "/v1/metrics", header: pb, body: metricsPB, wantStatus: 200, wantData: true},
		{name: "metrics JSON", path: "/v1/metrics", header: js, body: metrics, wantStatus: 200, wantData: true},
		{name: "logs protobuf", path: "/v1/logs", header: pb, body: logsPB, wantStatus: 200, wantData: true},
		{name: "logs JSON", path: "/v1/logs", header: js, body: logs, wantStatus: 200, wantData: true},
		{name: "JSON with charset", path: "/v1/traces", header: with(js, "Content-Type", "application/json; charset=utf-8"), body: traces, wantStatus: 200, wantData: true},
		{name: "include_metadata", path: "/v1/logs", header: with(pb, "X-Tenant", "acme"), body: logsPB, wantStatus: 200, wantData: true},
		{name: "gzip protobuf", path: "/v1/traces", header: with(pb, "Content-Encoding", "gzip"), body: gzipped(t, tracesPB), wantStatus: 200, wantData: true},
		{name: "zstd JSON", path: "/v1/metrics", header: with(js, "Content-Encoding", "zstd"), body: zstded(t, metrics), wantStatus: 200, wantData: true},
		{name: "empty protobuf", path: "/v1/traces", header: pb, wantStatus: 200},
		{name: "empty JSON object", path: "/v1/logs", header: js, body: []byte(`{}`), wantStatus: 200},
		{name: "repeated attribute key (left to pdata)", path: "/v1/traces", header: pb, body: duplicateKeyTraces(), wantStatus: 200, wantData: true},
		{name: "GET", method: http.MethodGet, path: "/v1/traces", wantStatus: 405},
		{name: "PUT protobuf", method: http.MethodPut, path: "/v1/metrics", header: pb, body: metricsPB, wantStatus: 405},
		{name: "text/plain", path: "/v1/traces", header: map[string]string{"Content-Type": "text/plain"}, body: traces, wantStatus: 415},
		{name: "no content type", path: "/v1/traces", body: tracesPB, wantStatus: 415},
		{name: "malformed protobuf", path: "/v1/traces", header: pb, body: []byte("this is not OTLP"), wantStatus: 400},
		{name: "truncated protobuf", path: "/v1/logs", header: pb, body: logsPB[:len(logsPB)/2], wantStatus: 400},
		{name: "malformed JSON", path: "/v1/metrics", header: js, body: []byte(`{"resourceMetrics": [`), wantStatus: 400},
		{name: "oversized", path: "/v1/traces", header: pb, body: big, wantStatus: 400},
		{name: "oversized once decompressed", path: "/v1/traces", header: with(pb, "Content-Encoding", "gzip"), body: gzipped(t, big), wantStatus: 400},
		{name: "bad gzip, protobuf", path: "/v1/traces", header: with(pb, "Content-Encoding", "gzip"), body: tracesPB, wantStatus: 400},
		{name: "bad gzip, JSON", path: "/v1/logs", header: with(js, "Content-Encoding", "gzip"), body: logs, wantStatus: 400},
		{name: "bad gzip, no content type", path: "/v1/logs", header: map[string]string{"Content-Encoding": "gzip"}, body: logs, wantStatus: 400},
		{name: "bad gzip, text/plain", path: "/v1/logs", header: map[string]string{"Content-Encoding": "gzip", "Content-Type": "text/plain"}, body: logs, wantStatus: 400},
		{name: "unsupported encoding", path: "/v1/traces", header: with(pb, "Content-Encoding", "compress"), body: tracesPB, wantStatus: 400},
		{name: "unknown path", path: "/v1/spans", header: pb, body: tracesPB, wantStatus: 404},
		{name: "profiles path (not hosted)", path: "/v1development/profiles", header: pb, body: tracesPB, wantStatus: 404},
		{name: "trailing slash", path: "/v1/traces/", header: pb, body: tracesPB, wantStatus: 404},
		{name: "permanent consumer error", path: "/v1/traces", header: pb, body: tracesPB, consumerErr: consumererror.NewPermanent(errors.New("no such tenant")), wantStatus: 500, wantData: true},
		{name: "permanent consumer error, JSON", path: "/v1/logs", header: js, body: logs, consumerErr: consumererror.NewPermanent(errors.New("no such tenant")), wantStatus: 500, wantData: true},
		{name: "retryable consumer error", path: "/v1/metrics", header: pb, body: metricsPB, consumerErr: errors.New("queue is full"), wantStatus: 503, wantData: true},
		{name: "throttled with RetryInfo", path: "/v1/traces", header: js, body: traces, consumerErr: throttled.Err(), wantStatus: 429, wantData: true},
		{name: "unavailable with RetryInfo", path: "/v1/logs", header: pb, body: logsPB, consumerErr: unavailable.Err(), wantStatus: 503, wantData: true},
		{name: "status InvalidArgument", path: "/v1/traces", header: pb, body: tracesPB, consumerErr: status.Error(codes.InvalidArgument, "bad span"), wantStatus: 400, wantData: true},
		{name: "CORS preflight", method: http.MethodOptions, path: "/v1/traces", header: map[string]string{"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}, wantStatus: 204},
		{name: "CORS preflight, other origin", method: http.MethodOptions, path: "/v1/traces", header: map[string]string{"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"}, wantStatus: 204},
		{name: "CORS POST", path: "/v1/traces", header: with(pb, "Origin", "https://app.example.com"), body: tracesPB, wantStatus: 200, wantData: true},
	}
}

func mustMarshal(t *testing.T) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zstded(t *testing.T, b []byte) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

// duplicateKeyTraces is a traces request whose resource repeats an
// attribute key: valid OTLP that the fast path leaves to pdata.
func duplicateKeyTraces() []byte {
	msg := func(num protowire.Number, parts ...[]byte) []byte {
		b := protowire.AppendTag(nil, num, protowire.BytesType)
		return protowire.AppendBytes(b, bytes.Join(parts, nil))
	}
	str := func(num protowire.Number, s string) []byte { return msg(num, []byte(s)) }
	kv := func(k, v string) []byte { return msg(1, str(1, k), msg(2, str(1, v))) }
	resource := msg(1, kv("k", "a"), kv("k", "b"))
	span := msg(2, str(5, "s")) // ScopeSpans.spans[0].name
	return msg(1, resource, msg(2, span))
}

// postClient opens a connection per request: a kept-alive one can be
// closed by a replaced server just as it is reused (the client then sees
// EOF, as it would from the collector's server when it restarts).
var postClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// postOTLP posts a protobuf body and returns the status code.
func postOTLP(t *testing.T, url string, body []byte) int {
	t.Helper()
	resp, err := postClient.Post(url, pbContentType, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// useOTLPDecoding makes the next otlp receivers decode with d, until the
// test ends.
func useOTLPDecoding(t *testing.T, d *otlpDecoding) {
	prev := otlpDecodingNow.Swap(d)
	t.Cleanup(func() { otlpDecodingNow.Store(prev) })
}

// TestOTLPReceiverServesHTTP runs otelcol.receiver.otlp with both
// protocols: flowlua's servers answer OTLP/HTTP and OTLP/gRPC (their
// decoders count the requests, the receiver's metrics say the transport),
// and updates rebind the same port without a
// conflict: a new URL path, a new signal, gRPC dropped, then HTTP dropped.
func TestOTLPReceiverServesHTTP(t *testing.T) {
	decoding := newOTLPDecoding(true)
	useOTLPDecoding(t, decoding)
	s := newSink()
	grpcAddr, httpAddr := freePort(t), freePort(t)
	args := func(protocols map[string]any, output map[string]any) map[string]any {
		return map[string]any{"protocols": protocols, "output": output}
	}
	both := map[string]any{
		"grpc": map[string]any{"endpoint": grpcAddr},
		"http": map[string]any{"endpoint": httpAddr},
	}
	recv := start(t, "otelcol.receiver.otlp", "http", args(both, map[string]any{"traces": []any{s}}))
	recv.waitHealthy()
	waitListening(t, httpAddr)
	base := "http://" + httpAddr
	td := spans(5)
	body := mustMarshal(t)((&ptrace.ProtoMarshaler{}).MarshalTraces(td))

	if got := postOTLP(t, base+"/v1/traces", body); got != http.StatusOK {
		t.Fatalf("POST /v1/traces: %d", got)
	}
	sendSpans(t, grpcAddr, 2)
	eventually(t, func() bool { return s.traces.SpanCount() == 7 }, "7 spans (have %d)", s.traces.SpanCount())
	if n := decoding.http.proto.StatsOf("traces").Fast.Load(); n != 1 {
		t.Errorf("flowlua's decoder decoded %d HTTP requests, want 1", n)
	}
	if n := decoding.grpc.StatsOf("traces").Fast.Load(); n == 0 {
		t.Errorf("flowlua's decoder decoded no gRPC request")
	}
	if got := postOTLP(t, base+"/v1/logs", body); got != http.StatusNotFound {
		t.Errorf("POST /v1/logs without a logs output: %d, want 404 as the collector", got)
	}
	if got := counterValue(t, recv, "otelcol_receiver_accepted_spans_total"); got != 7 {
		t.Errorf("otelcol_receiver_accepted_spans_total = %v, want 7", got)
	}
	if n := transports(t, recv, "otelcol_receiver_accepted_spans_total"); n["http"] != 5 || n["grpc"] != 2 {
		t.Errorf("otelcol_receiver_accepted_spans_total by transport: %v, want http 5, grpc 2", n)
	}

	// A new URL path and a new signal: the instance is replaced on the
	// same ports.
	both["http"] = map[string]any{"endpoint": httpAddr, "traces_url_path": "/custom/traces"}
	if err := recv.update("otelcol.receiver.otlp", args(both, map[string]any{"traces": []any{s}, "logs": []any{s}})); err != nil {
		t.Fatalf("update: %v", err)
	}
	recv.waitHealthy()
	waitListening(t, httpAddr)
	if got := postOTLP(t, base+"/custom/traces", body); got != http.StatusOK {
		t.Errorf("POST /custom/traces after the update: %d", got)
	}
	if got := postOTLP(t, base+"/v1/traces", body); got != http.StatusNotFound {
		t.Errorf("POST /v1/traces after the path moved: %d, want 404", got)
	}
	logsBody := mustMarshal(t)((&plog.ProtoMarshaler{}).MarshalLogs(fixtureLogs(t)))
	if got := postOTLP(t, base+"/v1/logs", logsBody); got != http.StatusOK {
		t.Errorf("POST /v1/logs with a logs output: %d", got)
	}
	eventually(t, func() bool { return s.traces.SpanCount() == 12 && s.logs.LogRecordCount() > 0 }, "12 spans and the logs")

	// HTTP only: the gRPC server is gone.
	httpOnly := map[string]any{"http": map[string]any{"endpoint": httpAddr}}
	if err := recv.update("otelcol.receiver.otlp", args(httpOnly, map[string]any{"traces": []any{s}})); err != nil {
		t.Fatalf("update to http only: %v", err)
	}
	recv.waitHealthy()
	if got := postOTLP(t, base+"/v1/traces", body); got != http.StatusOK {
		t.Errorf("POST /v1/traces, http only: %d", got)
	}
	eventually(t, func() bool { return s.traces.SpanCount() == 17 }, "17 spans")
	if c, err := net.Dial("tcp", grpcAddr); err == nil {
		_ = c.Close()
		t.Error("the gRPC port still listens")
	}

	// gRPC only: nothing serves HTTP any more.
	grpcOnly := map[string]any{"grpc": map[string]any{"endpoint": grpcAddr}}
	if err := recv.update("otelcol.receiver.otlp", args(grpcOnly, map[string]any{"traces": []any{s}})); err != nil {
		t.Fatalf("update to grpc only: %v", err)
	}
	recv.waitHealthy()
	waitListening(t, grpcAddr)
	if c, err := net.Dial("tcp", httpAddr); err == nil {
		_ = c.Close()
		t.Error("the HTTP port still listens")
	}
	if h := recv.health(); h.Health != flowcomp.HealthHealthy {
		t.Errorf("health after the updates: %+v", h)
	}
	if strings.Contains(recv.logs.String(), "address already in use") {
		t.Errorf("an update met a bound port:\n%s", recv.logs.String())
	}
}

// TestOTLPHTTPPortTaken: when the HTTP port is taken the instance fails
// to start as the collector's would (the gRPC server it started is shut
// down again), and the component says why.
func TestOTLPHTTPPortTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	grpcAddr := freePort(t)
	recv := start(t, "otelcol.receiver.otlp", "taken", map[string]any{
		"protocols": map[string]any{
			"grpc": map[string]any{"endpoint": grpcAddr},
			"http": map[string]any{"endpoint": taken.Addr().String()},
		},
		"output": map[string]any{"traces": []any{newSink()}},
	})
	eventually(t, func() bool { return recv.health().Health == flowcomp.HealthUnhealthy }, "unhealthy")
	if h := recv.health(); !strings.Contains(h.Message, "address already in use") {
		t.Errorf("health message %q does not say why", h.Message)
	}
	if c, err := net.Dial("tcp", grpcAddr); err == nil {
		_ = c.Close()
		t.Error("the gRPC server of the failed instance still listens")
	}
}

// TestOTLPHTTPSamePathTwice: two signals on one URL path fail to start
// with an error naming both keys (the collector's mux would panic).
func TestOTLPHTTPSamePathTwice(t *testing.T) {
	recv := start(t, "otelcol.receiver.otlp", "twice", map[string]any{
		"protocols": map[string]any{"http": map[string]any{"endpoint": freePort(t), "logs_url_path": "/v1/traces"}},
		"output":    map[string]any{"traces": []any{newSink()}, "logs": []any{newSink()}},
	})
	eventually(t, func() bool { return recv.health().Health == flowcomp.HealthUnhealthy }, "unhealthy")
	if h := recv.health(); !strings.Contains(h.Message, `traces_url_path and logs_url_path are both "/v1/traces"`) {
		t.Errorf("health message %q", h.Message)
	}
}

// transports sums a counter of r's registry by its transport label.
func transports(t *testing.T, r *running, name string) map[string]float64 {
	t.Helper()
	families, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() == name {
			for _, m := range f.GetMetric() {
				out[label(m, "transport")] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}
