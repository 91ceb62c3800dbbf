// Package livedebugging is the livedebugging service: it streams what a
// component sends, sampled, to whoever watches, through the http service
// (GET /api/v0/debug/{id}) and the web page.
//
// It is off until the script says
//
//	livedebugging { enabled = true }
//
// and it costs nothing on the data path while nobody watches: the engine
// taps every component's outputs at the fan-out (see dataplane.Tap), where
// an idle tap is one atomic load per batch. A viewer samples at most
// max_batches_per_second batches; each is copied at the fan-out and turned
// into OTLP JSON (pdata's JSON marshalers) by the viewer's own request, off
// the data path. A viewer that does not keep up (its buffer of `buffer`
// batches fills, or one write takes longer than 10 s) is dropped and never
// slows the pipeline.
//
// # The stream
//
// GET /api/v0/debug/{id}[?signal=traces,metrics,logs] answers
// text/event-stream: a comment once watching, then one `sample` event a
// sampled batch, whose data is {"signal", "time", "items", "data"} with
// data the batch as OTLP JSON, and an `end` event with the reason when the
// server ends the stream (the viewer was too slow, the component was
// removed, live debugging was disabled). While live debugging is disabled
// it answers 503 saying how to enable it; for a component that does not
// run, 404.
//
// # Metrics
//
// flowlua_livedebugging_viewers (watching now),
// flowlua_livedebugging_viewers_ended_total{reason} (slow, disconnected,
// component_removed, disabled) and flowlua_livedebugging_samples_total.
package livedebugging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// ServiceName is the name of the service and of its script block.
const ServiceName = "livedebugging"

func init() {
	services.Register(services.Registration{
		Name: ServiceName,
		New:  func(opts services.Options) (service.Service, error) { return New(opts), nil },
	})
}

// Config is the `livedebugging { ... }` block.
type Config struct {
	Enabled             bool    `lua:"enabled" doc:"stream what components send to viewers (GET /api/v0/debug/{id}, the web page)"`
	MaxBatchesPerSecond float64 `lua:"max_batches_per_second" doc:"batches each viewer samples at most, per second"`
	Buffer              int     `lua:"buffer" doc:"batches that may wait for a viewer before it is dropped as too slow"`
}

// SetToDefault sets the defaults.
func (c *Config) SetToDefault() {
	c.MaxBatchesPerSecond = 10
	c.Buffer = 16
}

// Validate checks the bounds.
func (c Config) Validate() error {
	var errs decode.Errors
	if c.MaxBatchesPerSecond <= 0 || c.MaxBatchesPerSecond > 1000 {
		errs = append(errs, decode.Errorf("max_batches_per_second", "must be in (0, 1000], got %g", c.MaxBatchesPerSecond))
	}
	if c.Buffer < 1 || c.Buffer > 1024 {
		errs = append(errs, decode.Errorf("buffer", "must be in [1, 1024], got %d", c.Buffer))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// writeTimeout bounds one write to a viewer (a variable for tests).
var writeTimeout = 10 * time.Second

// keepAlive is how often an idle stream gets a comment, so that proxies
// and browsers keep it open.
const keepAlive = 15 * time.Second

// Service is the livedebugging service.
type Service struct {
	logger *slog.Logger

	cfg atomic.Pointer[Config]
	// off is closed when live debugging is disabled, ending every stream.
	mu   sync.Mutex
	off  chan struct{}
	host service.Host

	viewers prometheus.Gauge
	ended   *prometheus.CounterVec
	samples prometheus.Counter
}

var _ service.Service = (*Service)(nil)

// New returns the service, disabled.
func New(opts services.Options) *Service {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		logger: logger.With("service", ServiceName),
		off:    make(chan struct{}),
		viewers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowlua_livedebugging_viewers",
			Help: "Live-debugging streams open now.",
		}),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flowlua_livedebugging_viewers_ended_total",
			Help: "Live-debugging streams that ended, by reason: slow (dropped: the viewer did not keep up), disconnected, component_removed, disabled.",
		}, []string{"reason"}),
		samples: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flowlua_livedebugging_samples_total",
			Help: "Sampled batches streamed to live-debugging viewers.",
		}),
	}
	close(s.off) // disabled
	if opts.Registerer != nil {
		for _, reason := range []string{"slow", "disconnected", "component_removed", "disabled"} {
			s.ended.WithLabelValues(reason)
		}
		for _, c := range []prometheus.Collector{s.viewers, s.ended, s.samples} {
			if err := opts.Registerer.Register(c); err != nil {
				s.logger.Warn("registering a metric failed", "err", err)
			}
		}
	}
	return s
}

// Definition describes the service.
func (s *Service) Definition() service.Definition {
	return service.Definition{Name: ServiceName, ConfigType: Config{}}
}

// Data is nil: components do not use the service.
func (s *Service) Data() any { return nil }

// Run keeps the host until ctx ends.
func (s *Service) Run(ctx context.Context, host service.Host) error {
	s.mu.Lock()
	s.host = host
	s.mu.Unlock()
	<-ctx.Done()
	return nil
}

