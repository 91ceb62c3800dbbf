//go:build conformance

package convert

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestConformance sends the same OTLP items through the upstream
// collector on testdata/conformance.yaml and through flowlua on its
// conversion, and compares what reaches the sink: every span, data point
// and log record with its resource and attributes, as a multiset (batching
// may reorder). COLLECTOR_BIN and FLOWLUA_BIN name the binaries
// (make conformance builds both).
func TestConformance(t *testing.T) {
	collector, flowlua := os.Getenv("COLLECTOR_BIN"), os.Getenv("FLOWLUA_BIN")
	if collector == "" || flowlua == "" {
		t.Skip("COLLECTOR_BIN and FLOWLUA_BIN are not set (make conformance)")
	}
	src, err := os.ReadFile("testdata/conformance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Convert(src, Options{Filename: "conformance.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	// service::telemetry maps onto flowlua's command line: no problem.
	if len(res.Problems) != 0 {
		t.Fatalf("problems: %s", res.Error())
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "pipeline.lua")
	if err := os.WriteFile(script, res.Script, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("converted:\n%s", res.Script)

	want := run(t, "collector", []string{collector, "--config=" + filepath.Join(mustAbs(t, "testdata"), "conformance.yaml")}, 0)
	got := run(t, "flowlua", []string{flowlua, "run", script, "--no-watch", "--storage.path=" + filepath.Join(dir, "data"), "--http.listen-addr=" + freeAddr(t)}, len(want))
	if len(want) == 0 {
		t.Fatal("nothing reached the sink through the collector")
	}
	if !slices.Equal(got, want) {
		t.Errorf("the sink got different items through flowlua (%d) and the collector (%d):\n%s", len(got), len(want), diffLines(want, got))
	} else {
		t.Logf("the same %d items reached the sink through the collector and flowlua", len(want))
	}
}

// run starts a system with a fresh sink and receiver port, sends the
// input, and returns what reached the sink once it stopped changing (or
// reached want items).
func run(t *testing.T, name string, argv []string, want int) []string {
	t.Helper()
	s := newSink(t)
	recv := freeAddr(t)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "RECEIVER_ENDPOINT="+recv, "EXPORTER_ENDPOINT="+s.addr, "TAG=conformance")
	logf, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("%s log:\n%s", name, b)
		}
	}()
	send(t, recv)
	deadline := time.Now().Add(20 * time.Second)
	last, stable := -1, time.Now()
	for time.Now().Before(deadline) {
		n := s.count()
		if want > 0 && n >= want {
			time.Sleep(500 * time.Millisecond) // anything more would show
			break
		}
		if n != last {
			last, stable = n, time.Now()
		} else if n > 0 && time.Since(stable) > 2*time.Second {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s.items()
}

// send exports the input, retrying until the receiver listens.
func send(t *testing.T, addr string) {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		_, err = ptraceotlp.NewGRPCClient(conn).Export(ctx, ptraceotlp.NewExportRequestFromTraces(inputTraces()))
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("sending traces: %v", err)
	}
	if _, err := pmetricotlp.NewGRPCClient(conn).Export(ctx, pmetricotlp.NewExportRequestFromMetrics(inputMetrics())); err != nil {
		t.Fatalf("sending metrics: %v", err)
	}
	if _, err := plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(inputLogs())); err != nil {
		t.Fatalf("sending logs: %v", err)
	}
}

func inputTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	for r := range 2 {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", fmt.Sprintf("svc-%d", r))
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("conformance")
		for i := range 5 {
			sp := ss.Spans().AppendEmpty()
			sp.SetName(fmt.Sprintf("op-%d", i))
			sp.SetTraceID(pcommon.TraceID{byte(r), byte(i), 1})
			sp.SetSpanID(pcommon.SpanID{byte(r), byte(i), 2})
			sp.Attributes().PutStr("secret", "hunter2")
			sp.Attributes().PutInt("i", int64(i))
			sp.Attributes().PutBool("mark", i%2 == 0)
		}
	}
	return td
}

