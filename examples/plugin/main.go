// Command flowlua-plugin-example is a complete native plugin for flowlua:
// a processor, otelcol.processor.tag, that sets one resource attribute on
// every batch of every signal. Build it with `make build` (it lands in
// bin/plugins/) or with `go build` in this directory, and put the
// executable in a plugins/ directory flowlua looks in (README, "Native
// plugins").
package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"

	"github.com/flowlua/flowlua/pluginsdk"
)

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{
		Name:       "example",
		Version:    "1.0.0",
		Release:    "v0.165.0",
		Processors: []processor.Factory{newFactory()},
		// Its components serve GET /stats under flowlua's
		// /api/v0/component/{id}/ (pluginsdk.Routed).
		Routed: []component.Type{typ},
	})
}

// Config is the tag processor's configuration: the attribute it sets.
type Config struct {
	Key   string `mapstructure:"key"`
	Value string `mapstructure:"value"`
}

// Validate refuses an empty key.
func (c *Config) Validate() error {
	if c.Key == "" {
		return errors.New("key: must not be empty")
	}
	return nil
}

var typ = component.MustNewType("tag")

func newFactory() processor.Factory {
	return processor.NewFactory(typ,
		func() component.Config { return &Config{Key: "tagged_by", Value: "flowlua-plugin-example"} },
		processor.WithTraces(func(_ context.Context, _ processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
			return &tag{cfg: cfg.(*Config), traces: next}, nil
		}, component.StabilityLevelBeta),
		processor.WithMetrics(func(_ context.Context, _ processor.Settings, cfg component.Config, next consumer.Metrics) (processor.Metrics, error) {
			return &tag{cfg: cfg.(*Config), metrics: next}, nil
		}, component.StabilityLevelBeta),
		processor.WithLogs(func(_ context.Context, _ processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
			return &tag{cfg: cfg.(*Config), logs: next}, nil
		}, component.StabilityLevelBeta),
	)
}

// tagged counts the resources each component tagged, by its config (the
// same *Config for every signal of one component).
var tagged sync.Map // *Config → *atomic.Int64

func counter(cfg *Config) *atomic.Int64 {
	c, _ := tagged.LoadOrStore(cfg, new(atomic.Int64))
	return c.(*atomic.Int64)
}

// tag sets the attribute on each resource and passes the batch on.
type tag struct {
	cfg     *Config
	traces  consumer.Traces
	metrics consumer.Metrics
	logs    consumer.Logs
}

func (t *tag) Start(context.Context, component.Host) error { return nil }
func (t *tag) Shutdown(context.Context) error              { return nil }
func (t *tag) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: true}
}

func (t *tag) set(attrs pcommon.Map) {
	attrs.PutStr(t.cfg.Key, t.cfg.Value)
	counter(t.cfg).Add(1)
}

// Routes serves GET /stats: how many resources it tagged, as JSON.
func (t *tag) Routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"key": t.cfg.Key, "tagged": counter(t.cfg).Load()})
	})
	return mux
}

func (t *tag) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	for _, rs := range td.ResourceSpans().All() {
		t.set(rs.Resource().Attributes())
	}
	return t.traces.ConsumeTraces(ctx, td)
}

func (t *tag) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	for _, rm := range md.ResourceMetrics().All() {
		t.set(rm.Resource().Attributes())
	}
	return t.metrics.ConsumeMetrics(ctx, md)
}

func (t *tag) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	for _, rl := range ld.ResourceLogs().All() {
		t.set(rl.Resource().Attributes())
	}
	return t.logs.ConsumeLogs(ctx, ld)
}
