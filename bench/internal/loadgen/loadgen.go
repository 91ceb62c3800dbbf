// Package loadgen drives OTLP export load at an address, over gRPC or
// HTTP (protobuf or JSON bodies): N concurrent workers, each on its own connection,
// resend one pre-built request (see package gen) without compression until
// a fixed item count or a duration is reached.
package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/flowlua/flowlua/bench/internal/gen"
	"github.com/flowlua/flowlua/bench/internal/wire"
)

// Config describes one load run.
type Config struct {
	// Addr is the OTLP endpoint, host:port.
	Addr string
	// Protocol is "grpc" (the default), "http" or "http-json": each
	// request is then a POST of the protobuf (or OTLP/JSON) bytes to
	// http://Addr/v1/<signal>, on a kept-alive connection per worker.
	Protocol string
	// Signal selects traces, metrics or logs.
	Signal wire.Signal
	// Payload selects the generated data (default gen.Realistic).
	Payload gen.Payload
	// Workers is the number of concurrent senders, each with its own
	// connection.
	Workers int
	// Batch is the number of items per export request.
	Batch int
	// Items is the number of items to send, rounded up to a whole number of
	// batches; 0 means no limit (then Duration must be set).
	Items int64
	// Duration bounds the run in time; 0 means no limit (then Items must be
	// set).
	Duration time.Duration
	// RequestTimeout bounds each export call.
	RequestTimeout time.Duration
	// Rate caps the send rate in items per second over all workers; 0 sends
	// as fast as the server accepts (closed loop). A rate below the
	// system's capacity keeps its queues short, which makes peak RSS
	// comparable between systems.
	Rate float64
}

// Result reports what a run sent.
type Result struct {
	Signal wire.Signal `json:"signal"`
	// Items counts the items of requests that succeeded, less those the
	// server reported as rejected through partial success.
	Items int64 `json:"items"`
	// Failed counts the items of failed or rejected requests.
	Failed int64 `json:"failed"`
	// Requests counts successful export calls.
	Requests int64 `json:"requests"`
	// Seconds is the wall time of the run.
	Seconds float64 `json:"seconds"`
	// ItemsPerSecond is Items / Seconds.
	ItemsPerSecond float64 `json:"items_per_second"`
	// FirstError is the first failure seen, if any.
	FirstError string `json:"first_error,omitempty"`
}

