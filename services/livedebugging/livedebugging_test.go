package livedebugging

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// host is a service.Host with one component's tap.
type host struct {
	service.Host // nil: only Tap is called
	id           string
	tap          *dataplane.Tap
}

func (h host) Tap(id string) *dataplane.Tap {
	if id == h.id {
		return h.tap
	}
	return nil
}

func (h host) ListComponents() []component.Info { return nil }

// setup returns a running service with cfg, the tap of component "a.b",
// a pipeline feeding a sink through it, and the service's registry.
func setup(t *testing.T, cfg Config) (*Service, func(), *consumertest.TracesSink, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	s := New(services.Options{Registerer: reg})
	if err := s.Update(cfg); err != nil {
		t.Fatal(err)
	}
	tap := dataplane.NewTap(nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = s.Run(ctx, host{id: "a.b", tap: tap}) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		h := s.host
		s.mu.Unlock()
		if h != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("service did not run")
		}
		time.Sleep(time.Millisecond)
	}
	sink := new(consumertest.TracesSink)
	f := dataplane.OutputTraces(dataplane.Output{Traces: []dataplane.Consumer{&dataplane.Signals{Traces: sink}}}.WithTap(tap))
	send := func() {
		td := ptrace.NewTraces()
		td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("hello")
		_ = f.ConsumeTraces(context.Background(), td)
	}
	return s, send, sink, reg
}

func enabled() Config {
	c := Config{Enabled: true}
	c.SetToDefault()
	c.MaxBatchesPerSecond = 1000
	return c
}

// While disabled, the stream says how to enable it.
func TestDisabled(t *testing.T) {
	c := Config{}
	c.SetToDefault()
	s, _, _, _ := setup(t, c)
	rec := httptest.NewRecorder()
	s.ServeDebug(rec, httptest.NewRequest("GET", "/api/v0/debug/a.b", nil), "a.b")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "livedebugging { enabled = true }") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	s2, _, _, _ := setup(t, enabled())
	rec = httptest.NewRecorder()
	s2.ServeDebug(rec, httptest.NewRequest("GET", "/api/v0/debug/x.y", nil), "x.y")
	if rec.Code != http.StatusNotFound {
		t.Fatalf("unknown component: %d %s", rec.Code, rec.Body)
	}
}

// A viewer receives what the component sends as OTLP JSON events, and
// disabling live debugging ends its stream.
func TestStream(t *testing.T) {
	s, send, _, reg := setup(t, enabled())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.ServeDebug(w, r, "a.b") }))
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "?signal=traces")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), ": watching a.b") {
		t.Fatalf("first line %q", lines.Text())
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				send()
				time.Sleep(5 * time.Millisecond)
			}
		}
	}()
	defer close(stop)
	for lines.Scan() {
		if l := lines.Text(); strings.HasPrefix(l, "data: ") {
			if !strings.Contains(l, `"signal":"traces"`) || !strings.Contains(l, `"name":"hello"`) {
				t.Fatalf("sample %s", l)
			}
			break
		}
	}
	off := enabled()
	off.Enabled = false
	_ = s.Update(off)
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	if !strings.Contains(strings.Join(rest, "\n"), "event: end\ndata: live debugging was disabled") {
		t.Fatalf("after disabling: %q", rest)
	}
	waitCount(t, s.ended.WithLabelValues("disabled"), 1)
	if n := testutil.ToFloat64(s.samples); n < 1 {
		t.Errorf("samples counted: %v", n)
	}
	_ = reg
}

// stuckWriter is a ResponseWriter whose client stopped reading: every
// write after the first blocks until its deadline.
type stuckWriter struct {
	header http.Header
	mu     sync.Mutex
	n      int
	dl     time.Time
}

func (w *stuckWriter) Header() http.Header { return w.header }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Flush()              {}
func (w *stuckWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	w.dl = t
	w.mu.Unlock()
	return nil
}
func (w *stuckWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n++
	n, dl := w.n, w.dl
	w.mu.Unlock()
	if n == 1 {
		return len(p), nil
	}
	time.Sleep(time.Until(dl))
	return 0, errors.New("i/o timeout")
}

// A viewer that does not read never holds up the pipeline: the items keep
// reaching the sink, the viewer is dropped and counted.
func TestSlowViewerIsDropped(t *testing.T) {
	old := writeTimeout
	writeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { writeTimeout = old })
	cfg := enabled()
	cfg.Buffer = 2
	s, send, sink, _ := setup(t, cfg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeDebug(&stuckWriter{header: http.Header{}}, httptest.NewRequest("GET", "/api/v0/debug/a.b", nil), "a.b")
	}()
	waitCount(t, s.viewers, 1)
	start := time.Now()
	for range 2000 {
		send()
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("2000 batches took %s with a stuck viewer", d)
	}
	if sink.SpanCount() != 2000 {
		t.Errorf("sink got %d spans, want 2000", sink.SpanCount())
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stuck viewer's request never ended")
	}
	waitCount(t, s.ended.WithLabelValues("slow"), 1)
	waitCount(t, s.viewers, 0)
}

func waitCount(t *testing.T, c prometheus.Collector, want float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for testutil.ToFloat64(c) != want {
		if time.Now().After(deadline) {
			t.Fatalf("metric is %v, want %v", testutil.ToFloat64(c), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
