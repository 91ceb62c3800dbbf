package otelcol

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
)

// encodedSent returns how many requests r's encoded senders (one per
// signal of an otlp exporter) had the server take.
func encodedSent(r *running) uint64 {
	a := r.comp.(*adapter)
	a.mu.Lock()
	defer a.mu.Unlock()
	var n uint64
	if a.cur != nil {
		for _, c := range a.cur.comps {
			if s, ok := c.(*otlpEncodedSender); ok {
				n += s.sent.Load()
			}
		}
	}
	return n
}

// sendFixtures exports the fixture traces, metrics and logs once each.
func sendFixtures(t *testing.T, conn *grpc.ClientConn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := ptraceotlp.NewGRPCClient(conn).Export(ctx, ptraceotlp.NewExportRequestFromTraces(fixtureTraces(t))); err != nil {
		t.Fatal(err)
	}
	if _, err := pmetricotlp.NewGRPCClient(conn).Export(ctx, pmetricotlp.NewExportRequestFromMetrics(fixtureMetrics(t))); err != nil {
		t.Fatal(err)
	}
	if _, err := plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(fixtureLogs(t))); err != nil {
		t.Fatal(err)
	}
}

// checkServerGotFixtures waits for the server to hold n copies of each
// fixture and checks every copy is exactly the fixture.
func checkServerGotFixtures(t *testing.T, server *otlpServer, n int) {
	t.Helper()
	eventually(t, func() bool { return len(server.traces.all()) == n }, "%d traces requests at the server", n)
	eventually(t, func() bool { return len(server.metrics.all()) == n }, "%d metrics requests at the server", n)
	eventually(t, func() bool { return len(server.logs.all()) == n }, "%d logs requests at the server", n)
	for _, td := range server.traces.all() {
		if got, want := tracesJSON(t, td), tracesJSON(t, fixtureTraces(t)); got != want {
			t.Errorf("traces differ:\n got %s\nwant %s", got, want)
		}
	}
	for _, md := range server.metrics.all() {
		if got, want := metricsJSON(t, md), metricsJSON(t, fixtureMetrics(t)); got != want {
			t.Errorf("metrics differ:\n got %s\nwant %s", got, want)
		}
	}
	for _, ld := range server.logs.all() {
		if got, want := logsJSON(t, ld), logsJSON(t, fixtureLogs(t)); got != want {
			t.Errorf("logs differ:\n got %s\nwant %s", got, want)
		}
	}
}

// receiverBatch starts an otlp receiver whose every signal goes to a batch
// processor sending to output; it returns the receiver's gRPC address.
func receiverBatch(t *testing.T, label string, output map[string]any) (string, *running) {
	t.Helper()
	batch := start(t, "otelcol.processor.batch", label, map[string]any{"timeout": "10ms", "output": output})
	batch.waitHealthy()
	addr := freePort(t)
	recv := start(t, "otelcol.receiver.otlp", label, map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": addr}},
		"output":    allSignals(batch.input()),
	})
	recv.waitHealthy()
	waitListening(t, addr)
	return addr, batch
}

func startOTLPExporter(t *testing.T, label, endpoint string) *running {
	t.Helper()
	exp := start(t, "otelcol.exporter.otlp", label, map[string]any{
		"endpoint": endpoint,
		"tls":      map[string]any{"insecure": true},
	})
	exp.waitHealthy()
	return exp
}

// TestBatchesWaitEncoded runs otlp receiver → batch → otlp exporter → a
// real OTLP/gRPC server: the batches are sent as the batch processor
// encoded them, and the server gets exactly what the client sent.
func TestBatchesWaitEncoded(t *testing.T) {
	server := startOTLPServer(t)
	exp := startOTLPExporter(t, "encoded", server.addr)
	addr, _ := receiverBatch(t, "encoded", allSignals(exp.input()))
	sendFixtures(t, grpcConn(t, addr))
	checkServerGotFixtures(t, server, 1)
	// The count follows the server's answer, which follows its recording.
	eventually(t, func() bool { return encodedSent(exp) == 3 }, "the 3 requests counted as sent encoded (%d)", encodedSent(exp))
}

