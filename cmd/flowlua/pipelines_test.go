package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/twmb/franz-go/pkg/kfake"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Commands for the pipelines of the hosted components: a Kafka cluster in
// the test process, a Prometheus remote-write receiver, a generator of
// traces, file appends, and the questions asked of OTLP sinks.

func init() {
	scriptCmds["kfake"] = cmdKfake
	scriptCmds["rwsink"] = cmdRWSink
	scriptCmds["gentraces"] = cmdGenTraces
	scriptCmds["appendlines"] = cmdAppendLines
	scriptCmds["sinkdump"] = cmdSinkDump
	scriptCmds["sinkwait"] = cmdSinkWait
	scriptCmds["sinktraces"] = cmdSinkTraces
}

// kfake start NAME: starts an in-process Kafka cluster of one broker that
// creates topics on use, and sets $NAME to its address.
func cmdKfake(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[0] != "start" {
		ts.Fatalf("usage: kfake start NAME")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation())
	ts.Check(err)
	ts.Defer(c.Close)
	ts.Setenv(args[1], strings.Join(c.ListenAddrs(), ","))
}

// rwSink records the series a Prometheus remote-write receiver got, one
// line per sample: name{label="value",...} value.
type rwSink struct {
	mu     sync.Mutex
	series []string
}

var rwSinks sync.Map // "$WORK/name" → *rwSink

func (s *rwSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		http.Error(w, "snappy: "+err.Error(), http.StatusBadRequest)
		return
	}
	var req prompb.WriteRequest
	if err := req.Unmarshal(raw); err != nil {
		http.Error(w, "prompb: "+err.Error(), http.StatusBadRequest)
		return
	}
	var lines []string
	for _, ts := range req.Timeseries {
		name := ""
		var labels []string
		for _, l := range ts.Labels {
			if l.Name == "__name__" {
				name = l.Value
				continue
			}
			labels = append(labels, fmt.Sprintf("%s=%q", l.Name, l.Value))
		}
		slices.Sort(labels)
		for _, smp := range ts.Samples {
			lines = append(lines, fmt.Sprintf("%s{%s} %g", name, strings.Join(labels, ","), smp.Value))
		}
	}
	s.mu.Lock()
	s.series = append(s.series, lines...)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *rwSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.series, "\n")
}

// rwsink start NAME: starts a remote-write receiver (snappy-compressed
// prompb) and sets $NAME to its URL.
// rwsink wait NAME REGEXP...: polls until, for each REGEXP, a received
// sample (name{labels} value) matches it; the samples go to stdout.
func cmdRWSink(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: rwsink start|wait NAME ...")
	}
	key := ts.Getenv("WORK") + "/" + args[1]
	switch args[0] {
	case "start":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		s := &rwSink{}
		srv := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(l) }()
		ts.Defer(func() { _ = srv.Close() })
		rwSinks.Store(key, s)
		ts.Setenv(args[1], "http://"+l.Addr().String()+"/api/v1/write")
	case "wait":
		v, ok := rwSinks.Load(key)
		if !ok {
			ts.Fatalf("no rwsink %q", args[1])
		}
		s := v.(*rwSink)
		var res []*regexp.Regexp
		for _, p := range args[2:] {
			re, err := regexp.Compile("(?m)" + p)
			ts.Check(err)
			res = append(res, re)
		}
		deadline := time.Now().Add(waitLimit)
		for {
			text := s.text()
			missing := ""
			for _, re := range res {
				if !re.MatchString(text) {
					missing = re.String()
					break
				}
			}
			if missing == "" {
				fmt.Fprintln(ts.Stdout(), text)
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("rwsink %s got no sample matching %q within %s; it got:\n%s", args[1], missing, waitLimit, text)
			}
			time.Sleep(50 * time.Millisecond)
		}
	default:
		ts.Fatalf("unknown rwsink command %q", args[0])
	}
}

