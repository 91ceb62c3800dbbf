package otelcol

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// receiverToSink runs otlp receiver → batch → sink and returns the
// receiver's gRPC and HTTP addresses.
func receiverToSink(t *testing.T, label string) (grpcAddr, httpAddr string, s *sink, batch *running) {
	t.Helper()
	s = newSink()
	batch = start(t, "otelcol.processor.batch", label, map[string]any{
		"timeout": "10ms",
		"output":  allSignals(s),
	})
	batch.waitHealthy()
	grpcAddr, httpAddr = freePort(t), freePort(t)
	recv := start(t, "otelcol.receiver.otlp", label, map[string]any{
		"protocols": map[string]any{
			"grpc": map[string]any{"endpoint": grpcAddr},
			"http": map[string]any{"endpoint": httpAddr},
		},
		"output": allSignals(batch.input()),
	})
	recv.waitHealthy()
	waitListening(t, grpcAddr)
	waitListening(t, httpAddr)
	return grpcAddr, httpAddr, s, batch
}

func grpcConn(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestReceiverBatchSinkGRPC drives otlp receiver → batch → sink with
// pdata's OTLP/gRPC clients: the sink gets exactly what was sent.
func TestReceiverBatchSinkGRPC(t *testing.T) {
	grpcAddr, _, s, _ := receiverToSink(t, "grpc")
	conn := grpcConn(t, grpcAddr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	td := fixtureTraces(t)
	if _, err := ptraceotlp.NewGRPCClient(conn).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return s.traces.SpanCount() == td.SpanCount() }, "%d spans", td.SpanCount())
	if got, want := tracesJSON(t, s.traces.AllTraces()[0]), tracesJSON(t, td); got != want {
		t.Errorf("traces differ:\n got %s\nwant %s", got, want)
	}

	md := fixtureMetrics(t)
	if _, err := pmetricotlp.NewGRPCClient(conn).Export(ctx, pmetricotlp.NewExportRequestFromMetrics(md)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return s.metrics.DataPointCount() == md.DataPointCount() }, "%d points", md.DataPointCount())
	if got, want := metricsJSON(t, s.metrics.AllMetrics()[0]), metricsJSON(t, md); got != want {
		t.Errorf("metrics differ:\n got %s\nwant %s", got, want)
	}

	ld := fixtureLogs(t)
	if _, err := plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(ld)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return s.logs.LogRecordCount() == ld.LogRecordCount() }, "%d records", ld.LogRecordCount())
	if got, want := logsJSON(t, s.logs.AllLogs()[0]), logsJSON(t, ld); got != want {
		t.Errorf("logs differ:\n got %s\nwant %s", got, want)
	}
}

// TestReceiverBatchSinkHTTP posts the upstream OTLP/JSON examples as JSON
// and as protobuf: the sink gets exactly their content, every time.
func TestReceiverBatchSinkHTTP(t *testing.T) {
	_, httpAddr, s, _ := receiverToSink(t, "http")
	td, md, ld := fixtureTraces(t), fixtureMetrics(t), fixtureLogs(t)
	tdProto, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	mdProto, _ := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	ldProto, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)

	post := func(path, contentType string, body []byte) {
		t.Helper()
		resp, err := http.Post("http://"+httpAddr+path, contentType, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s (%s): %s", path, contentType, resp.Status)
		}
	}
	for i, ct := range []string{"application/json", "application/x-protobuf"} {
		n := i + 1
		tracesBody, metricsBody, logsBody := readFixture(t, "trace.json"), readFixture(t, "metrics.json"), readFixture(t, "logs.json")
		if ct != "application/json" {
			tracesBody, metricsBody, logsBody = tdProto, mdProto, ldProto
		}

		post("/v1/traces", ct, tracesBody)
		eventually(t, func() bool { return len(s.traces.AllTraces()) == n }, "traces batch %d", n)
		if got, want := tracesJSON(t, s.traces.AllTraces()[n-1]), tracesJSON(t, td); got != want {
			t.Errorf("%s: traces differ:\n got %s\nwant %s", ct, got, want)
		}

		post("/v1/metrics", ct, metricsBody)
		eventually(t, func() bool { return len(s.metrics.AllMetrics()) == n }, "metrics batch %d", n)
		if got, want := metricsJSON(t, s.metrics.AllMetrics()[n-1]), metricsJSON(t, md); got != want {
			t.Errorf("%s: metrics differ:\n got %s\nwant %s", ct, got, want)
		}

		post("/v1/logs", ct, logsBody)
		eventually(t, func() bool { return len(s.logs.AllLogs()) == n }, "logs batch %d", n)
		if got, want := logsJSON(t, s.logs.AllLogs()[n-1]), logsJSON(t, ld); got != want {
			t.Errorf("%s: logs differ:\n got %s\nwant %s", ct, got, want)
		}
	}
	if got, want := s.traces.SpanCount(), 2*td.SpanCount(); got != want {
		t.Errorf("sink has %d spans, want %d", got, want)
	}

	// Garbage is refused with 400 and the receiver keeps serving.
	for _, ct := range []string{"application/json", "application/x-protobuf"} {
		resp, err := http.Post("http://"+httpAddr+"/v1/traces", ct, strings.NewReader("\x00garbage{"))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("garbage %s: %s, want 400", ct, resp.Status)
		}
	}
	post("/v1/traces", "application/json", readFixture(t, "trace.json"))
	eventually(t, func() bool { return len(s.traces.AllTraces()) == 3 }, "traces after garbage")
}
