package native

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// examplePlugin is the example plugin (examples/plugin), built once.
var examplePlugin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "native-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	examplePlugin = filepath.Join(dir, "example")
	cmd := exec.Command("go", "build", "-o", examplePlugin, ".")
	cmd.Dir = filepath.Join("..", "..", "examples", "plugin")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the example plugin: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sink records what reaches it.
type sink struct {
	mu    sync.Mutex
	spans int
	attrs []string
}

func (s *sink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }
func (s *sink) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spans += td.SpanCount()
	for _, rs := range td.ResourceSpans().All() {
		v, _ := rs.Resource().Attributes().Get("team")
		s.attrs = append(s.attrs, v.AsString())
	}
	return nil
}
func (s *sink) ConsumeMetrics(context.Context, pmetric.Metrics) error { return nil }
func (s *sink) ConsumeLogs(context.Context, plog.Logs) error          { return nil }

func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spans
}

func traces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range n {
		ss.Spans().AppendEmpty().SetName(fmt.Sprintf("span-%d", i))
	}
	return td
}

func newManager(t *testing.T, reg prometheus.Registerer) *Manager {
	t.Helper()
	m := NewManager(Options{Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil)), Registerer: reg})
	t.Cleanup(m.Close)
	return m
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

func component0(t *testing.T, p *Plugin, name string) wire.Component {
	t.Helper()
	for _, c := range p.Description().Components {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("the plugin serves no %s: %+v", name, p.Description())
	return wire.Component{}
}

// running builds and runs a component from values; it returns its input.
func running(t *testing.T, reg component.Registration, values map[string]any) (dataplane.Consumer, component.Component, context.CancelFunc) {
	t.Helper()
	args, err := reg.DecodeArgs(values)
	if err != nil {
		t.Fatalf("DecodeArgs: %v", err)
	}
	var in dataplane.Consumer
	c, err := reg.Build(componentOptions(&in), args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	waitHealth(t, c, component.HealthHealthy)
	return in, c, cancel
}

func waitHealth(t *testing.T, c component.Component, want component.HealthType) component.Health {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		h := c.(component.HealthComponent).CurrentHealth()
		if h.Health == want {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("health is %s (%s), want %s", h.Health, h.Message, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessorServedByPlugin(t *testing.T) {
	m := newManager(t, nil)
	p, err := m.Open(examplePlugin, "")
	if err != nil {
		t.Fatal(err)
	}
	d := p.Description()
	if d.Plugin != "example" || d.Version != "1.0.0" {
		t.Fatalf("description: %+v", d)
	}
	c := component0(t, p, "otelcol.processor.tag")
	reg := p.Registration(c, c.Name, "plugin example")
	out := &sink{}
	in, comp, _ := running(t, reg, map[string]any{"key": "team", "value": "a", "output": map[string]any{"traces": []any{dataplane.Consumer(out)}}})
	for range 10 {
		if err := in.ConsumeTraces(context.Background(), traces(7)); err != nil {
			t.Fatal(err)
		}
	}
	if out.count() != 70 {
		t.Fatalf("%d spans arrived, want 70", out.count())
	}
	// Update applies new values in place.
	args, err := reg.DecodeArgs(map[string]any{"key": "team", "value": "b", "output": map[string]any{"traces": []any{dataplane.Consumer(out)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := comp.Update(args); err != nil {
		t.Fatal(err)
	}
	if err := in.ConsumeTraces(context.Background(), traces(1)); err != nil {
		t.Fatal(err)
	}
	out.mu.Lock()
	last := out.attrs[len(out.attrs)-1]
	out.mu.Unlock()
	if last != "b" {
		t.Fatalf("after Update the attribute is %q, want b", last)
	}
}

func TestCheckRunsInsidePlugin(t *testing.T) {
	m := newManager(t, nil)
	p, err := m.Open(examplePlugin, "")
	if err != nil {
		t.Fatal(err)
	}
	c := component0(t, p, "otelcol.processor.tag")
	reg := p.Registration(c, c.Name, "plugin example")
	_, err = reg.DecodeArgs(map[string]any{"key": "", "output": map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "key: must not be empty") {
		t.Fatalf("want the plugin's Validate error, got %v", err)
	}
	_, err = reg.DecodeArgs(map[string]any{"nope": 1.0})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("want an unknown-key error, got %v", err)
	}
	_, err = reg.DecodeArgs(map[string]any{"output": map[string]any{"traces": "x"}})
	if err == nil || !strings.Contains(err.Error(), "output.traces") {
		t.Fatalf("want an error at output.traces, got %v", err)
	}
}

func TestPinnedSum(t *testing.T) {
	m := newManager(t, nil)
	if _, err := m.Open(examplePlugin, strings.Repeat("0", 64)); err == nil || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Fatalf("want a mismatch, got %v", err)
	}
	sum, err := fileSum(examplePlugin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open(examplePlugin, sum); err != nil {
		t.Fatal(err)
	}
}

func TestNotAPlugin(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "silent")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'no handshake here' >&2\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{StartTimeout: 500 * time.Millisecond})
	defer m.Close()
	_, err := m.Open(script, "")
	if err == nil || !strings.Contains(err.Error(), "did not start") || !strings.Contains(err.Error(), "no handshake here") {
		t.Fatalf("want a handshake error, got %v", err)
	}
}

// A plugin process killed under load restarts, and every batch the
// input accepted arrives.
func TestKilledPluginRestartsWithoutLoss(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newManager(t, reg)
	p, err := m.Open(examplePlugin, "")
	if err != nil {
		t.Fatal(err)
	}
	c := component0(t, p, "otelcol.processor.tag")
	out := &sink{}
	in, comp, _ := running(t, p.Registration(c, c.Name, "plugin example"), map[string]any{"key": "team", "value": "a", "output": map[string]any{"traces": []any{dataplane.Consumer(out)}}})

	var wg sync.WaitGroup
	var accepted sync.Map
	ctx, stop := context.WithCancel(context.Background())
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for ctx.Err() == nil {
				cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				if err := in.ConsumeTraces(cctx, traces(5)); err != nil {
					t.Errorf("worker %d: %v", w, err)
					cancel()
					return
				}
				cancel()
				n += 5
				accepted.Store(w, n)
			}
		}()
	}
	for out.count() < 500 {
		time.Sleep(time.Millisecond)
	}
	pid := p.pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitHealth(t, comp, component.HealthUnhealthy)
	h := waitHealth(t, comp, component.HealthHealthy)
	if p.pid() == pid {
		t.Fatalf("same pid after restart")
	}
	before := out.count()
	for out.count() < before+500 {
		time.Sleep(time.Millisecond)
	}
	stop()
	wg.Wait()
	total := 0
	accepted.Range(func(_, v any) bool { total += v.(int); return true })
	if got := out.count(); got < total {
		t.Fatalf("%d spans accepted, %d arrived", total, got)
	}
	if n := testutil.ToFloat64(m.restarts.WithLabelValues("example")); n != 1 {
		t.Fatalf("flowlua_plugin_restarts_total = %v, want 1", n)
	}
	t.Logf("health after restart: %s", h.Message)
}

func TestDiedHealthSaysWhy(t *testing.T) {
	m := newManager(t, nil)
	p, err := m.Open(examplePlugin, "")
	if err != nil {
		t.Fatal(err)
	}
	c := component0(t, p, "otelcol.processor.tag")
	_, comp, _ := running(t, p.Registration(c, c.Name, "plugin example"), map[string]any{"output": map[string]any{}})
	if err := syscall.Kill(p.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h := waitHealth(t, comp, component.HealthUnhealthy)
	if !strings.Contains(h.Message, "plugin example exited") || !strings.Contains(h.Message, "killed") {
		t.Fatalf("health message %q does not say the plugin was killed", h.Message)
	}
	waitHealth(t, comp, component.HealthHealthy)
}

// componentOptions are a test component's options; its input lands in in.
func componentOptions(in *dataplane.Consumer) component.Options {
	return component.Options{ID: "otelcol.processor.tag.t", Logger: slog.Default(),
		OnStateChange: func(e component.Exports) { *in = e.(dataplane.Exports).Input }}
}

// fakeRoutes stands for the http service's data: it keeps the handler a
// component registers.
type fakeRoutes struct {
	mu sync.Mutex
	h  map[string]http.Handler
}

func (f *fakeRoutes) Handle(id string, h http.Handler) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.h[id] = h
	return func() {
		f.mu.Lock()
		delete(f.h, id)
		f.mu.Unlock()
	}, nil
}

func (f *fakeRoutes) get(t *testing.T, id, path string) (int, string) {
	t.Helper()
	f.mu.Lock()
	h := f.h[id]
	f.mu.Unlock()
	if h == nil {
		t.Fatalf("%s registered no routes", id)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// A plugin component's routes are proxied to its process, and answer 503
// with the reason while the process is down.
func TestRoutesProxiedToPlugin(t *testing.T) {
	m := newManager(t, nil)
	p, err := m.Open(examplePlugin, "")
	if err != nil {
		t.Fatal(err)
	}
	c := component0(t, p, "otelcol.processor.tag")
	reg := p.Registration(c, c.Name, "plugin example")
	if !slices.Equal(reg.NeedsServices, []string{"http"}) {
		t.Fatalf("NeedsServices = %v, want [http]", reg.NeedsServices)
	}
	routes := &fakeRoutes{h: map[string]http.Handler{}}
	args, err := reg.DecodeArgs(map[string]any{"key": "team", "value": "a", "output": map[string]any{"traces": []any{dataplane.Consumer(&sink{})}}})
	if err != nil {
		t.Fatal(err)
	}
	var in dataplane.Consumer
	opts := componentOptions(&in)
	opts.GetServiceData = func(name string) (any, error) {
		if name != "http" {
			return nil, fmt.Errorf("no service %q", name)
		}
		return routes, nil
	}
	comp, err := reg.Build(opts, args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- comp.Run(ctx) }()
	defer func() { cancel(); <-done }()
	waitHealth(t, comp, component.HealthHealthy)
	if err := in.ConsumeTraces(context.Background(), traces(1)); err != nil {
		t.Fatal(err)
	}
	code, body := routes.get(t, opts.ID, "/stats")
	if code != http.StatusOK || !strings.Contains(body, `"tagged":1`) {
		t.Fatalf("GET /stats: %d %q", code, body)
	}
	if code, _ := routes.get(t, opts.ID, "/nothing"); code != http.StatusNotFound {
		t.Fatalf("GET /nothing: %d, want 404 from the plugin", code)
	}

	// Down for three seconds: the restart's backoff.
	p.mu.Lock()
	p.backoff = 3 * time.Second
	p.mu.Unlock()
	if err := syscall.Kill(p.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitHealth(t, comp, component.HealthUnhealthy)
	code, body = routes.get(t, opts.ID, "/stats")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "plugin example exited") {
		t.Fatalf("GET /stats while the plugin is down: %d %q, want 503 saying why", code, body)
	}
	waitHealth(t, comp, component.HealthHealthy)
	if code, body := routes.get(t, opts.ID, "/stats"); code != http.StatusOK {
		t.Fatalf("GET /stats after the restart: %d %q", code, body)
	}
}
