package otlpcodec

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// wire is an OTLP request as the codec sees it (what pdata's gRPC client
// and server hand to the codec) and as proto bytes.
type wire struct {
	name  string
	proto func() ([]byte, error)
	// orig is the pdata message behind the request, and fresh an empty one
	// of the same type.
	orig, fresh func() any
}

// examples reads the upstream OTLP/JSON example requests.
func examples(t *testing.T) []wire {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "otlp", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tr := ptraceotlp.NewExportRequest()
	if err := tr.UnmarshalJSON(read("trace.json")); err != nil {
		t.Fatal(err)
	}
	mr := pmetricotlp.NewExportRequest()
	if err := mr.UnmarshalJSON(read("metrics.json")); err != nil {
		t.Fatal(err)
	}
	lr := plogotlp.NewExportRequest()
	if err := lr.UnmarshalJSON(read("logs.json")); err != nil {
		t.Fatal(err)
	}
	return []wire{
		{"traces", tr.MarshalProto, func() any { return origOf(t, tr) }, func() any { return origOf(t, ptraceotlp.NewExportRequest()) }},
		{"metrics", mr.MarshalProto, func() any { return origOf(t, mr) }, func() any { return origOf(t, pmetricotlp.NewExportRequest()) }},
		{"logs", lr.MarshalProto, func() any { return origOf(t, lr) }, func() any { return origOf(t, plogotlp.NewExportRequest()) }},
	}
}

// origOf returns the message pdata's gRPC client passes to the codec for
// req (the internal request behind it), caught by an interceptor before
// anything is sent.
func origOf(t *testing.T, req any) any {
	t.Helper()
	var got any
	catch := func(_ context.Context, _ string, args, _ any, _ *grpc.ClientConn, _ grpc.UnaryInvoker, _ ...grpc.CallOption) error {
		got = args
		return nil
	}
	conn, err := grpc.NewClient("passthrough:///nowhere",
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithUnaryInterceptor(catch))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	switch r := req.(type) {
	case ptraceotlp.ExportRequest:
		_, _ = ptraceotlp.NewGRPCClient(conn).Export(t.Context(), r)
	case pmetricotlp.ExportRequest:
		_, _ = pmetricotlp.NewGRPCClient(conn).Export(t.Context(), r)
	case plogotlp.ExportRequest:
		_, _ = plogotlp.NewGRPCClient(conn).Export(t.Context(), r)
	}
	if got == nil {
		t.Fatal("the client passed nothing to the connection")
	}
	return got
}

func TestRegisteredAsProto(t *testing.T) {
	if c, ok := encoding.GetCodecV2("proto").(*Codec); !ok {
		t.Fatalf(`codec "proto" is %T, not this package's`, encoding.GetCodecV2("proto"))
	} else if c.fallback == nil {
		t.Fatal("no fallback codec")
	}
}

// TestRoundTrip encodes the upstream examples as gRPC would, compares the
// bytes with pdata's own encoding, and decodes them from one buffer and
// from many (a message read in several frames), over pooled buffers that
// earlier use left full of garbage.
func TestRoundTrip(t *testing.T) {
	c := encoding.GetCodecV2("proto")
	dirty(t)
	for _, w := range examples(t) {
		t.Run(w.name, func(t *testing.T) {
			want, err := w.proto()
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Marshal(w.orig())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Materialize(), want) {
				t.Fatalf("Marshal differs from pdata's encoding:\n got %x\nwant %x", got.Materialize(), want)
			}
			got.Free()
			for _, parts := range []int{1, 2, 7} {
				msg := w.fresh()
				if err := c.Unmarshal(split(want, parts), msg); err != nil {
					t.Fatalf("%d buffers: %v", parts, err)
				}
				again, err := c.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(again.Materialize(), want) {
					t.Fatalf("%d buffers: the decoded message encodes differently", parts)
				}
				again.Free()
			}
		})
	}
}

