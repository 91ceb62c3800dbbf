package otelcol

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

func spans(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for range n {
		ss.Spans().AppendEmpty().SetName("s")
	}
	return td
}

// TestUpdateWhileTrafficFlows changes the batch processor's config (which
// replaces the upstream instance) and then only its outputs (swapped in
// place) while several goroutines send: every span arrives, none twice.
func TestUpdateWhileTrafficFlows(t *testing.T) {
	s1, s2 := newSink(), newSink()
	batch := start(t, "otelcol.processor.batch", "update", map[string]any{
		"timeout": "50ms",
		"output":  map[string]any{"traces": []any{s1}},
	})
	batch.waitHealthy()
	in := batch.input()

	var sent atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				if err := in.ConsumeTraces(context.Background(), spans(10)); err != nil {
					t.Errorf("send: %v", err)
					return
				}
				sent.Add(10)
			}
		})
	}
	steps := []map[string]any{
		{"timeout": "5ms", "output": map[string]any{"traces": []any{s1}}},
		{"timeout": "5ms", "send_batch_size": 7.0, "output": map[string]any{"traces": []any{s1}}},
		{"timeout": "5ms", "send_batch_size": 7.0, "output": map[string]any{"traces": []any{s2}}},
		{"timeout": "200ms", "output": map[string]any{"traces": []any{s1, s2}}},
		{"timeout": "200ms", "output": map[string]any{"traces": []any{s1}}},
	}
	for i, args := range steps {
		time.Sleep(30 * time.Millisecond)
		if err := batch.update("otelcol.processor.batch", args); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	time.Sleep(30 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	if batch.input() != in {
		t.Error("the exported input changed across updates")
	}
	// Spans sent while both sinks were outputs arrive twice: count them
	// by name instead of by total.
	eventually(t, func() bool {
		return s1.traces.SpanCount()+s2.traces.SpanCount() >= int(sent.Load())
	}, "%d spans (got %d + %d)", sent.Load(), s1.traces.SpanCount(), s2.traces.SpanCount())
	if s2.traces.SpanCount() == 0 {
		t.Error("the output swapped in place received nothing")
	}
	// Nothing is lost: after the last update only s1 receives; flush it by
	// stopping the component, then compare with an exact count of the
	// duplicates (spans in batches both sinks got are the same batches).
	batch.stop()
	total := s1.traces.SpanCount() + s2.traces.SpanCount() - duplicated(s1, s2)
	if total != int(sent.Load()) {
		t.Errorf("received %d distinct spans, sent %d", total, sent.Load())
	}
}

// duplicated counts the spans of batches that both sinks received (the
// fan-out gives read-only consumers the same batch).
func duplicated(a, b *sink) int {
	seen := map[ptrace.Traces]bool{}
	for _, td := range a.traces.AllTraces() {
		seen[td] = true
	}
	n := 0
	for _, td := range b.traces.AllTraces() {
		if seen[td] {
			n += td.SpanCount()
		}
	}
	return n
}

// TestUpdateReceiverEndpoint moves a receiver to another port, then tries
// a port that is taken: the update fails and the receiver keeps serving
// on its previous port.
func TestUpdateReceiverEndpoint(t *testing.T) {
	s := newSink()
	first := freePort(t)
	args := func(addr string) map[string]any {
		return map[string]any{
			"protocols": map[string]any{"grpc": map[string]any{"endpoint": addr}},
			"output":    map[string]any{"traces": []any{s}},
		}
	}
	recv := start(t, "otelcol.receiver.otlp", "moving", args(first))
	recv.waitHealthy()
	waitListening(t, first)

	second := freePort(t)
	if err := recv.update("otelcol.receiver.otlp", args(second)); err != nil {
		t.Fatal(err)
	}
	waitListening(t, second)
	sendSpans(t, second, 3)
	eventually(t, func() bool { return s.traces.SpanCount() == 3 }, "3 spans on the new port")
	if c, err := net.Dial("tcp", first); err == nil {
		_ = c.Close()
		t.Error("the old port still listens")
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	err = recv.update("otelcol.receiver.otlp", args(taken.Addr().String()))
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("update to a taken port: %v", err)
	}
	waitListening(t, second)
	sendSpans(t, second, 2)
	eventually(t, func() bool { return s.traces.SpanCount() == 5 }, "5 spans after the failed update")
	if h := recv.health(); h.Health != flowcomp.HealthUnhealthy || !strings.Contains(h.Message, "previous") {
		t.Errorf("health after a failed update = %+v", h)
	}
}

func sendSpans(t *testing.T, addr string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := ptraceotlp.NewGRPCClient(grpcConn(t, addr)).Export(ctx, ptraceotlp.NewExportRequestFromTraces(spans(n))); err != nil {
		t.Fatal(err)
	}
}

// TestStartFailureIsUnhealthy: a receiver whose port is taken reports
// unhealthy with the reason, and keeps Run going so an update can fix it.
func TestStartFailureIsUnhealthy(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	s := newSink()
	recv := start(t, "otelcol.receiver.otlp", "taken", map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": taken.Addr().String()}},
		"output":    map[string]any{"traces": []any{s}},
	})
	eventually(t, func() bool { return recv.health().Health == flowcomp.HealthUnhealthy }, "unhealthy")
	if h := recv.health(); !strings.Contains(h.Message, "address already in use") {
		t.Errorf("health message %q does not say why", h.Message)
	}
	free := freePort(t)
	if err := recv.update("otelcol.receiver.otlp", map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": free}},
		"output":    map[string]any{"traces": []any{s}},
	}); err != nil {
		t.Fatal(err)
	}
	recv.waitHealthy()
	waitListening(t, free)
}

