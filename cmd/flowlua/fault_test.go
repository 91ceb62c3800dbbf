package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/status"
)

// The commands of the fault scripts (fault_*.txtar): numbered spans sent
// in bulk or as a steady load, raw and oversized OTLP requests, reloads
// in a loop and reads of /metrics.

func init() {
	scriptCmds["otlpspans"] = cmdOTLPSpans
	scriptCmds["otlpload"] = cmdOTLPLoad
	scriptCmds["otlpbad"] = cmdOTLPBad
	scriptCmds["metric"] = cmdMetric
	scriptCmds["reloads"] = cmdReloads
}

// numberedSpans returns a batch of n spans named span-<from>...; every
// span of a script is distinct, so that a sink's count shows both losses
// and duplicates.
func numberedSpans(from, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "fault")
	ss := rs.ScopeSpans().AppendEmpty()
	for i := from; i < from+n; i++ {
		s := ss.Spans().AppendEmpty()
		s.SetName(fmt.Sprintf("span-%d", i))
		var tid [16]byte
		var sid [8]byte
		copy(tid[:], fmt.Sprintf("%016d", i))
		copy(sid[:], fmt.Sprintf("%08d", i%100000000))
		s.SetTraceID(tid)
		s.SetSpanID(sid)
	}
	return td
}

// sendSpans sends td over OTLP/gRPC on cc.
func sendSpans(cc *grpc.ClientConn, td ptrace.Traces) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := ptraceotlp.NewGRPCClient(cc).Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
	return err
}

// otlpspans ADDR N [PER] [FROM]: sends N numbered spans over OTLP/gRPC, PER
// (default 10) a request, numbered from FROM (default 0); every request
// must be acknowledged.
func cmdOTLPSpans(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 4 {
		ts.Fatalf("usage: otlpspans ADDR N [PER] [FROM]")
	}
	nums := []int{0, 10, 0}
	for i, a := range args[1:] {
		n, err := strconv.Atoi(a)
		ts.Check(err)
		nums[i] = n
	}
	total, per, from := nums[0], nums[1], nums[2]
	cc, err := grpc.NewClient(args[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	ts.Check(err)
	defer cc.Close()
	for sent := 0; sent < total; sent += per {
		if err := sendSpans(cc, numberedSpans(from+sent, min(per, total-sent))); err != nil {
			ts.Fatalf("after %d spans: %v", sent, err)
		}
	}
}

// load sends numbered spans in a loop and counts those acknowledged.
type load struct {
	stop  chan struct{}
	done  chan struct{}
	acked atomic.Int64
	sent  atomic.Int64
}

var loadsMu sync.Mutex
var loads = map[string]*load{} // by "$WORK/name"

// otlpload start NAME ADDR [PER]: sends numbered spans to ADDR over
// OTLP/gRPC, PER (default 10) a request, one request after the other until
// stopped; refused requests are not retried.
// otlpload stop NAME: stops it and sets $NAME to the number of spans
// acknowledged (the receiver took responsibility for them).
func cmdOTLPLoad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: otlpload start NAME ADDR [PER] | otlpload stop NAME")
	}
	key := ts.Getenv("WORK") + "/" + args[1]
	switch args[0] {
	case "start":
		if len(args) < 3 || len(args) > 4 {
			ts.Fatalf("usage: otlpload start NAME ADDR [PER]")
		}
		per := 10
		if len(args) == 4 {
			var err error
			per, err = strconv.Atoi(args[3])
			ts.Check(err)
		}
		cc, err := grpc.NewClient(args[2], grpc.WithTransportCredentials(insecure.NewCredentials()))
		ts.Check(err)
		l := &load{stop: make(chan struct{}), done: make(chan struct{})}
		go func() {
			defer close(l.done)
			defer cc.Close()
			for next := 0; ; {
				select {
				case <-l.stop:
					return
				default:
				}
				l.sent.Add(int64(per))
				if sendSpans(cc, numberedSpans(next, per)) == nil {
					l.acked.Add(int64(per))
					next += per // a refused batch's numbers are used again
				}
			}
		}()
		ts.Defer(func() {
			select {
			case <-l.stop:
			default:
				close(l.stop)
			}
			<-l.done
		})
		loadsMu.Lock()
		loads[key] = l
		loadsMu.Unlock()
	case "stop":
		loadsMu.Lock()
		l := loads[key]
		delete(loads, key)
		loadsMu.Unlock()
		if l == nil {
			ts.Fatalf("no load %q", args[1])
		}
		close(l.stop)
		<-l.done
		ts.Setenv(args[1], strconv.FormatInt(l.acked.Load(), 10))
		fmt.Fprintf(ts.Stdout(), "%s: %d spans acknowledged of %d sent\n", args[1], l.acked.Load(), l.sent.Load())
		if l.acked.Load() == 0 {
			ts.Fatalf("load %s: no span acknowledged", args[1])
		}
	default:
		ts.Fatalf("unknown otlpload command %q", args[0])
	}
}

// rawCodec sends bytes as they are, so that a client can send what is
// not a protobuf message.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

