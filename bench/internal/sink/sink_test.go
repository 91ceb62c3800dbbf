package sink_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/flowlua/flowlua/bench/internal/loadgen"
	"github.com/flowlua/flowlua/bench/internal/sink"
	"github.com/flowlua/flowlua/bench/internal/wire"
)

// TestLoadgenToSink sends every signal from the load generator to the sink
// and checks the sink counted exactly what was sent.
func TestLoadgenToSink(t *testing.T) {
	s := sink.New(sink.DefaultWindow)
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
	s := sink.New(sink.DefaultWindow)
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
	s := sink.New(sink.DefaultWindow)
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

// TestWindow reads the sink's first HTTP/2 frames: with a window, its
// SETTINGS announce it for every stream and a WINDOW_UPDATE raises the
// connection's to it; with 0, the sink keeps gRPC's defaults (64 KiB, grown
// by gRPC as data flows).
func TestWindow(t *testing.T) {
	for _, window := range []int32{0, sink.DefaultWindow} {
		s := sink.New(window)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = s.Serve(l) }()
		conn, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
			t.Fatal(err)
		}
		fr := http2.NewFramer(conn, conn)
		if err := fr.WriteSettings(); err != nil {
			t.Fatal(err)
		}
		streamWindow, connWindow := uint32(65535), uint32(65535)
		for settled := false; !settled; {
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatalf("window %d: %v", window, err)
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if f.IsAck() {
					settled = true // the server has sent what it sends first
					break
				}
				if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
					streamWindow = v
				}
				if err := fr.WriteSettingsAck(); err != nil {
					t.Fatal(err)
				}
			case *http2.WindowUpdateFrame:
				if f.StreamID == 0 {
					connWindow += f.Increment
				}
			}
		}
		conn.Close()
		s.Stop()
		want := uint32(65535)
		if window > 0 {
			want = uint32(window)
		}
		if streamWindow != want || connWindow != want {
			t.Errorf("window %d: stream window %d, connection window %d; want %d", window, streamWindow, connWindow, want)
		}
	}
}

// TestCheckWindow checks the windows New accepts: gRPC ignores a fixed
// window under 64 KiB, so one would silently be the dynamic window.
func TestCheckWindow(t *testing.T) {
	for window, ok := range map[int]bool{0: true, 1: false, 65534: false, 65535: true, sink.DefaultWindow: true, -1: false, 1 << 31: false} {
		if err := sink.CheckWindow(window); (err == nil) != ok {
			t.Errorf("CheckWindow(%d) = %v, want ok %v", window, err, ok)
		}
	}
}
