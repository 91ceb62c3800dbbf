package otelcol

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// TestProcessors runs each processor once on the trace example.
func TestProcessors(t *testing.T) {
	tests := []struct {
		comp  string
		args  map[string]any
		check func(t *testing.T, got ptrace.Traces)
	}{{
		comp: "otelcol.processor.transform",
		args: map[string]any{
			"trace_statements": []any{`set(span.attributes["redacted"], true)`},
		},
		check: func(t *testing.T, got ptrace.Traces) {
			if v, ok := firstSpan(got).Attributes().Get("redacted"); !ok || !v.Bool() {
				t.Errorf("transform did not set the attribute: %v", firstSpan(got).Attributes().AsRaw())
			}
		},
	}, {
		comp: "otelcol.processor.attributes",
		args: map[string]any{
			"actions": []any{map[string]any{"key": "n", "value": 42.0, "action": "insert"}},
		},
		check: func(t *testing.T, got ptrace.Traces) {
			if v, ok := firstSpan(got).Attributes().Get("n"); !ok || v.Int() != 42 {
				t.Errorf("attribute n = %v, want the integer 42", v.AsRaw())
			}
		},
	}, {
		comp: "otelcol.processor.filter",
		args: map[string]any{
			"traces": map[string]any{"span": []any{`name == "I'm a server span"`}},
		},
		check: func(t *testing.T, got ptrace.Traces) {
			if got.SpanCount() != 0 {
				t.Errorf("filter kept %d spans", got.SpanCount())
			}
		},
	}, {
		comp: "otelcol.processor.memory_limiter",
		args: map[string]any{"check_interval": "1s", "limit_mib": 4000.0},
		check: func(t *testing.T, got ptrace.Traces) {
			if got.SpanCount() != 1 {
				t.Errorf("memory_limiter passed %d spans", got.SpanCount())
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.comp, func(t *testing.T) {
			s := newSink()
			tt.args["output"] = map[string]any{"traces": []any{s}}
			p := start(t, tt.comp, "p", tt.args)
			p.waitHealthy()
			err := p.input().ConsumeTraces(context.Background(), fixtureTraces(t))
			if err != nil {
				t.Fatal(err)
			}
			if tt.comp == "otelcol.processor.filter" {
				if n := s.traces.SpanCount(); n != 0 {
					t.Errorf("filter passed %d spans", n)
				}
				return
			}
			eventually(t, func() bool { return len(s.traces.AllTraces()) == 1 }, "a batch")
			tt.check(t, s.traces.AllTraces()[0])
		})
	}
}

func firstSpan(td ptrace.Traces) ptrace.Span {
	return td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
}

// TestMutatorBesideReader: a receiver sends to transform (which mutates)
// and to a sink: the fan-out gives transform its own copy, and the sink
// sees the batch as it was received.
func TestMutatorBesideReader(t *testing.T) {
	mutated, plain := newSink(), newSink()
	tr := start(t, "otelcol.processor.transform", "beside", map[string]any{
		"trace_statements": []any{`set(span.name, "changed")`},
		"output":           map[string]any{"traces": []any{mutated}},
	})
	tr.waitHealthy()
	if !tr.input().Capabilities().MutatesData {
		t.Fatal("transform's input does not declare that it mutates")
	}
	addr := freePort(t)
	recv := start(t, "otelcol.receiver.otlp", "beside", map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": addr}},
		"output":    map[string]any{"traces": []any{tr.input(), plain}},
	})
	recv.waitHealthy()
	waitListening(t, addr)
	td := fixtureTraces(t)
	if _, err := ptraceotlp.NewGRPCClient(grpcConn(t, addr)).Export(context.Background(), ptraceotlp.NewExportRequestFromTraces(td)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return mutated.traces.SpanCount() == 1 && plain.traces.SpanCount() == 1 }, "both consumers")
	if got := firstSpan(mutated.traces.AllTraces()[0]).Name(); got != "changed" {
		t.Errorf("transform output span name %q", got)
	}
	if got, want := tracesJSON(t, plain.traces.AllTraces()[0]), tracesJSON(t, td); got != want {
		t.Errorf("the read-only consumer saw the mutation:\n got %s\nwant %s", got, want)
	}
}

// TestOtherExporters sends the trace example through the debug, file and
// otlphttp exporters.
func TestOtherExporters(t *testing.T) {
	ctx := context.Background()
	td := fixtureTraces(t)

	debug := start(t, "otelcol.exporter.debug", "d", map[string]any{"verbosity": "basic"})
	debug.waitHealthy()
	if err := debug.input().ConsumeTraces(ctx, td); err != nil {
		t.Errorf("debug: %v", err)
	}
	eventually(t, func() bool { return strings.Contains(debug.logs.String(), "spans=1") }, "debug to log the batch")

	path := filepath.Join(t.TempDir(), "out.json")
	file := start(t, "otelcol.exporter.file", "f", map[string]any{"path": path})
	file.waitHealthy()
	if err := file.input().ConsumeTraces(ctx, td); err != nil {
		t.Errorf("file: %v", err)
	}
	file.stop()
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), `"I'm a server span"`) {
		t.Errorf("file exporter wrote %q (%v)", b, err)
	}

	var mu sync.Mutex
	var got []ptrace.Traces
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := ptraceotlp.NewExportRequest()
		if r.URL.Path != "/v1/traces" || req.UnmarshalProto(body) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req.Traces())
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := ptraceotlp.NewExportResponse().MarshalProto()
		_, _ = w.Write(out)
	}))
	defer srv.Close()
	oh := start(t, "otelcol.exporter.otlphttp", "h", map[string]any{"endpoint": srv.URL, "compression": "none"})
	oh.waitHealthy()
	if err := oh.input().ConsumeTraces(ctx, fixtureTraces(t)); err != nil {
		t.Errorf("otlphttp: %v", err)
	}
	eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 }, "the HTTP server to receive")
	mu.Lock()
	defer mu.Unlock()
	if g, w := tracesJSON(t, got[0]), tracesJSON(t, td); g != w {
		t.Errorf("otlphttp delivered:\n got %s\nwant %s", g, w)
	}
}

// TestArgsJSON: arguments marshal for the API with secrets redacted.
func TestArgsJSON(t *testing.T) {
	_, v, err := decodeFor(t, "otelcol.exporter.otlp", map[string]any{
		"endpoint": "collector:4317",
		"headers":  map[string]any{"authorization": "Bearer secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"endpoint":"collector:4317"`) || strings.Contains(string(b), "secret") {
		t.Errorf("JSON = %s", b)
	}
}