// Update applies a new block; disabling ends every stream.
func (s *Service) Update(newConfig any) error {
	cfg, ok := newConfig.(Config)
	if !ok && newConfig != nil {
		return fmt.Errorf("livedebugging: unexpected config type %T", newConfig)
	}
	if newConfig == nil {
		cfg = Config{}
		cfg.SetToDefault()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.Enabled()
	s.cfg.Store(&cfg)
	switch {
	case cfg.Enabled && !was:
		s.off = make(chan struct{})
		s.logger.Info("live debugging enabled")
	case !cfg.Enabled && was:
		close(s.off)
		s.logger.Info("live debugging disabled")
	}
	return nil
}

// Enabled reports whether live debugging is on.
func (s *Service) Enabled() bool {
	c := s.cfg.Load()
	return c != nil && c.Enabled
}

// sampleJSON is the data of a sample event.
type sampleJSON struct {
	Signal string          `json:"signal"`
	Time   time.Time       `json:"time"`
	Items  int             `json:"items"`
	Data   json.RawMessage `json:"data"`
}

// ServeDebug streams what component id sends (see the package comment).
func (s *Service) ServeDebug(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	cfg, off, host := s.cfg.Load(), s.off, s.host
	s.mu.Unlock()
	if cfg == nil || !cfg.Enabled {
		http.Error(w, "live debugging is disabled: enable it with `livedebugging { enabled = true }` in the script", http.StatusServiceUnavailable)
		return
	}
	var tap *dataplane.Tap
	if host != nil {
		tap = host.Tap(id)
	}
	if tap == nil {
		http.Error(w, "no component "+id, http.StatusNotFound)
		return
	}
	opts := dataplane.ViewOptions{Interval: time.Duration(float64(time.Second) / cfg.MaxBatchesPerSecond), Buffer: cfg.Buffer}
	if q := r.URL.Query().Get("signal"); q != "" {
		for _, name := range strings.Split(q, ",") {
			sig, ok := dataplane.ParseSignal(strings.TrimSpace(name))
			if !ok {
				http.Error(w, fmt.Sprintf("unknown signal %q (want traces, metrics or logs)", name), http.StatusBadRequest)
				return
			}
			opts.Signals = append(opts.Signals, sig)
		}
	}
	v, err := tap.Watch(opts)
	if err != nil {
		http.Error(w, "no component "+id, http.StatusNotFound)
		return
	}
	s.viewers.Inc()
	defer s.viewers.Dec()
	reason := s.stream(w, r, id, v, off)
	v.Unwatch()
	s.ended.WithLabelValues(reason).Inc()
	s.logger.Debug("live-debugging stream ended", "component_id", id, "reason", reason)
}

// stream writes v's samples to w until the viewer ends, and says why.
func (s *Service) stream(w http.ResponseWriter, r *http.Request, id string, v *dataplane.Viewer, off <-chan struct{}) string {
	rc := http.NewResponseController(w)
	write := func(text string) error {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write([]byte(text)); err != nil {
			return err
		}
		return rc.Flush()
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if write(": watching "+id+"\n\n") != nil {
		return "disconnected"
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	end := func(reason, msg string) string {
		_ = write("event: end\ndata: " + msg + "\n\n")
		return reason
	}
	for {
		select {
		case <-r.Context().Done():
			return "disconnected"
		case <-off:
			return end("disabled", "live debugging was disabled")
		case <-v.Done():
			switch err := v.Err(); {
			case errors.Is(err, dataplane.ErrSlowViewer):
				return end("slow", "dropped: "+err.Error())
			case errors.Is(err, dataplane.ErrTapClosed):
				return end("component_removed", "the component was removed")
			default:
				return end("disconnected", "stopped")
			}
		case <-tick.C:
			if write(": keep-alive\n\n") != nil {
				return "disconnected"
			}
		case smp := <-v.Samples():
			data, err := marshal(smp)
			if err != nil {
				s.logger.Warn("marshalling a sample failed", "component_id", id, "err", err)
				continue
			}
			b, _ := json.Marshal(sampleJSON{Signal: smp.Signal.String(), Time: smp.Time, Items: smp.Items, Data: data})
			if write("event: sample\ndata: "+string(b)+"\n\n") != nil {
				// A write that fails (or times out) is a viewer too slow or gone.
				if r.Context().Err() != nil {
					return "disconnected"
				}
				return "slow"
			}
			s.samples.Inc()
		}
	}
}

// marshal turns a sample into OTLP JSON.
func marshal(smp dataplane.Sample) ([]byte, error) {
	switch d := smp.Data.(type) {
	case ptrace.Traces:
		return (&ptrace.JSONMarshaler{}).MarshalTraces(d)
	case pmetric.Metrics:
		return (&pmetric.JSONMarshaler{}).MarshalMetrics(d)
	case plog.Logs:
		return (&plog.JSONMarshaler{}).MarshalLogs(d)
	}
	return nil, fmt.Errorf("not a batch: %T", smp.Data)
}
