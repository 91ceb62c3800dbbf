package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// The commands of the scripts on hostile OTLP (fault_deep_nesting.txtar,
// fault_concurrent_bodies.txtar): requests whose attribute nests
// arbitrarily deep, built here rather than committed (the deepest is tens
// of megabytes), concurrent large bodies, and the peak resident memory of
// the process that serves an address.

func init() {
	scriptCmds["otlpdeep"] = cmdOTLPDeep
	scriptCmds["otlpflood"] = cmdOTLPFlood
}

// deepTracesProto returns an ExportTraceServiceRequest of one span whose
// attribute "deep" is a value nested depth levels deep: depth-1 key-value
// lists of one pair each around a string. pdata (and any recursive
// encoder) would need as many levels of stack to build it: it is written
// backwards, innermost value first.
func deepTracesProto(depth int) []byte {
	b := make([]byte, 20*depth+256)
	pos := len(b)
	put := func(p []byte) { pos -= len(p); copy(b[pos:], p) }
	var scratch [16]byte
	putVarint := func(v uint64) { put(protowire.AppendVarint(scratch[:0], v)) }
	putLen := func(num protowire.Number, from int) { // wraps b[pos:from] as field num
		putVarint(uint64(from - pos))
		putVarint(protowire.EncodeTag(num, protowire.BytesType))
	}
	end := len(b)
	put([]byte("x"))
	putLen(1, end) // AnyValue{string_value = "x"}
	for range depth - 1 {
		value := len(b)
		putLen(2, value) // KeyValue.value
		put([]byte("k"))
		putLen(1, pos+1) // KeyValue.key
		putLen(1, value) // KeyValueList.values
		putLen(6, value) // AnyValue.kvlist_value
	}
	value := len(b)
	putLen(2, value) // KeyValue.value
	put([]byte("deep"))
	putLen(1, pos+4) // KeyValue.key
	putLen(9, value) // Span.attributes
	span := len(b)
	put([]byte("deep"))
	putLen(5, pos+4) // Span.name
	put(bytes.Repeat([]byte{2}, 8))
	putLen(2, pos+8) // Span.span_id
	put(bytes.Repeat([]byte{1}, 16))
	putLen(1, pos+16) // Span.trace_id
	putLen(2, span)   // ScopeSpans.spans
	putLen(2, span)   // ResourceSpans.scope_spans
	putLen(1, span)   // ExportTraceServiceRequest.resource_spans
	return b[pos:]
}

// deepTracesJSON returns the OTLP/JSON of the same request, the value
// nested as depth-1 arrays of one value each around a string (the
// smallest nesting JSON has).
func deepTracesJSON(depth int) []byte {
	var b bytes.Buffer
	b.Grow(28*depth + 256)
	fmt.Fprintf(&b, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":%q,"spanId":%q,"name":"deep","attributes":[{"key":"deep","value":`,
		hex.EncodeToString(bytes.Repeat([]byte{1}, 16)), hex.EncodeToString(bytes.Repeat([]byte{2}, 8)))
	for range depth - 1 {
		b.WriteString(`{"arrayValue":{"values":[`)
	}
	b.WriteString(`{"stringValue":"x"}`)
	for range depth - 1 {
		b.WriteString(`]}}`)
	}
	b.WriteString(`}]}]}]}]}`)
	return b.Bytes()
}

// otlpdeep grpc|http-proto|http-json DEPTH ADDR: sends a traces request
// whose span attribute nests DEPTH levels deep and prints the answer:
// "code=<gRPC code>" or "HTTP <status>", with the error message.
func cmdOTLPDeep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: otlpdeep grpc|http-proto|http-json DEPTH ADDR")
	}
	depth, err := strconv.Atoi(args[1])
	ts.Check(err)
	addr := args[2]
	switch args[0] {
	case "grpc":
		body := deepTracesProto(depth)
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallSendMsgSize(64<<20)))
		ts.Check(err)
		defer cc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var out []byte
		err = cc.Invoke(ctx, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", &body, &out)
		s := status.Convert(err)
		fmt.Fprintf(ts.Stdout(), "code=%s %s\n", s.Code(), s.Message())
	case "http-proto", "http-json":
		body, ct := deepTracesProto(depth), "application/x-protobuf"
		if args[0] == "http-json" {
			body, ct = deepTracesJSON(depth), "application/json"
		}
		c := &http.Client{Timeout: 20 * time.Second}
		resp, err := c.Post("http://"+addr+"/v1/traces", ct, bytes.NewReader(body))
		ts.Check(err)
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(ts.Stdout(), "HTTP %d %q\n", resp.StatusCode, msg)
	default:
		ts.Fatalf("unknown protocol %q", args[0])
	}
}

// floodBody returns an OTLP/HTTP protobuf traces request of about size
// bytes: spans whose attribute is a value nested 33 levels deep (the
// most flowlua takes: otlpwire.MaxDepth), which decodes into many times
// its size.
func floodBody(size int) []byte {
	one := deepTracesProto(33)
	// one is request{resource_spans{scope_spans{span}}}: repeating the
	// whole request concatenates resource_spans, still one valid request.
	return bytes.Repeat(one, max(1, size/len(one)))
}

// otlpflood [-grpc] N MIB ADDR: sends N OTLP traces requests of MIB MiB
// each to ADDR at once, over OTLP/HTTP (protobuf) or with -grpc over
// OTLP/gRPC, and prints how many were taken (200, OK) and how many
// refused as retryable (503 with a Retry-After header, Unavailable); it
// fails on any other answer.
func cmdOTLPFlood(ts *testscript.TestScript, neg bool, args []string) {
	useGRPC := len(args) > 0 && args[0] == "-grpc"
	if useGRPC {
		args = args[1:]
	}
	if neg || len(args) != 3 {
		ts.Fatalf("usage: otlpflood [-grpc] N MIB ADDR")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	mib, err := strconv.Atoi(args[1])
	ts.Check(err)
	body := floodBody(mib << 20)
	var (
		mu       sync.Mutex
		ok, busy int
		errs     []string
		wg       sync.WaitGroup
	)
	c := &http.Client{Timeout: 3 * time.Minute}
	var cc *grpc.ClientConn
	if useGRPC {
		cc, err = grpc.NewClient(args[2], grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallSendMsgSize(64<<20)))
		ts.Check(err)
		defer cc.Close()
	}
	for range n {
		if useGRPC {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				var out []byte
				err := cc.Invoke(ctx, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", &body, &out)
				mu.Lock()
				defer mu.Unlock()
				switch st := status.Convert(err); st.Code() {
				case codes.OK:
					ok++
				case codes.Unavailable:
					busy++
				default:
					errs = append(errs, st.String())
				}
			})
			continue
		}
		wg.Go(func() {
			resp, err := c.Post("http://"+args[2]+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err.Error())
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusOK:
				ok++
			case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
				busy++
			default:
				errs = append(errs, fmt.Sprintf("HTTP %d (Retry-After %q)", resp.StatusCode, resp.Header.Get("Retry-After")))
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		ts.Fatalf("unexpected answers: %s", strings.Join(errs, "; "))
	}
	fmt.Fprintf(ts.Stdout(), "ok=%d throttled=%d\n", ok, busy)
}
