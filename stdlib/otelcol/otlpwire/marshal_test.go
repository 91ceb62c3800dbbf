package otlpwire

import (
	"bytes"
	"net"
	"reflect"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/pdata/testdata"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
)

// messageOf returns the protobuf message a pdata export request wraps:
// what gRPC hands the codec to encode.
func messageOf(req any) any {
	v := reflect.ValueOf(req).Field(0)
	return reflect.NewAt(v.Type().Elem(), v.UnsafePointer()).Interface()
}

// TestMarshalGuessed encodes requests of growing and shrinking sizes with
// the codec and requires pdata's bytes every time, whether the codec
// guessed the size or had to size the request (the first one of a type,
// and each one longer than the guess).
func TestMarshalGuessed(t *testing.T) {
	codec, err := NewGRPCCodec(encoding.GetCodecV2("proto"), true)
	if err != nil {
		t.Fatal(err)
	}
	type request struct {
		signal string
		msg    any
		want   []byte
	}
	traces := func(n int) request {
		td := testdata.GenerateTraces(n)
		b, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		return request{"traces", messageOf(ptraceotlp.NewExportRequestFromTraces(td)), b}
	}
	metrics := func(n int) request {
		md := testdata.GenerateMetrics(n)
		b, _ := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		return request{"metrics", messageOf(pmetricotlp.NewExportRequestFromMetrics(md)), b}
	}
	logs := func(n int) request {
		ld := testdata.GenerateLogs(n)
		b, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		return request{"logs", messageOf(plogotlp.NewExportRequestFromLogs(ld)), b}
	}
	// Sizes: the first is sized; the same again and smaller ones fit the
	// guess; a much larger one does not (sized), then fits.
	var reqs []request
	for _, gen := range []func(int) request{traces, metrics, logs} {
		for _, n := range []int{10, 10, 3, 1, 0, 500, 500, 20} {
			reqs = append(reqs, gen(n))
		}
	}
	reqs = append(reqs, metrics(1), request{"metrics", messageOf(pmetricotlp.NewExportRequestFromMetrics(testdata.GenerateMetricsAllTypes())), nil})
	if b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(testdata.GenerateMetricsAllTypes()); err == nil {
		reqs[len(reqs)-1].want = b
	}
	for i, r := range reqs {
		st := codec.MarshalStatsOf(r.signal)
		before := st.Guessed.Load() + st.Sized.Load()
		out, err := codec.Marshal(r.msg)
		if err != nil {
			t.Fatal(err)
		}
		got := out.Materialize()
		out.Free()
		if !bytes.Equal(got, r.want) {
			t.Fatalf("request %d (%s, %d bytes): the codec wrote %d different bytes", i, r.signal, len(r.want), len(got))
		}
		if after := st.Guessed.Load() + st.Sized.Load(); after != before+1 {
			t.Fatalf("request %d counted %d times", i, after-before)
		}
	}
	for _, s := range []string{"traces", "metrics", "logs"} {
		st := codec.MarshalStatsOf(s)
		// The first request of a type and the jump to 500 items are
		// sized; the rest fit the guess.
		if st.Sized.Load() < 2 || st.Guessed.Load() < 5 {
			t.Errorf("%s: %d guessed, %d sized: want at least 5 and 2", s, st.Guessed.Load(), st.Sized.Load())
		}
	}
	if codec.MarshalStatsOf("profiles") != nil {
		t.Error("stats for an unknown signal")
	}
}

// TestMarshalOff checks that with the fast path off the codec leaves
// encoding to the codec it wraps.
func TestMarshalOff(t *testing.T) {
	codec, err := NewGRPCCodec(encoding.GetCodecV2("proto"), false)
	if err != nil {
		t.Fatal(err)
	}
	td := testdata.GenerateTraces(5)
	want, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	out, err := codec.Marshal(messageOf(ptraceotlp.NewExportRequestFromTraces(td)))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Materialize(); !bytes.Equal(got, want) {
		t.Fatal("different bytes")
	}
	if st := codec.MarshalStatsOf("traces"); st.Guessed.Load()+st.Sized.Load() != 0 {
		t.Fatal("the fast path encoded with the fast path off")
	}
}

