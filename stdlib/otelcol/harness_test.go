package otelcol

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// decodeFor decodes script-like arguments for a registered component the
// way the engine's loader does.
func decodeFor(t *testing.T, name string, args map[string]any) (flowcomp.Registration, any, error) {
	t.Helper()
	reg, ok := flowcomp.DefaultRegistry.Get(name)
	if !ok {
		t.Fatalf("%s is not registered", name)
	}
	v, err := reg.DecodeArgs(args)
	return reg, v, err
}

// running is a component built and run as the engine would.
type running struct {
	t       *testing.T
	id      string
	comp    flowcomp.Component
	reg     *prometheus.Registry
	logs    *lockedBuffer
	mu      sync.Mutex
	exports any
	cancel  context.CancelFunc
	done    chan error
}

// start decodes args, builds the component and runs it until the test ends.
func start(t *testing.T, name, label string, args map[string]any) *running {
	t.Helper()
	r := build(t, name, label, args)
	r.run()
	return r
}

// build decodes args and builds the component without running it.
func build(t *testing.T, name, label string, args map[string]any) *running {
	t.Helper()
	reg, decoded, err := decodeFor(t, name, args)
	if err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
	r := &running{t: t, id: name + "." + label, reg: prometheus.NewRegistry(), logs: &lockedBuffer{}}
	opts := flowcomp.Options{
		ID:         r.id,
		Logger:     slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With("component_id", r.id),
		DataPath:   filepath.Join(t.TempDir(), "data"),
		Registerer: prometheus.WrapRegistererWith(prometheus.Labels{"component_id": r.id}, r.reg),
		OnStateChange: func(e flowcomp.Exports) {
			r.mu.Lock()
			r.exports = e
			r.mu.Unlock()
		},
	}
	c, err := reg.Build(opts, decoded)
	if err != nil {
		t.Fatalf("building %s: %v", r.id, err)
	}
	r.comp = c
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs of %s:\n%s", r.id, r.logs.String())
		}
	})
	return r
}

// run runs the component until stop or the end of the test.
func (r *running) run() {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.done = make(chan error, 1)
	go func() { r.done <- r.comp.Run(ctx) }()
	r.t.Cleanup(r.stop)
}

// stop cancels Run and waits for it to return.
func (r *running) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Errorf("%s: Run: %v", r.id, err)
		}
	case <-time.After(30 * time.Second):
		r.t.Errorf("%s: Run did not return", r.id)
	}
}

// update decodes new arguments and applies them.
func (r *running) update(name string, args map[string]any) error {
	r.t.Helper()
	_, decoded, err := decodeFor(r.t, name, args)
	if err != nil {
		r.t.Fatalf("decoding: %v", err)
	}
	return r.comp.Update(decoded)
}

// input returns the component's exported input.
func (r *running) input() dataplane.Consumer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exports.(dataplane.Exports).Input
}

// health returns the component's health.
func (r *running) health() flowcomp.Health {
	return r.comp.(flowcomp.HealthComponent).CurrentHealth()
}

// waitHealthy waits until the component reports healthy.
func (r *running) waitHealthy() {
	r.t.Helper()
	eventually(r.t, func() bool { return r.health().Health == flowcomp.HealthHealthy }, "%s healthy (is %+v)", r.id, r.health())
}

// eventually polls cond for up to 10s.
func eventually(t *testing.T, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for "+format, args...)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sink records everything it consumes, per signal.
type sink struct {
	dataplane.Signals
	traces  *consumertest.TracesSink
	metrics *consumertest.MetricsSink
	logs    *consumertest.LogsSink
}

func newSink() *sink {
	s := &sink{traces: new(consumertest.TracesSink), metrics: new(consumertest.MetricsSink), logs: new(consumertest.LogsSink)}
	s.Signals = dataplane.Signals{Traces: s.traces, Metrics: s.metrics, Logs: s.logs}
	return s
}

// allSignals is an output sending every signal to c.
func allSignals(c ...any) map[string]any {
	return map[string]any{"traces": c, "metrics": c, "logs": c}
}

// givenPorts are the addresses freePort returned in this process: once
// closed, the port the OS handed out for ":0" may be handed out again.
var (
	givenPortsMu sync.Mutex
	givenPorts   = map[string]bool{}
)

// freePort returns a 127.0.0.1 address nothing listens on, never one it
// returned before in this process.
func freePort(t *testing.T) string {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		_ = l.Close()
		givenPortsMu.Lock()
		given := givenPorts[addr]
		givenPorts[addr] = true
		givenPortsMu.Unlock()
		if !given {
			return addr
		}
	}
	t.Fatal("no free port that was not given out before, in 100 tries")
	return ""
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}, "%s to listen", addr)
}

// Fixtures: the OTLP/JSON examples of opentelemetry-proto.

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fixtureTraces(t *testing.T) ptrace.Traces {
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(readFixture(t, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	return td
}

func fixtureMetrics(t *testing.T) pmetric.Metrics {
	md, err := (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(readFixture(t, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	return md
}

func fixtureLogs(t *testing.T) plog.Logs {
	ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(readFixture(t, "logs.json"))
	if err != nil {
		t.Fatal(err)
	}
	return ld
}

// Content comparison through the OTLP/JSON encoding, which is
// deterministic.

func tracesJSON(t *testing.T, td ptrace.Traces) string {
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func metricsJSON(t *testing.T, md pmetric.Metrics) string {
	b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func logsJSON(t *testing.T, ld plog.Logs) string {
	b, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
