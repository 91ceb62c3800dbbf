package sink_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/flowlua/flowlua/bench/internal/loadgen"
	"github.com/flowlua/flowlua/bench/internal/sink"
	"github.com/flowlua/flowlua/bench/internal/wire"
)

// TestLoadgenToSink sends every signal from the load generator to the sink
// and checks the sink counted exactly what was sent.
func TestLoadgenToSink(t *testing.T) {
	s := sink.New()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	defer s.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, sig := range wire.Signals {
		res, err := loadgen.Run(ctx, loadgen.Config{
			Addr: l.Addr().String(), Signal: sig, Workers: 3, Batch: 250, Items: 2000,
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Items != 2000 || res.Failed != 0 || res.Requests != 8 {
			t.Fatalf("%s: %+v", sig, res)
		}
		if got := s.Counts().Get(sig); got != 2000 {
			t.Fatalf("%s: sink counted %d, want 2000", sig, got)
		}
	}

	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/count", nil))
	var c sink.Counts
	if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if c.Traces != 2000 || c.Metrics != 2000 || c.Logs != 2000 || c.Requests != 24 || c.Errors != 0 {
		t.Fatalf("counts %+v", c)
	}
}

// TestLoadgenDuration checks a time-bounded run stops on time and reports no
// failures for calls cut short by the deadline.
func TestLoadgenDuration(t *testing.T) {
	s := sink.New()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	defer s.Stop()
	start := time.Now()
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		Addr: l.Addr().String(), Signal: wire.Logs, Workers: 2, Batch: 100, Duration: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("run took %v", d)
	}
	if res.Items == 0 || res.Failed != 0 {
		t.Fatalf("%+v", res)
	}
	// Calls cut short by the deadline may still have reached the sink: up to
	// one batch per worker more than reported.
	if got := s.Counts().Logs; got < res.Items || got > res.Items+2*100 {
		t.Fatalf("sink counted %d, loadgen sent %d", got, res.Items)
	}
}

// TestLoadgenRate checks the rate cap: 3000 items at 10000 items/s take
// about 0.3 s.
func TestLoadgenRate(t *testing.T) {
	s := sink.New()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	defer s.Stop()
	res, err := loadgen.Run(context.Background(), loadgen.Config{
		Addr: l.Addr().String(), Signal: wire.Traces, Workers: 2, Batch: 100, Items: 3000, Rate: 10000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 3000 || res.Seconds < 0.2 || res.Seconds > 2 {
		t.Fatalf("%+v", res)
	}
}