func inputMetrics() pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "svc-m")
	sm := rm.ScopeMetrics().AppendEmpty()
	g := sm.Metrics().AppendEmpty()
	g.SetName("queue.depth")
	points := g.SetEmptyGauge().DataPoints()
	for i := range 4 {
		dp := points.AppendEmpty()
		dp.SetIntValue(int64(10 * i))
		dp.Attributes().PutStr("queue", fmt.Sprintf("q%d", i))
		dp.Attributes().PutStr("secret", "x")
	}
	return md
}

func inputLogs() plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "svc-l")
	sl := rl.ScopeLogs().AppendEmpty()
	for i := range 3 {
		lr := sl.LogRecords().AppendEmpty()
		lr.Body().SetStr(fmt.Sprintf("line %d", i))
		lr.Attributes().PutStr("secret", "kept: logs have no attributes processor")
	}
	return ld
}

// sink is an OTLP/gRPC server that records every item as a line.
type sink struct {
	addr  string
	mu    sync.Mutex
	lines []string
}

func newSink(t *testing.T) *sink {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{addr: l.Addr().String()}
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, &tracesServer{sink: s})
	pmetricotlp.RegisterGRPCServer(srv, &metricsServer{sink: s})
	plogotlp.RegisterGRPCServer(srv, &logsServer{sink: s})
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return s
}

func (s *sink) add(lines ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, lines...)
}

func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lines)
}

func (s *sink) items() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.lines)
	sort.Strings(out)
	return out
}

func line(kind string, res pcommon.Map, scope, name string, attrs pcommon.Map, extra any) string {
	b, _ := json.Marshal([]any{kind, res.AsRaw(), scope, name, attrs.AsRaw(), extra})
	return string(b)
}

type tracesServer struct {
	ptraceotlp.UnimplementedGRPCServer
	*sink
}

func (s *tracesServer) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	td := req.Traces()
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				s.add(line("span", rs.Resource().Attributes(), ss.Scope().Name(), sp.Name(), sp.Attributes(), []string{sp.TraceID().String(), sp.SpanID().String()}))
			}
		}
	}
	return ptraceotlp.NewExportResponse(), nil
}

type metricsServer struct {
	pmetricotlp.UnimplementedGRPCServer
	*sink
}

func (s *metricsServer) Export(_ context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	md := req.Metrics()
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, m := range sm.Metrics().All() {
				if m.Type() != pmetric.MetricTypeGauge {
					s.add(line("metric", rm.Resource().Attributes(), sm.Scope().Name(), m.Name(), pcommon.NewMap(), m.Type().String()))
					continue
				}
				for _, dp := range m.Gauge().DataPoints().All() {
					s.add(line("point", rm.Resource().Attributes(), sm.Scope().Name(), m.Name(), dp.Attributes(), dp.IntValue()))
				}
			}
		}
	}
	return pmetricotlp.NewExportResponse(), nil
}

type logsServer struct {
	plogotlp.UnimplementedGRPCServer
	*sink
}

func (s *logsServer) Export(_ context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	ld := req.Logs()
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				s.add(line("log", rl.Resource().Attributes(), sl.Scope().Name(), lr.Body().AsString(), lr.Attributes(), nil))
			}
		}
	}
	return plogotlp.NewExportResponse(), nil
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// diffLines lists the lines only one side has.
func diffLines(want, got []string) string {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		count[g]--
	}
	var b strings.Builder
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range count {
			if !yield(k) {
				return
			}
		}
	}) {
		switch n := count[k]; {
		case n > 0:
			fmt.Fprintf(&b, "- %s (only through the collector, x%d)\n", k, n)
		case n < 0:
			fmt.Fprintf(&b, "+ %s (only through flowlua, x%d)\n", k, -n)
		}
	}
	return b.String()
}
