package otelcol

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// A request that never reaches a handler (an unknown method: no stats.End
// is reported for it) still gives back what it held once its stream
// closes, so that such requests cannot exhaust the budget for good.
func TestGRPCAdmissionReleasesRequestsWithoutHandler(t *testing.T) {
	g := newGRPCAdmission(8<<20, 4<<20, nil)
	srv := grpc.NewServer(g.serverOptions()...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	cc, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()

	// Sequential calls: each must be admitted, since the one before it
	// gave its share back (a leak would refuse the third with Unavailable).
	for i := range 10 {
		var out []byte
		in := []byte("x")
		err := cc.Invoke(context.Background(), "/no.Such/Method", &in, &out, grpc.ForceCodec(bytesCodec{}))
		if code := status.Code(err); code != codes.Unimplemented {
			t.Fatalf("call %d: got %v, want Unimplemented", i, err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for g.a.inFlight.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("call %d: %d bytes still held after the stream closed", i, g.a.inFlight.Load())
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// While the budget is held, a new request is refused with Unavailable
// before its message is read; a lone request is always admitted.
func TestGRPCAdmissionRefusesPastTheBudget(t *testing.T) {
	g := newGRPCAdmission(8<<20, 4<<20, nil)
	first, ok := g.a.take(4 << 20)
	if !ok {
		t.Fatal("the first request was refused")
	}
	second, ok := g.a.take(4 << 20)
	if !ok {
		t.Fatal("the second request was refused within the budget")
	}
	if _, err := g.tap(context.Background(), nil); status.Code(err) != codes.Unavailable {
		t.Fatalf("tap past the budget: got %v, want Unavailable", err)
	}
	g.a.release(first + second)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := g.tap(ctx, nil); err != nil {
		t.Fatalf("tap with the budget free: %v", err)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for g.a.inFlight.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes held after the request's context ended", g.a.inFlight.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// bytesCodec sends and receives messages as the bytes they are.
type bytesCodec struct{}

func (bytesCodec) Marshal(v any) ([]byte, error)      { return *v.(*[]byte), nil }
func (bytesCodec) Unmarshal(data []byte, v any) error { *v.(*[]byte) = data; return nil }
func (bytesCodec) Name() string                       { return "flowlua-test-bytes" }
