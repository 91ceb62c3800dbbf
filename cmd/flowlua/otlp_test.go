package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// End-to-end OTLP commands: a real OTLP/gRPC sink running inside the test
// process, and a real OTLP client sending the upstream example payloads
// (testdata/otlp) over gRPC or HTTP.

func init() {
	scriptCmds["otlpsink"] = cmdOTLPSink
	scriptCmds["otlpsend"] = cmdOTLPSend
}

// otlpExamples is the directory of the upstream example payloads.
func otlpExamples() string {
	dir, _ := filepath.Abs("../../testdata/otlp")
	return dir
}

// sink records everything an OTLP/gRPC server received.
type sink struct {
	mu      sync.Mutex
	traces  []ptrace.Traces
	metrics []pmetric.Metrics
	logs    []plog.Logs
	server  *grpc.Server
	delay   time.Duration // how long each Export takes
}

// wait sleeps for the sink's delay, or until ctx ends.
func (s *sink) wait(ctx context.Context) error {
	s.mu.Lock()
	delay := s.delay
	s.mu.Unlock()
	if delay <= 0 {
		return nil
	}
	select {
	case <-time.After(delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type traceSink struct {
	ptraceotlp.UnimplementedGRPCServer
	s *sink
}
type metricSink struct {
	pmetricotlp.UnimplementedGRPCServer
	s *sink
}
type logSink struct {
	plogotlp.UnimplementedGRPCServer
	s *sink
}

func (t traceSink) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	if err := t.s.wait(ctx); err != nil {
		return ptraceotlp.NewExportResponse(), err
	}
	td := ptrace.NewTraces()
	req.Traces().CopyTo(td)
	t.s.mu.Lock()
	t.s.traces = append(t.s.traces, td)
	t.s.mu.Unlock()
	return ptraceotlp.NewExportResponse(), nil
}

func (m metricSink) Export(ctx context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	if err := m.s.wait(ctx); err != nil {
		return pmetricotlp.NewExportResponse(), err
	}
	md := pmetric.NewMetrics()
	req.Metrics().CopyTo(md)
	m.s.mu.Lock()
	m.s.metrics = append(m.s.metrics, md)
	m.s.mu.Unlock()
	return pmetricotlp.NewExportResponse(), nil
}

func (l logSink) Export(ctx context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	if err := l.s.wait(ctx); err != nil {
		return plogotlp.NewExportResponse(), err
	}
	ld := plog.NewLogs()
	req.Logs().CopyTo(ld)
	l.s.mu.Lock()
	l.s.logs = append(l.s.logs, ld)
	l.s.mu.Unlock()
	return plogotlp.NewExportResponse(), nil
}

// records flattens what the sink holds of a signal into one canonical
// string per span, data point or log record (see flatten*).
func (s *sink) records(signal string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	switch signal {
	case "traces":
		for _, td := range s.traces {
			out = append(out, flattenTraces(td)...)
		}
	case "metrics":
		for _, md := range s.metrics {
			out = append(out, flattenMetrics(md)...)
		}
	case "logs":
		for _, ld := range s.logs {
			out = append(out, flattenLogs(ld)...)
		}
	}
	slices.Sort(out)
	return out
}

var sinksMu sync.Mutex
var sinks = map[string]*sink{} // by "$WORK/name"

func sinkFor(ts *testscript.TestScript, name string) *sink {
	sinksMu.Lock()
	defer sinksMu.Unlock()
	s := sinks[ts.Getenv("WORK")+"/"+name]
	if s == nil {
		ts.Fatalf("no sink %q: start it with otlpsink start %s", name, name)
	}
	return s
}

// otlpsink start NAME [ADDR] [DELAY]: starts an OTLP/gRPC sink on ADDR (a
// free port if not given or "-") and sets $NAME to its address; each
// Export takes DELAY (a duration) when given. Starting a stopped sink
// again keeps what it received.
// otlpsink stop NAME: stops the sink's server (an outage); what it
// received stays.
// otlpsink wait NAME SIGNAL N: polls until the sink holds N records.
// otlpsink cmp NAME SIGNAL FILE [TIMES]: the sink holds exactly the
// records of FILE (OTLP/JSON), TIMES times, whatever their batching.
// otlpsink count NAME SIGNAL N: the sink holds exactly N records now.
// otlpsink sum SIGNAL N NAME...: polls until the sinks hold N records in
// all, and fails if they hold another number then.
// otlpsink grep NAME SIGNAL REGEXP: polls until a record (one span, data
// point or log record as OTLP/JSON with its resource) matches REGEXP.
func cmdOTLPSink(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: otlpsink start|stop|wait|cmp|count NAME ...")
	}
	switch args[0] {
	case "start":
		addr := "127.0.0.1:0"
		if len(args) > 2 && args[2] != "-" {
			addr = args[2]
		}
		var delay time.Duration
		if len(args) > 3 {
			var err error
			delay, err = time.ParseDuration(args[3])
			ts.Check(err)
		}
		l, err := net.Listen("tcp", addr)
		ts.Check(err)
		key := ts.Getenv("WORK") + "/" + args[1]
		sinksMu.Lock()
		s := sinks[key]
		if s == nil {
			s = &sink{}
			sinks[key] = s
		}
		sinksMu.Unlock()
		server := grpc.NewServer()
		s.mu.Lock()
		s.server, s.delay = server, delay
		s.mu.Unlock()
		ptraceotlp.RegisterGRPCServer(server, &traceSink{s: s})
		pmetricotlp.RegisterGRPCServer(server, &metricSink{s: s})
		plogotlp.RegisterGRPCServer(server, &logSink{s: s})
		go func() { _ = server.Serve(l) }()
		ts.Defer(server.Stop)
		ts.Setenv(args[1], l.Addr().String())
	case "stop":
		s := sinkFor(ts, args[1])
		s.mu.Lock()
		server := s.server
		s.mu.Unlock()
		server.Stop()
	case "wait":
		if len(args) != 4 {
			ts.Fatalf("usage: otlpsink wait NAME SIGNAL N")
		}
		want, err := strconv.Atoi(args[3])
		ts.Check(err)
		s := sinkFor(ts, args[1])
		deadline := time.Now().Add(waitLimit)
		for time.Now().Before(deadline) {
			if len(s.records(args[2])) >= want {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		ts.Fatalf("sink %s holds %d %s records, want %d", args[1], len(s.records(args[2])), args[2], want)
	case "grep":
		if len(args) != 4 {
			ts.Fatalf("usage: otlpsink grep NAME SIGNAL REGEXP")
		}
		re, err := regexp.Compile(args[3])
		ts.Check(err)
		s := sinkFor(ts, args[1])
		deadline := time.Now().Add(waitLimit)
		for {
			recs := s.records(args[2])
			if slices.ContainsFunc(recs, re.MatchString) {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("no %s record of sink %s matches %s; it holds %d:\n%s", args[2], args[1], args[3], len(recs), strings.Join(recs, "\n"))
			}
			time.Sleep(20 * time.Millisecond)
		}
	case "sum":
		if len(args) < 4 {
			ts.Fatalf("usage: otlpsink sum SIGNAL N NAME...")
		}
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		var ss []*sink
		for _, name := range args[3:] {
			ss = append(ss, sinkFor(ts, name))
		}
		total := func() int {
			n := 0
			for _, s := range ss {
				n += len(s.records(args[1]))
			}
			return n
		}
		deadline := time.Now().Add(waitLimit)
		for total() < want && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := total(); got != want {
			ts.Fatalf("sinks %v hold %d %s records in all, want %d", args[3:], got, args[1], want)
		}
	case "count":
		if len(args) != 4 {
			ts.Fatalf("usage: otlpsink count NAME SIGNAL N")
		}
		want, err := strconv.Atoi(args[3])
		ts.Check(err)
		if got := len(sinkFor(ts, args[1]).records(args[2])); (got == want) == neg {
			ts.Fatalf("sink %s holds %d %s records, want %d", args[1], got, args[2], want)
		}
	case "cmp":
		if len(args) < 4 || len(args) > 5 {
			ts.Fatalf("usage: otlpsink cmp NAME SIGNAL FILE [TIMES]")
		}
		times := 1
		if len(args) == 5 {
			var err error
			times, err = strconv.Atoi(args[4])
			ts.Check(err)
		}
		var want []string
		for i := 0; i < times; i++ {
			want = append(want, flattenFile(ts, args[2], readPayload(ts, args[3]))...)
		}
		slices.Sort(want)
		got := sinkFor(ts, args[1]).records(args[2])
		if slices.Equal(got, want) == neg {
			ts.Fatalf("sink %s %s differs from %s x%d:\ngot  %d records:\n%s\nwant %d records:\n%s",
				args[1], args[2], args[3], times, len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
		}
	default:
		ts.Fatalf("unknown otlpsink command %q", args[0])
	}
}

// readPayload reads FILE from $WORK, or from testdata/otlp when the name
// starts with "example:".
func readPayload(ts *testscript.TestScript, name string) []byte {
	if rest, ok := strings.CutPrefix(name, "example:"); ok {
		data, err := os.ReadFile(filepath.Join(otlpExamples(), rest))
		ts.Check(err)
		return data
	}
	return []byte(ts.ReadFile(name))
}

func flattenFile(ts *testscript.TestScript, signal string, data []byte) []string {
	switch signal {
	case "traces":
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(data)
		ts.Check(err)
		return flattenTraces(td)
	case "metrics":
		md, err := (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(data)
		ts.Check(err)
		return flattenMetrics(md)
	case "logs":
		ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(data)
		ts.Check(err)
		return flattenLogs(ld)
	}
	ts.Fatalf("unknown signal %q", signal)
	return nil
}

// flattenTraces returns one OTLP/JSON document per span, holding the span
// with its resource and scope, so that batches compare by content.
func flattenTraces(td ptrace.Traces) []string {
	var out []string
	m := &ptrace.JSONMarshaler{}
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, span := range ss.Spans().All() {
				one := ptrace.NewTraces()
				nrs := one.ResourceSpans().AppendEmpty()
				rs.Resource().CopyTo(nrs.Resource())
				nss := nrs.ScopeSpans().AppendEmpty()
				ss.Scope().CopyTo(nss.Scope())
				span.CopyTo(nss.Spans().AppendEmpty())
				b, _ := m.MarshalTraces(one)
				out = append(out, string(b))
			}
		}
	}
	return out
}

func flattenMetrics(md pmetric.Metrics) []string {
	var out []string
	m := &pmetric.JSONMarshaler{}
	for _, rm := range md.ResourceMetrics().All() {
		for _, sm := range rm.ScopeMetrics().All() {
			for _, metric := range sm.Metrics().All() {
				one := pmetric.NewMetrics()
				nrm := one.ResourceMetrics().AppendEmpty()
				rm.Resource().CopyTo(nrm.Resource())
				nsm := nrm.ScopeMetrics().AppendEmpty()
				sm.Scope().CopyTo(nsm.Scope())
				metric.CopyTo(nsm.Metrics().AppendEmpty())
				b, _ := m.MarshalMetrics(one)
				// One record per data point: repeat the metric's document.
				for i := 0; i < max(1, dataPoints(metric)); i++ {
					out = append(out, string(b))
				}
			}
		}
	}
	return out
}

func flattenLogs(ld plog.Logs) []string {
	var out []string
	m := &plog.JSONMarshaler{}
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, rec := range sl.LogRecords().All() {
				one := plog.NewLogs()
				nrl := one.ResourceLogs().AppendEmpty()
				rl.Resource().CopyTo(nrl.Resource())
				nsl := nrl.ScopeLogs().AppendEmpty()
				sl.Scope().CopyTo(nsl.Scope())
				rec.CopyTo(nsl.LogRecords().AppendEmpty())
				b, _ := m.MarshalLogs(one)
				out = append(out, string(b))
			}
		}
	}
	return out
}

// otlpsend grpc|http-proto|http-json SIGNAL FILE ADDR: sends FILE
// (OTLP/JSON, or example:NAME) with a real OTLP client. `! otlpsend`
// expects the send to be refused.
func cmdOTLPSend(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 4 {
		ts.Fatalf("usage: otlpsend grpc|http-proto|http-json traces|metrics|logs FILE ADDR")
	}
	proto, signal, addr := args[0], args[1], args[3]
	data := readPayload(ts, args[2])
	var err error
	switch proto {
	case "grpc":
		err = sendGRPC(signal, data, addr)
	case "http-proto", "http-json":
		err = sendHTTP(proto, signal, data, addr)
	default:
		ts.Fatalf("unknown protocol %q", proto)
	}
	if (err == nil) == neg {
		if neg {
			ts.Fatalf("otlpsend succeeded, want a refusal")
		}
		ts.Fatalf("otlpsend: %v", err)
	}
	if err != nil {
		fmt.Fprintln(ts.Stdout(), err)
	}
}

func sendGRPC(signal string, data []byte, addr string) error {
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch signal {
	case "traces":
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalJSON(data); err != nil {
			return err
		}
		_, err = ptraceotlp.NewGRPCClient(cc).Export(ctx, req)
	case "metrics":
		req := pmetricotlp.NewExportRequest()
		if err := req.UnmarshalJSON(data); err != nil {
			return err
		}
		_, err = pmetricotlp.NewGRPCClient(cc).Export(ctx, req)
	case "logs":
		req := plogotlp.NewExportRequest()
		if err := req.UnmarshalJSON(data); err != nil {
			return err
		}
		_, err = plogotlp.NewGRPCClient(cc).Export(ctx, req)
	default:
		return fmt.Errorf("unknown signal %q", signal)
	}
	return err
}

// otlpHTTPClient opens a connection per request: scripts restart flowlua
// on the same port, and a POST on a kept-alive connection the previous
// process closed fails with EOF (Go retries only idempotent requests).
var otlpHTTPClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

type otlpRequest interface {
	UnmarshalJSON([]byte) error
	MarshalProto() ([]byte, error)
}

func sendHTTP(proto, signal string, data []byte, addr string) error {
	var req otlpRequest
	path := map[string]string{"traces": "/v1/traces", "metrics": "/v1/metrics", "logs": "/v1/logs"}[signal]
	switch signal {
	case "traces":
		r := ptraceotlp.NewExportRequest()
		req = &r
	case "metrics":
		r := pmetricotlp.NewExportRequest()
		req = &r
	case "logs":
		r := plogotlp.NewExportRequest()
		req = &r
	default:
		return fmt.Errorf("unknown signal %q", signal)
	}
	body, contentType := data, "application/json"
	if proto == "http-proto" {
		if err := req.UnmarshalJSON(data); err != nil {
			body, contentType = data, "application/x-protobuf" // garbage stays garbage
		} else {
			b, err := req.MarshalProto()
			if err != nil {
				return err
			}
			body, contentType = b, "application/x-protobuf"
		}
	}
	resp, err := otlpHTTPClient.Post("http://"+addr+path, contentType, bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}

// dataPoints counts a metric's data points.
func dataPoints(m pmetric.Metric) int {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len()
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		return m.Histogram().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		return m.ExponentialHistogram().DataPoints().Len()
	case pmetric.MetricTypeSummary:
		return m.Summary().DataPoints().Len()
	}
	return 0
}