// TestLargeBatchFromPool marshals a batch above the pooling threshold
// twice through a dirtied pool: both encodings are pdata's.
func TestLargeBatchFromPool(t *testing.T) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range 2000 {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(fmt.Sprintf("span-%d", i))
		sp.Attributes().PutStr("user.email", "someone@example.com")
	}
	req := ptraceotlp.NewExportRequestFromTraces(td)
	want, err := req.MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	if mem.IsBelowBufferPoolingThreshold(len(want)) {
		t.Fatalf("%d bytes is not above the pooling threshold", len(want))
	}
	c := encoding.GetCodecV2("proto")
	orig := origOf(t, req)
	for i := range 2 {
		dirty(t)
		got, err := c.Marshal(orig)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Materialize(), want) {
			t.Fatalf("encoding %d differs from pdata's", i)
		}
		got.Free()
	}
}

// TestFallback passes messages that are not OTLP to the codec registered
// before this one.
func TestFallback(t *testing.T) {
	c := encoding.GetCodecV2("proto")
	b, err := c.Marshal(wrapperspb.String("hello"))
	if err != nil {
		t.Fatal(err)
	}
	var got wrapperspb.StringValue
	if err := c.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.GetValue() != "hello" {
		t.Fatalf("got %q", got.GetValue())
	}
}

// TestBadInput gets an error, not a panic, for a truncated message.
func TestBadInput(t *testing.T) {
	w := examples(t)[0]
	want, err := w.proto()
	if err != nil {
		t.Fatal(err)
	}
	c := encoding.GetCodecV2("proto")
	if err := c.Unmarshal(split(want[:len(want)-3], 3), w.fresh()); err == nil {
		t.Fatal("a truncated request decoded without error")
	}
}

func TestPoolTiers(t *testing.T) {
	for _, tc := range []struct{ size, capacity int }{
		{1, 1 << minShift}, {1 << minShift, 1 << minShift}, {1<<minShift + 1, 1 << (minShift + 1)},
		{3 << 20, 4 << 20}, {1 << maxShift, 1 << maxShift}, {1<<maxShift + 1, 1<<maxShift + 1},
	} {
		b := pool.Get(tc.size)
		if len(*b) != tc.size || cap(*b) != tc.capacity {
			t.Errorf("Get(%d): len %d cap %d, want cap %d", tc.size, len(*b), cap(*b), tc.capacity)
		}
		pool.Put(b)
	}
}

// dirty fills buffers of every tier the tests use with 0xff and returns
// them to the pool.
func dirty(t *testing.T) {
	t.Helper()
	for shift := minShift; shift <= 22; shift++ {
		b := pool.Get(1 << shift)
		for i := range *b {
			(*b)[i] = 0xff
		}
		pool.Put(b)
	}
}

// split cuts b into n buffers, as gRPC hands over a message read in
// several frames.
func split(b []byte, n int) mem.BufferSlice {
	var s mem.BufferSlice
	size := (len(b) + n - 1) / n
	for len(b) > 0 {
		k := min(size, len(b))
		s = append(s, mem.SliceBuffer(bytes.Clone(b[:k])))
		b = b[k:]
	}
	return s
}

// TestOverGRPC sends a request of many frames and the upstream example
// through a real gRPC client and server: the server gets what was sent.
func TestOverGRPC(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	got := make(chan ptrace.Traces, 1)
	ptraceotlp.RegisterGRPCServer(srv, &server{got: got})
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := ptraceotlp.NewGRPCClient(conn)

	large := ptrace.NewTraces()
	ss := large.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for i := range 3000 {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(fmt.Sprintf("span-%d", i))
		sp.Attributes().PutStr("user.email", "someone@example.com")
		sp.Attributes().PutInt("n", int64(i))
	}
	example := ptraceotlp.NewExportRequest()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "otlp", "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := example.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	var m ptrace.JSONMarshaler
	for _, td := range []ptrace.Traces{large, example.Traces()} {
		dirty(t)
		if _, err := client.Export(t.Context(), ptraceotlp.NewExportRequestFromTraces(td)); err != nil {
			t.Fatal(err)
		}
		want, _ := m.MarshalTraces(td)
		have, _ := m.MarshalTraces(<-got)
		if !bytes.Equal(have, want) {
			t.Fatalf("the server got other traces than were sent (%d spans sent)", td.SpanCount())
		}
	}
}

type server struct {
	ptraceotlp.UnimplementedGRPCServer
	got chan<- ptrace.Traces
}

func (s *server) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.got <- req.Traces()
	return ptraceotlp.NewExportResponse(), nil
}