// otlpbad grpc|http garbage|oversized:KIB ADDR: sends a traces request
// that is not OTLP (garbage) or valid OTLP of KIB KiB (oversized: larger
// than the receiver takes) and prints how it was refused: "code=<gRPC
// code>" or "HTTP <status>". It fails if the request was accepted.
func cmdOTLPBad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: otlpbad grpc|http garbage|oversized:KIB ADDR")
	}
	var body []byte
	if kib, ok := strings.CutPrefix(args[1], "oversized:"); ok {
		n, err := strconv.Atoi(kib)
		ts.Check(err)
		td := numberedSpans(0, 1)
		span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
		span.Attributes().PutStr("big", strings.Repeat("x", n<<10))
		body, err = ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
		ts.Check(err)
	} else if args[1] == "garbage" {
		body = []byte("\xff\xff\xff\xff this is not OTLP")
	} else {
		ts.Fatalf("unknown payload %q", args[1])
	}
	switch args[0] {
	case "grpc":
		cc, err := grpc.NewClient(args[2], grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallSendMsgSize(64<<20)))
		ts.Check(err)
		defer cc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out []byte
		err = cc.Invoke(ctx, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", &body, &out)
		if err == nil {
			ts.Fatalf("the %s request was accepted", args[1])
		}
		fmt.Fprintf(ts.Stdout(), "code=%s\n", status.Code(err))
	case "http":
		// A server that refuses a body at its size limit answers and
		// closes while the client may still be writing the rest (the
		// collector's server does the same): the client then sees the
		// connection reset instead of the answer. Ask again, a bounded
		// number of times, for the answer itself.
		var resp *http.Response
		var err error
		for range 5 {
			resp, err = client.Post("http://"+args[2]+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
			if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
				break
			}
		}
		ts.Check(err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			ts.Fatalf("the %s request was accepted", args[1])
		}
		fmt.Fprintf(ts.Stdout(), "HTTP %d\n", resp.StatusCode)
	default:
		ts.Fatalf("unknown protocol %q", args[0])
	}
}

// readMetric returns the value of SERIES (a name, or a name with its
// labels as /metrics writes them: name{a="1",b="2"}) at URL; a series
// that is absent reads as 0, as a counter that never counted.
func readMetric(url, series string) (float64, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: status %d", url, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || line[:i] != series {
			continue
		}
		return strconv.ParseFloat(line[i+1:], 64)
	}
	return 0, sc.Err()
}

// metric get URL SERIES VAR: sets $VAR to SERIES's value.
// metric wait URL SERIES OP VALUE: polls until SERIES OP VALUE holds
// (OP: == >= <= > <).
// metric bound URL SERIES BASE FACTOR SLACK: polls until SERIES is at
// most BASE*FACTOR+SLACK (a resource back to where it was, give or take).
func cmdMetric(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: metric get|wait|bound URL SERIES ...")
	}
	url, series := args[1], args[2]
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		ts.Check(err)
		return f
	}
	var holds func(v float64) bool
	var want string
	switch args[0] {
	case "get":
		if len(args) != 4 {
			ts.Fatalf("usage: metric get URL SERIES VAR")
		}
		v, err := readMetric(url, series)
		ts.Check(err)
		ts.Setenv(args[3], strconv.FormatFloat(v, 'f', -1, 64))
		fmt.Fprintf(ts.Stdout(), "%s %g\n", series, v)
		return
	case "wait":
		if len(args) != 5 {
			ts.Fatalf("usage: metric wait URL SERIES OP VALUE")
		}
		x := num(args[4])
		ops := map[string]func(v float64) bool{
			"==": func(v float64) bool { return v == x },
			">=": func(v float64) bool { return v >= x },
			"<=": func(v float64) bool { return v <= x },
			">":  func(v float64) bool { return v > x },
			"<":  func(v float64) bool { return v < x },
		}
		holds = ops[args[3]]
		if holds == nil {
			ts.Fatalf("unknown operator %q", args[3])
		}
		want = args[3] + " " + args[4]
	case "bound":
		if len(args) != 6 {
			ts.Fatalf("usage: metric bound URL SERIES BASE FACTOR SLACK")
		}
		limit := num(args[3])*num(args[4]) + num(args[5])
		holds = func(v float64) bool { return v <= limit }
		want = fmt.Sprintf("<= %g (%s*%s+%s)", limit, args[3], args[4], args[5])
	default:
		ts.Fatalf("unknown metric command %q", args[0])
	}
	deadline := time.Now().Add(waitLimit)
	var last float64
	var err error
	for time.Now().Before(deadline) {
		last, err = readMetric(url, series)
		if err == nil && holds(last) {
			fmt.Fprintf(ts.Stdout(), "%s %g\n", series, last)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		ts.Fatalf("%s: %v", series, err)
	}
	ts.Fatalf("%s = %g, want %s within %s", series, last, want, waitLimit)
}

// reloads N URL FILE A B: writes A and B to FILE in turn, N times, each
// followed by POST URL (a reload) that must succeed.
func cmdReloads(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: reloads N URL FILE A B")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	versions := []string{ts.ReadFile(args[3]), ts.ReadFile(args[4])}
	file := ts.MkAbs(args[2])
	for i := 0; i < n; i++ {
		ts.Check(os.WriteFile(file, []byte(versions[i%2]), 0o644))
		resp, err := client.Post(args[1], "text/plain", nil)
		if err != nil {
			ts.Fatalf("reload %d: %v", i+1, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			ts.Fatalf("reload %d: status %d: %s", i+1, resp.StatusCode, body)
		}
	}
}