// TestMarshalThroughGRPC sends requests through a real gRPC client that
// encodes with the codec (as an OTLP exporter does once it is installed)
// to a server that decodes with gRPC's own, and requires that the server
// receives exactly what was sent, large and small, in turn.
func TestMarshalThroughGRPC(t *testing.T) {
	codec, err := NewGRPCCodec(encoding.GetCodecV2("proto"), true)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	srv := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(srv, &sink{got: got})
	plogotlp.RegisterGRPCServer(srv, &logSink{got: got})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	for _, n := range []int{1, 300, 300, 2, 1000, 7} {
		td := testdata.GenerateTraces(n)
		want, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		if _, err := ptraceotlp.NewGRPCClient(conn).Export(t.Context(), ptraceotlp.NewExportRequestFromTraces(td)); err != nil {
			t.Fatal(err)
		}
		if b := <-got; !bytes.Equal(b, want) {
			t.Fatalf("%d spans: the server received different data", n)
		}
		ld := testdata.GenerateLogs(n)
		want, _ = (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		if _, err := plogotlp.NewGRPCClient(conn).Export(t.Context(), plogotlp.NewExportRequestFromLogs(ld)); err != nil {
			t.Fatal(err)
		}
		if b := <-got; !bytes.Equal(b, want) {
			t.Fatalf("%d log records: the server received different data", n)
		}
	}
	if st := codec.MarshalStatsOf("traces"); st.Guessed.Load() == 0 {
		t.Fatal("no request was written into a guessed buffer")
	}
}

// TestGuessedCapacity checks that a guess never asks for a buffer of a
// larger tier than the guess itself needs.
func TestGuessedCapacity(t *testing.T) {
	for _, c := range []struct{ guess, want int }{
		{100, 100 + 12 + 64},
		{250, 256},
		{4000, 4096},
		{300 << 10, 300<<10 + 300<<7 + 64},
		{(4 << 20) - 1000, 4 << 20},
		{20 << 20, 20<<20 + 20<<17 + 64},
	} {
		if got := guessedCapacity(c.guess); got != c.want {
			t.Errorf("guessedCapacity(%d) = %d, want %d", c.guess, got, c.want)
		}
	}
}

// TestBufferTiers checks the pool's tiers: sorted, none more than half
// as large again as the one before from 16 KiB on, up to 64 MiB; a buffer
// comes back from its tier with the length asked for, and one larger than
// every tier is made to measure and not kept.
func TestBufferTiers(t *testing.T) {
	if bufferTiers[len(bufferTiers)-1] != 64<<20 {
		t.Fatalf("largest tier %d", bufferTiers[len(bufferTiers)-1])
	}
	for i := 3; i < len(bufferTiers); i++ {
		if prev, cur := bufferTiers[i-1], bufferTiers[i]; cur <= prev || 2*cur > 3*prev {
			t.Fatalf("tiers %d then %d", prev, cur)
		}
	}
	const small = 16 << 10 // below it, tiers are 256 B, 4 KiB and 16 KiB
	for _, size := range []int{0, 1, 256, 257, 5000, 300 << 10, 4<<20 + 1, 64 << 20} {
		b := bufferPool.Get(size)
		if len(*b) != size || cap(*b) < size || (size > small && 2*cap(*b) > 3*size) {
			t.Fatalf("Get(%d): len %d cap %d", size, len(*b), cap(*b))
		}
		bufferPool.Put(b)
	}
	if b := bufferPool.Get(64<<20 + 1); cap(*b) != 64<<20+1 {
		t.Fatalf("a buffer beyond the tiers has capacity %d", cap(*b))
	}
}
