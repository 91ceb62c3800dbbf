package otelcol

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.uber.org/zap"
)

// TestComponentMetrics: the receiver's own metrics reach the component's
// registry, labelled with component_id.
func TestComponentMetrics(t *testing.T) {
	s := newSink()
	addr := freePort(t)
	recv := start(t, "otelcol.receiver.otlp", "metrics", map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": addr}},
		"output":    map[string]any{"traces": []any{s}},
	})
	recv.waitHealthy()
	waitListening(t, addr)
	td := fixtureTraces(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := ptraceotlp.NewGRPCClient(grpcConn(t, addr)).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td)); err != nil {
		t.Fatal(err)
	}
	var accepted float64
	eventually(t, func() bool {
		accepted = counterValue(t, recv, "otelcol_receiver_accepted_spans_total")
		return accepted == float64(td.SpanCount())
	}, "otelcol_receiver_accepted_spans_total = %d", td.SpanCount())
}

// counterValue sums a counter of r's registry, checking its labels.
func counterValue(t *testing.T, r *running, name string) float64 {
	t.Helper()
	families, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if label(m, "component_id") != r.id {
				t.Errorf("%s has component_id %q", name, label(m, "component_id"))
			}
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// TestZapToSlog: entries of the zap logger components get land in the
// component's slog logger with their level, message and fields.
func TestZapToSlog(t *testing.T) {
	var buf lockedBuffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})).With("component_id", "otelcol.x.y")
	z := newZapLogger(l).With(zap.String("scope", "s1"))
	z.Debug("hidden")
	z.Info("hello", zap.String("k", "v"), zap.Int("n", 3))
	z.Named("sub").Warn("careful", zap.Error(errTest))
	out := buf.String()
	for _, want := range []string{
		`level=INFO msg=hello component_id=otelcol.x.y scope=s1 k=v n=3`,
		`level=WARN msg=careful component_id=otelcol.x.y scope=s1 error=boom logger=sub`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hidden") {
		t.Error("a debug entry passed an info handler")
	}
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("boom")