// TestUnusedSignalIsRefused: a processor without a logs output refuses
// logs with an error saying so.
func TestUnusedSignalIsRefused(t *testing.T) {
	batch := start(t, "otelcol.processor.batch", "nologs", map[string]any{
		"output": map[string]any{"traces": []any{newSink()}},
	})
	batch.waitHealthy()
	err := batch.input().ConsumeLogs(context.Background(), fixtureLogs(t))
	if err == nil || !strings.Contains(err.Error(), "has no logs output") {
		t.Errorf("logs into a processor without logs output: %v", err)
	}
	var _ dataplane.Consumer = batch.input()
}

// TestConfigDecodedOnce: the upstream components of an instance are made
// from the config decoding produced, not from a second decode; keys that
// default to the data directory are set on a copy, leaving the arguments'
// config as decoded.
func TestConfigDecodedOnce(t *testing.T) {
	exp := start(t, "otelcol.exporter.debug", "once", map[string]any{"verbosity": "basic"})
	exp.waitHealthy()
	_, v, err := decodeFor(t, "otelcol.exporter.debug", map[string]any{"verbosity": "detailed"})
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.comp.Update(v); err != nil {
		t.Fatal(err)
	}
	a := exp.comp.(*adapter)
	a.mu.Lock()
	cfg := a.cur.cfg
	a.mu.Unlock()
	if cfg != v.(Args).Config {
		t.Error("the updated instance's config is not the one its arguments decoded")
	}

	ext := build(t, "otelcol.extension.file_storage", "once", map[string]any{"timeout": "2s"})
	fa := ext.comp.(*adapter)
	got := fa.cur.cfg.(*filestorage.Config)
	decoded := fa.args.config.(*filestorage.Config)
	if got.Directory != fa.opts.DataPath || got.Compaction.Directory != fa.opts.DataPath {
		t.Errorf("directories %q and %q, want the data path %q", got.Directory, got.Compaction.Directory, fa.opts.DataPath)
	}
	if decoded.Directory == fa.opts.DataPath || decoded.Compaction.Directory == fa.opts.DataPath {
		t.Error("setting the data directory changed the arguments' config")
	}
	if got.Timeout != 2*time.Second {
		t.Errorf("timeout %s, want the decoded 2s", got.Timeout)
	}
}