// Run sends the configured load and returns when it is done or ctx ends.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Batch < 1 {
		return Result{}, errors.New("loadgen: batch must be at least 1")
	}
	if cfg.Items <= 0 && cfg.Duration <= 0 {
		return Result{}, errors.New("loadgen: set an item count or a duration")
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	body, err := gen.RequestPayload(cfg.Signal, cfg.Payload, cfg.Batch)
	if err != nil {
		return Result{}, err
	}

	var requests int64 = -1 // unlimited
	if cfg.Items > 0 {
		requests = (cfg.Items + int64(cfg.Batch) - 1) / int64(cfg.Batch)
	}
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}

	senders := make([]sender, cfg.Workers)
	for i := range senders {
		s, err := newSender(cfg, body)
		if err != nil {
			return Result{}, err
		}
		defer s.close()
		senders[i] = s
	}

	var claimed, items, failed, okReqs atomic.Int64
	var errOnce sync.Once
	var firstErr string
	start := time.Now()
	var wg sync.WaitGroup
	// With a rate, each worker sends on its own schedule of one request per
	// interval; a worker that falls behind by more than a second forgets the
	// missed sends instead of bursting.
	var interval time.Duration
	if cfg.Rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(cfg.Batch) * float64(cfg.Workers) / cfg.Rate)
	}
	for i, c := range senders {
		wg.Go(func() {
			next := start.Add(interval * time.Duration(i) / time.Duration(cfg.Workers))
			for ctx.Err() == nil {
				if requests >= 0 && claimed.Add(1) > requests {
					return
				}
				if interval > 0 {
					now := time.Now()
					if d := next.Sub(now); d > 0 {
						select {
						case <-ctx.Done():
							return
						case <-time.After(d):
						}
					} else if d < -time.Second {
						next = now
					}
					next = next.Add(interval)
				}
				cctx, cancel := context.WithTimeout(ctx, cfg.RequestTimeout)
				resp, err := c.send(cctx)
				cancel()
				if err != nil {
					if ctx.Err() != nil || nearDeadline(ctx) {
						// Cut short by the run's duration (the server may
						// time the call out a moment before the context
						// fires here): the end of the run, not a failure.
						return
					}
					failed.Add(int64(cfg.Batch))
					errOnce.Do(func() { firstErr = err.Error() })
					continue
				}
				rejected, msg, err := wire.Rejected(resp)
				if err == nil && rejected > 0 {
					failed.Add(rejected)
					errOnce.Do(func() { firstErr = "partial success: " + msg })
				}
				okReqs.Add(1)
				items.Add(int64(cfg.Batch) - rejected)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	r := Result{
		Signal:     cfg.Signal,
		Items:      items.Load(),
		Failed:     failed.Load(),
		Requests:   okReqs.Load(),
		Seconds:    elapsed,
		FirstError: firstErr,
	}
	if elapsed > 0 {
		r.ItemsPerSecond = float64(r.Items) / elapsed
	}
	return r, nil
}

// nearDeadline reports whether ctx's deadline, if any, is at most 100 ms away.
func nearDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < 100*time.Millisecond
}

// sender sends the run's request on one connection.
type sender interface {
	// send exports the request once and returns the response's protobuf
	// bytes (an Export*ServiceResponse), valid until the next send.
	send(ctx context.Context) ([]byte, error)
	close()
}

// newSender returns a sender of body for cfg's protocol.
func newSender(cfg Config, body []byte) (sender, error) {
	switch cfg.Protocol {
	case "", "grpc":
		c, err := grpc.NewClient(cfg.Addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.ForceCodecV2(wire.Codec{})))
		if err != nil {
			return nil, fmt.Errorf("loadgen: dial %s: %w", cfg.Addr, err)
		}
		return &grpcSender{conn: c, method: cfg.Signal.Method(), req: &wire.Raw{B: body}}, nil
	case "http", "http-json":
		// One transport per worker: its own kept-alive connection.
		tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
		h := &httpSender{
			client:      &http.Client{Transport: tr},
			url:         "http://" + cfg.Addr + "/v1/" + string(cfg.Signal),
			body:        body,
			contentType: "application/x-protobuf",
		}
		if cfg.Protocol == "http-json" {
			var err error
			if h.body, err = toJSON(cfg.Signal, body); err != nil {
				return nil, err
			}
			h.contentType = "application/json"
			h.signal = cfg.Signal
		}
		return h, nil
	}
	return nil, fmt.Errorf("loadgen: unknown protocol %q (want grpc, http or http-json)", cfg.Protocol)
}

type grpcSender struct {
	conn   *grpc.ClientConn
	method string
	req    *wire.Raw
	resp   wire.Raw
}

func (g *grpcSender) send(ctx context.Context) ([]byte, error) {
	if err := g.conn.Invoke(ctx, g.method, g.req, &g.resp); err != nil {
		return nil, err
	}
	return g.resp.B, nil
}

func (g *grpcSender) close() { _ = g.conn.Close() }

type httpSender struct {
	client      *http.Client
	url         string
	body        []byte
	contentType string
	// signal is set when the bodies are OTLP/JSON: the responses are
	// then JSON too, and turned into protobuf for wire.Rejected.
	signal wire.Signal
	resp   bytes.Buffer
}

func (h *httpSender) send(ctx context.Context) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(h.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", h.contentType)
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	h.resp.Reset()
	if _, err := h.resp.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("reading the response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(h.resp.Bytes()))
	}
	if h.signal != "" {
		return responseToProto(h.signal, h.resp.Bytes())
	}
	return h.resp.Bytes(), nil
}

func (h *httpSender) close() { h.client.CloseIdleConnections() }
