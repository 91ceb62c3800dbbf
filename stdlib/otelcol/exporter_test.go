package otelcol

import (
	"context"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// otlpServer is a real OTLP/gRPC server recording what it receives.
type otlpServer struct {
	addr    string
	traces  traceRecorder
	metrics metricRecorder
	logs    logRecorder
}

type traceRecorder struct {
	ptraceotlp.UnimplementedGRPCServer
	mu      sync.Mutex
	got     []ptrace.Traces
	headers []metadata.MD // of each request
}

func (r *traceRecorder) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	td := ptrace.NewTraces()
	req.Traces().CopyTo(td)
	r.got = append(r.got, td)
	md, _ := metadata.FromIncomingContext(ctx)
	r.headers = append(r.headers, md)
	return ptraceotlp.NewExportResponse(), nil
}

func (r *traceRecorder) allHeaders() []metadata.MD {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]metadata.MD(nil), r.headers...)
}

func (r *traceRecorder) all() []ptrace.Traces {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ptrace.Traces(nil), r.got...)
}

func (r *traceRecorder) spans() int {
	n := 0
	for _, td := range r.all() {
		n += td.SpanCount()
	}
	return n
}

type metricRecorder struct {
	pmetricotlp.UnimplementedGRPCServer
	mu  sync.Mutex
	got []pmetric.Metrics
}

func (r *metricRecorder) Export(_ context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	md := pmetric.NewMetrics()
	req.Metrics().CopyTo(md)
	r.got = append(r.got, md)
	return pmetricotlp.NewExportResponse(), nil
}

func (r *metricRecorder) all() []pmetric.Metrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]pmetric.Metrics(nil), r.got...)
}

type logRecorder struct {
	plogotlp.UnimplementedGRPCServer
	mu  sync.Mutex
	got []plog.Logs
}

func (r *logRecorder) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ld := plog.NewLogs()
	req.Logs().CopyTo(ld)
	r.got = append(r.got, ld)
	return plogotlp.NewExportResponse(), nil
}

func (r *logRecorder) all() []plog.Logs {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]plog.Logs(nil), r.got...)
}

// startOTLPServer starts an OTLP/gRPC server on a free port; it listens
// before any exporter dials it.
func startOTLPServer(t *testing.T) *otlpServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &otlpServer{addr: l.Addr().String()}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, &s.traces)
	pmetricotlp.RegisterGRPCServer(srv, &s.metrics)
	plogotlp.RegisterGRPCServer(srv, &s.logs)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return s
}

// TestReceiverToOTLPExporter runs otlp receiver → otlp exporter → a real
// OTLP/gRPC server: the server gets exactly what the client sent.
func TestReceiverToOTLPExporter(t *testing.T) {
	server := startOTLPServer(t)
	exp := start(t, "otelcol.exporter.otlp", "fwd", map[string]any{
		"endpoint": server.addr,
		"tls":      map[string]any{"insecure": true},
		"sending_queue": map[string]any{
			"batch": map[string]any{"flush_timeout": "10ms"},
		},
	})
	exp.waitHealthy()
	grpcAddr := freePort(t)
	recv := start(t, "otelcol.receiver.otlp", "fwd", map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": grpcAddr}},
		"output":    allSignals(exp.input()),
	})
	recv.waitHealthy()
	waitListening(t, grpcAddr)

	conn := grpcConn(t, grpcAddr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	td, md, ld := fixtureTraces(t), fixtureMetrics(t), fixtureLogs(t)
	if _, err := ptraceotlp.NewGRPCClient(conn).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td)); err != nil {
		t.Fatal(err)
	}
	if _, err := pmetricotlp.NewGRPCClient(conn).Export(ctx, pmetricotlp.NewExportRequestFromMetrics(md)); err != nil {
		t.Fatal(err)
	}
	if _, err := plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(ld)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return len(server.traces.all()) == 1 }, "traces at the server")
	eventually(t, func() bool { return len(server.metrics.all()) == 1 }, "metrics at the server")
	eventually(t, func() bool { return len(server.logs.all()) == 1 }, "logs at the server")
	if got, want := tracesJSON(t, server.traces.all()[0]), tracesJSON(t, td); got != want {
		t.Errorf("traces differ:\n got %s\nwant %s", got, want)
	}
	// The exporter runs as type otlp_grpc, not the deprecated alias otlp.
	if strings.Contains(strings.ToLower(exp.logs.String()), "deprecated") {
		t.Errorf("the exporter logged a deprecation:\n%s", exp.logs.String())
	}
	if got, want := metricsJSON(t, server.metrics.all()[0]), metricsJSON(t, md); got != want {
		t.Errorf("metrics differ:\n got %s\nwant %s", got, want)
	}
	if got, want := logsJSON(t, server.logs.all()[0]), logsJSON(t, ld); got != want {
		t.Errorf("logs differ:\n got %s\nwant %s", got, want)
	}
}

// TestPersistentQueueOnFileStorage wires sending_queue.storage to the id
// exported by otelcol.extension.file_storage: the exporter waits for the
// extension it references, finds it through its host (which serves that
// extension alone), keeps its queue in the extension's data directory,
// and delivers.
func TestPersistentQueueOnFileStorage(t *testing.T) {
	server := startOTLPServer(t)
	ext := build(t, "otelcol.extension.file_storage", "queue", map[string]any{})
	id := ext.exports.(ExtensionExports).ID
	if id.String() != "file_storage/queue" {
		t.Fatalf("extension id = %q, want file_storage/queue", id)
	}
	exp := build(t, "otelcol.exporter.otlp", "persistent", map[string]any{
		"endpoint":      server.addr,
		"tls":           map[string]any{"insecure": true},
		"sending_queue": map[string]any{"storage": id},
	})
	// The exporter runs first: it waits for the extension it references.
	exp.run()
	time.Sleep(20 * time.Millisecond)
	if h := exp.health(); h.Message != "not started" {
		t.Errorf("exporter started before its storage extension: %+v", h)
	}
	ext.run()
	ext.waitHealthy()
	exp.waitHealthy()

	td := fixtureTraces(t)
	if err := exp.input().ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return server.traces.spans() == td.SpanCount() }, "spans at the server")

	// A new config replaces the exporter while its queue file is open:
	// the new instance cannot open it beside the old one, so the old one
	// stops first while incoming data waits; nothing is lost.
	var sent atomic.Int64
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			if err := exp.input().ConsumeTraces(context.Background(), spans(5)); err != nil {
				t.Errorf("send during update: %v", err)
				return
			}
			sent.Add(5)
			time.Sleep(time.Millisecond)
		}
	}()
	time.Sleep(20 * time.Millisecond)
	if err := exp.update("otelcol.exporter.otlp", map[string]any{
		"endpoint":      server.addr,
		"tls":           map[string]any{"insecure": true},
		"timeout":       "3s",
		"sending_queue": map[string]any{"storage": id},
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	stop.Store(true)
	<-done
	want := td.SpanCount() + int(sent.Load())
	eventually(t, func() bool { return server.traces.spans() == want }, "%d spans at the server (got %d)", want, server.traces.spans())
	exp.waitHealthy()
	if !strings.Contains(exp.logs.String(), "could not start beside the old one") {
		t.Error("the update did not take the stop-first path")
	}

	dir := ext.comp.(*adapter).opts.DataPath
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Errorf("no queue file in the extension's data directory %s (%v)", dir, err)
	}
}
