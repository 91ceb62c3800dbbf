// Package sink is a counting OTLP/gRPC server: it accepts trace, metric and
// log exports, counts their spans, data points and log records without
// decoding them into pdata, and answers every export with success.
package sink

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip-compressed exports too
	"google.golang.org/grpc/status"

	"github.com/flowlua/flowlua/bench/internal/wire"
)

// MaxRecvMsgSize bounds one received export; a batch processor with
// send_batch_size 8192 and no max size sends batches above 4 MiB, gRPC's
// default limit.
const MaxRecvMsgSize = 256 << 20

// DefaultWindow is the sink's HTTP/2 flow-control window (per stream and
// per connection) unless New is given another. A backend on its own
// machine grows gRPC's dynamic window (64 KiB at first) within a few round
// trips; the sink shares a CPU with the load generator, so each of those
// round trips waited for a busy CPU, and how long the first exports took
// decided how much the system under test queued at start: from one
// repetition to the next, the peak RSS of the same system varied by up to
// 2.5x. A fixed window above the largest batch takes that out.
const DefaultWindow = 16 << 20

// minWindow is the smallest window gRPC applies; it keeps its dynamic
// window for anything below (HTTP/2's initial 64 KiB).
const minWindow = 65535

// CheckWindow reports whether window can be given to New: 0 (gRPC's
// dynamic window) or a fixed one from 64 KiB to the largest int32.
func CheckWindow(window int) error {
	if window != 0 && (window < minWindow || window > math.MaxInt32) {
		return fmt.Errorf("window %d: want 0 (gRPC's dynamic window) or %d to %d bytes", window, minWindow, math.MaxInt32)
	}
	return nil
}

// Counts is a snapshot of what the sink received.
type Counts struct {
	Traces   int64 `json:"traces"`
	Metrics  int64 `json:"metrics"`
	Logs     int64 `json:"logs"`
	Requests int64 `json:"requests"`
	Errors   int64 `json:"errors"`
}

// Get returns the count of signal s.
func (c Counts) Get(s wire.Signal) int64 {
	switch s {
	case wire.Traces:
		return c.Traces
	case wire.Metrics:
		return c.Metrics
	case wire.Logs:
		return c.Logs
	}
	return 0
}

// Sink counts received items; the zero value is not usable, use New.
type Sink struct {
	items    [3]atomic.Int64 // indexed like wire.Signals
	requests atomic.Int64
	errors   atomic.Int64
	srv      *grpc.Server
}

// New returns a sink with its gRPC server set up but not serving. window
// is its flow-control window in bytes (see DefaultWindow and CheckWindow);
// 0 keeps gRPC's dynamic window.
func New(window int32) *Sink {
	s := &Sink{}
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(wire.Codec{}),
		grpc.MaxRecvMsgSize(MaxRecvMsgSize),
	}
	if window > 0 {
		opts = append(opts, grpc.InitialWindowSize(window), grpc.InitialConnWindowSize(window))
	}
	s.srv = grpc.NewServer(opts...)
	for i, sig := range wire.Signals {
		s.srv.RegisterService(&grpc.ServiceDesc{
			ServiceName: sig.Service(),
			HandlerType: (*any)(nil),
			Methods: []grpc.MethodDesc{{
				MethodName: "Export",
				Handler:    s.handler(i, sig),
			}},
		}, s)
	}
	return s
}

func (s *Sink) handler(i int, sig wire.Signal) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		var m wire.Raw
		if err := dec(&m); err != nil {
			s.errors.Add(1)
			return nil, err
		}
		n, err := wire.Count(sig, m.B)
		if err != nil {
			s.errors.Add(1)
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		s.items[i].Add(int64(n))
		s.requests.Add(1)
		return &wire.Raw{}, nil
	}
}

// Serve serves OTLP/gRPC on l until Stop.
func (s *Sink) Serve(l net.Listener) error { return s.srv.Serve(l) }

// Stop stops the gRPC server at once.
func (s *Sink) Stop() { s.srv.Stop() }

// Counts returns the current counts.
func (s *Sink) Counts() Counts {
	return Counts{
		Traces:   s.items[0].Load(),
		Metrics:  s.items[1].Load(),
		Logs:     s.items[2].Load(),
		Requests: s.requests.Load(),
		Errors:   s.errors.Load(),
	}
}

// ServeHTTP answers GET /count with the counts as JSON.
func (s *Sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/count" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.Counts())
}
