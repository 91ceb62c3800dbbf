package otelcol

import (
	"context"
	"reflect"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
)

// LazyProcessor is an upstream processor factory that is built the first
// time a pipeline needs it (its default config, a component), not when
// flowlua starts. Some factories are costly to build: the transform and
// filter processors' build the OTTL function tables of every context,
// whose generic instantiations are megabytes of code, and a flowlua that
// never declares them kept the pages it ran, and the tables, resident for
// nothing (about 0.9 MB of its idle RSS). The collector builds every
// factory it links at start.
//
// What registration reads of a factory, its type, its signals'
// stability and its config's type, is given here instead;
// TestLazyProcessors checks it against the built factory.
type LazyProcessor struct {
	// Factory satisfies processor.Factory's unexported method; it is
	// never set, and every exported method is LazyProcessor's own.
	processor.Factory

	typ                   component.Type
	configType            reflect.Type
	traces, metrics, logs component.StabilityLevel
	build                 func() processor.Factory
}

// NewLazyProcessor returns a factory of type typ, whose config has type
// configType and whose signals have the stability levels given, built
// by newFactory on first use.
func NewLazyProcessor(typ string, configType reflect.Type, traces, metrics, logs component.StabilityLevel, newFactory func() processor.Factory) *LazyProcessor {
	return &LazyProcessor{
		typ:        component.MustNewType(typ),
		configType: configType,
		traces:     traces,
		metrics:    metrics,
		logs:       logs,
		build:      sync.OnceValue(newFactory),
	}
}

// Type returns the factory's type, without building it.
func (l *LazyProcessor) Type() component.Type { return l.typ }

// ConfigType returns the type of the factory's config, without building
// it (registration reads it).
func (l *LazyProcessor) ConfigType() reflect.Type { return l.configType }

// TracesStability returns the traces processor's stability level.
func (l *LazyProcessor) TracesStability() component.StabilityLevel { return l.traces }

// MetricsStability returns the metrics processor's stability level.
func (l *LazyProcessor) MetricsStability() component.StabilityLevel { return l.metrics }

// LogsStability returns the logs processor's stability level.
func (l *LazyProcessor) LogsStability() component.StabilityLevel { return l.logs }

// CreateDefaultConfig builds the factory, once, and returns its default
// config.
func (l *LazyProcessor) CreateDefaultConfig() component.Config {
	return l.build().CreateDefaultConfig()
}

// CreateTraces builds the factory, once, and creates a traces processor.
func (l *LazyProcessor) CreateTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
	return l.build().CreateTraces(ctx, set, cfg, next)
}

// CreateMetrics builds the factory, once, and creates a metrics processor.
func (l *LazyProcessor) CreateMetrics(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Metrics) (processor.Metrics, error) {
	return l.build().CreateMetrics(ctx, set, cfg, next)
}

// CreateLogs builds the factory, once, and creates a logs processor.
func (l *LazyProcessor) CreateLogs(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
	return l.build().CreateLogs(ctx, set, cfg, next)
}

// configTyper is what a factory implements to give its config's type
// without building a config (LazyProcessor).
type configTyper interface {
	ConfigType() reflect.Type
}

var _ processor.Factory = (*LazyProcessor)(nil)
