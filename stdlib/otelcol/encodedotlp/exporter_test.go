package encodedotlp

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/pdata/testdata"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// traceSink is an OTLP/gRPC trace server: pdata's own, as a backend runs
// it. It fails the first failures calls with code, then takes requests.
type traceSink struct {
	ptraceotlp.UnimplementedGRPCServer
	mu          sync.Mutex
	received    []ptrace.Traces
	calls       int
	failures    int
	code        codes.Code
	contentType []string
}

func (s *traceSink) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	md, _ := metadata.FromIncomingContext(ctx)
	s.contentType = md.Get("content-type")
	if s.calls <= s.failures {
		return ptraceotlp.NewExportResponse(), status.Error(s.code, "not now")
	}
	td := ptrace.NewTraces()
	req.Traces().CopyTo(td)
	s.received = append(s.received, td)
	return ptraceotlp.NewExportResponse(), nil
}

func (s *traceSink) spans() (n, requests int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, td := range s.received {
		n += td.SpanCount()
	}
	return n, len(s.received)
}

func startSink(t *testing.T, s *traceSink) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, s)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

func newTracesExporter(t *testing.T, endpoint string, edit func(*otlpexporter.Config)) exporter.Traces {
	t.Helper()
	upstream := otlpexporter.NewFactory()
	f := NewFactory(upstream)
	cfg := f.CreateDefaultConfig().(*otlpexporter.Config)
	cfg.ClientConfig.Endpoint = endpoint
	cfg.ClientConfig.TLS.Insecure = true
	cfg.RetryConfig.InitialInterval = 10 * time.Millisecond
	if edit != nil {
		edit(cfg)
	}
	set := exporter.Settings{
		ID:                component.NewID(f.Type()),
		TelemetrySettings: componenttest.NewNopTelemetrySettings(),
		BuildInfo:         component.NewDefaultBuildInfo(),
	}
	exp, err := f.CreateTraces(context.Background(), set, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	return exp
}

// TestExporterBatchesEncoded: with sending_queue batching, many small
// requests reach a real OTLP/gRPC server merged into few, every span
// once, as plain application/grpc; shutdown sends what is queued.
func TestExporterBatchesEncoded(t *testing.T) {
	sink := &traceSink{}
	exp := newTracesExporter(t, startSink(t, sink), func(c *otlpexporter.Config) {
		q := c.QueueConfig.Get()
		b := exporterhelper.NewDefaultBatchConfig()
		b.Sizer = exporterhelper.RequestSizerTypeItems
		b.MinSize = 50
		b.MaxSize = 60
		b.FlushTimeout = time.Hour // only size and shutdown flush
		q.Batch = configoptional.Some(b)
	})
	for range 40 {
		if err := exp.ConsumeTraces(context.Background(), testdata.GenerateTraces(5)); err != nil {
			t.Fatal(err)
		}
	}
	if err := exp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	n, requests := sink.spans()
	if n != 200 {
		t.Fatalf("the server received %d spans, want 200", n)
	}
	if requests > 5 {
		t.Errorf("200 spans in batches of at least 50 came in %d requests", requests)
	}
	for _, td := range sink.received {
		if td.SpanCount() > 60 {
			t.Errorf("a request of %d spans, above max_size 60", td.SpanCount())
		}
	}
	if len(sink.contentType) != 1 || sink.contentType[0] != "application/grpc" {
		t.Errorf("content-type %q, want application/grpc", sink.contentType)
	}
}

// TestExporterRetriesAndRefuses: a retryable code is retried until the
// server takes the request; a permanent one fails the request at once.
func TestExporterRetriesAndRefuses(t *testing.T) {
	sink := &traceSink{failures: 2, code: codes.Unavailable}
	exp := newTracesExporter(t, startSink(t, sink), func(c *otlpexporter.Config) {
		c.QueueConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	})
	if err := exp.ConsumeTraces(context.Background(), testdata.GenerateTraces(3)); err != nil {
		t.Fatalf("after two UNAVAILABLE answers: %v", err)
	}
	if n, _ := sink.spans(); n != 3 || sink.calls != 3 {
		t.Errorf("%d spans in %d calls, want 3 in 3", n, sink.calls)
	}
	_ = exp.Shutdown(context.Background())

	bad := &traceSink{failures: 100, code: codes.InvalidArgument}
	exp = newTracesExporter(t, startSink(t, bad), func(c *otlpexporter.Config) {
		c.QueueConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	})
	defer func() { _ = exp.Shutdown(context.Background()) }()
	err := exp.ConsumeTraces(context.Background(), testdata.GenerateTraces(1))
	if err == nil || bad.calls != 1 {
		t.Errorf("INVALID_ARGUMENT: error %v after %d calls; want an error after 1", err, bad.calls)
	}
}

// TestExporterSendsWhatUpstreamSends: the bytes a server receives from
// the encoded exporter decode to the request pdata's own exporter would
// have sent.
func TestExporterSendsWhatUpstreamSends(t *testing.T) {
	sink := &traceSink{}
	exp := newTracesExporter(t, startSink(t, sink), func(c *otlpexporter.Config) {
		c.QueueConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	})
	defer func() { _ = exp.Shutdown(context.Background()) }()
	td := testdata.GenerateTraces(7)
	want, _ := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err := exp.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	got, _ := ptraceotlp.NewExportRequestFromTraces(sink.received[0]).MarshalProto()
	if string(got) != string(want) {
		t.Error("the server received other data than was exported")
	}
}