// TestBatchesFannedOutAreNotEncoded: a batch processor with two consumers
// keeps pdata; both get everything.
func TestBatchesFannedOutAreNotEncoded(t *testing.T) {
	server := startOTLPServer(t)
	exp := startOTLPExporter(t, "fanned", server.addr)
	s := newSink()
	addr, _ := receiverBatch(t, "fanned", allSignals(exp.input(), s))
	sendFixtures(t, grpcConn(t, addr))
	checkServerGotFixtures(t, server, 1)
	eventually(t, func() bool { return s.logs.LogRecordCount() == fixtureLogs(t).LogRecordCount() }, "logs at the sink")
	if got := encodedSent(exp); got != 0 {
		t.Errorf("the exporter sent %d requests encoded, want none: the batches were pdata", got)
	}
}

// TestEncodedBatchesFollowTheOutput: the batch processor's output moves
// from the exporter to a sink and back; every batch arrives, encoded only
// while the exporter is the one consumer.
func TestEncodedBatchesFollowTheOutput(t *testing.T) {
	server := startOTLPServer(t)
	exp := startOTLPExporter(t, "moved", server.addr)
	addr, batch := receiverBatch(t, "moved", allSignals(exp.input()))
	conn := grpcConn(t, addr)
	sendFixtures(t, conn)
	checkServerGotFixtures(t, server, 1)

	s := newSink()
	if err := batch.update("otelcol.processor.batch", map[string]any{"timeout": "10ms", "output": allSignals(s)}); err != nil {
		t.Fatal(err)
	}
	sendFixtures(t, conn)
	eventually(t, func() bool { return s.logs.LogRecordCount() == fixtureLogs(t).LogRecordCount() }, "logs at the sink")
	eventually(t, func() bool { return len(s.metrics.AllMetrics()) == 1 }, "metrics at the sink")
	if got, want := metricsJSON(t, s.metrics.AllMetrics()[0]), metricsJSON(t, fixtureMetrics(t)); got != want {
		t.Errorf("metrics at the sink differ:\n got %s\nwant %s", got, want)
	}

	if err := batch.update("otelcol.processor.batch", map[string]any{"timeout": "10ms", "output": allSignals(exp.input())}); err != nil {
		t.Fatal(err)
	}
	sendFixtures(t, conn)
	checkServerGotFixtures(t, server, 2)
	eventually(t, func() bool { return encodedSent(exp) == 6 }, "6 requests counted as sent encoded (%d)", encodedSent(exp))
}

// TestEncodedBatchesAsTheExporterSendsPdata: the encoded sender's requests
// carry what the upstream exporter's do (its configgrpc connection): the
// configured headers, the user agent, the same content type. (The default
// gzip compression is on both: the server decompressed them all.)
func TestEncodedBatchesAsTheExporterSendsPdata(t *testing.T) {
	server := startOTLPServer(t)
	exp := start(t, "otelcol.exporter.otlp", "headers", map[string]any{
		"endpoint": server.addr,
		"tls":      map[string]any{"insecure": true},
		"headers":  map[string]any{"x-tenant": "acme"},
	})
	exp.waitHealthy()
	// The same exporter fed directly (pdata) and through a batch processor
	// (encoded): the server sees the same request headers.
	recvAddr := freePort(t)
	direct := start(t, "otelcol.receiver.otlp", "direct", map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": recvAddr}},
		"output":    allSignals(exp.input()),
	})
	direct.waitHealthy()
	waitListening(t, recvAddr)
	batchedAddr, _ := receiverBatch(t, "headers", allSignals(exp.input()))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, addr := range []string{recvAddr, batchedAddr} {
		if _, err := ptraceotlp.NewGRPCClient(grpcConn(t, addr)).Export(ctx, ptraceotlp.NewExportRequestFromTraces(fixtureTraces(t))); err != nil {
			t.Fatal(err)
		}
		eventually(t, func() bool { return len(server.traces.all()) == i+1 }, "%d traces requests at the server", i+1)
	}
	eventually(t, func() bool { return encodedSent(exp) == 1 }, "the batched request counted as sent encoded (%d)", encodedSent(exp))
	hs := server.traces.allHeaders()
	for _, k := range []string{"x-tenant", "user-agent", "content-type"} {
		pdata, encoded := hs[0].Get(k), hs[1].Get(k)
		if len(pdata) == 0 || strings.Join(pdata, ",") != strings.Join(encoded, ",") {
			t.Errorf("header %s: %q sent as pdata, %q sent encoded; want the same, set", k, pdata, encoded)
		}
	}
	if got := hs[1].Get("x-tenant"); len(got) != 1 || got[0] != "acme" {
		t.Errorf("x-tenant: %q", got)
	}
}