// gentraces FILE N SPANS [SERVICE]: writes to FILE (OTLP/JSON) N traces
// of SPANS spans each, with ids from a fixed seed.
func cmdGenTraces(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: gentraces FILE N SPANS [SERVICE]")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	spans, err := strconv.Atoi(args[2])
	ts.Check(err)
	service := "gen"
	if len(args) == 4 {
		service = args[3]
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(spans)))
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", service)
	ss := rs.ScopeSpans().AppendEmpty()
	now := time.Now()
	for i := 0; i < n; i++ {
		var tid pcommon.TraceID
		binary.BigEndian.PutUint64(tid[:8], rng.Uint64())
		binary.BigEndian.PutUint64(tid[8:], rng.Uint64())
		for j := 0; j < spans; j++ {
			sp := ss.Spans().AppendEmpty()
			sp.SetTraceID(tid)
			var sid pcommon.SpanID
			binary.BigEndian.PutUint64(sid[:], rng.Uint64())
			sp.SetSpanID(sid)
			sp.SetName(fmt.Sprintf("op-%d", j))
			sp.SetKind(ptrace.SpanKindServer)
			sp.SetStartTimestamp(pcommon.NewTimestampFromTime(now))
			sp.SetEndTimestamp(pcommon.NewTimestampFromTime(now.Add(time.Duration(j+1) * time.Millisecond)))
		}
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
}

// appendlines FILE LINE...: appends each LINE to FILE, creating it.
func cmdAppendLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: appendlines FILE LINE...")
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	ts.Check(err)
	var b bytes.Buffer
	for _, l := range args[1:] {
		b.WriteString(l + "\n")
	}
	_, err = f.Write(b.Bytes())
	ts.Check(err)
	ts.Check(f.Close())
}

// sinkdump NAME SIGNAL: writes the records an OTLP sink holds (one
// OTLP/JSON document per span, data point or log record) to stdout.
func cmdSinkDump(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sinkdump NAME SIGNAL")
	}
	for _, r := range sinkFor(ts, args[0]).records(args[1]) {
		fmt.Fprintln(ts.Stdout(), r)
	}
}

// sinkwait NAME SIGNAL REGEXP...: polls until, for each REGEXP, a record
// the OTLP sink holds (as sinkdump writes them) matches it.
func cmdSinkWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: sinkwait NAME SIGNAL REGEXP...")
	}
	s := sinkFor(ts, args[0])
	var res []*regexp.Regexp
	for _, p := range args[2:] {
		re, err := regexp.Compile("(?m)" + p)
		ts.Check(err)
		res = append(res, re)
	}
	deadline := time.Now().Add(waitLimit)
	for {
		text := strings.Join(s.records(args[1]), "\n")
		missing := ""
		for _, re := range res {
			if !re.MatchString(text) {
				missing = re.String()
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("sink %s holds no %s record matching %q within %s", args[0], args[1], missing, waitLimit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sinktraces N NAME...: polls until the OTLP sinks together hold N spans,
// then checks that every sink holds spans and that the spans of one trace
// are all in one sink; each sink's count goes to stdout.
func cmdSinkTraces(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: sinktraces N NAME...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	names := args[1:]
	owner := map[pcommon.TraceID]string{}
	counts := map[string]int{}
	scan := func() int {
		clear(owner)
		clear(counts)
		total := 0
		for _, name := range names {
			s := sinkFor(ts, name)
			s.mu.Lock()
			for _, td := range s.traces {
				for _, rs := range td.ResourceSpans().All() {
					for _, ss := range rs.ScopeSpans().All() {
						for _, sp := range ss.Spans().All() {
							counts[name]++
							total++
							if o, ok := owner[sp.TraceID()]; ok && o != name {
								s.mu.Unlock()
								ts.Fatalf("trace %s has spans in sink %s and in sink %s", sp.TraceID(), o, name)
							}
							owner[sp.TraceID()] = name
						}
					}
				}
			}
			s.mu.Unlock()
		}
		return total
	}
	deadline := time.Now().Add(waitLimit)
	for total := scan(); total < want; total = scan() {
		if time.Now().After(deadline) {
			ts.Fatalf("the sinks hold %d spans, want %d", total, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, name := range names {
		if counts[name] == 0 {
			ts.Fatalf("sink %s holds no spans", name)
		}
		fmt.Fprintf(ts.Stdout(), "%s: %d spans\n", name, counts[name])
	}
}
