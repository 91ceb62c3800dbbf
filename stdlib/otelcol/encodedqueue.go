package otelcol

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/xexporter"

	"github.com/flowlua/flowlua/stdlib/otelcol/encodedotlp"
)

// encodedQueueOff says that the OTLP/gRPC exporters built afterwards are
// upstream's, queueing pdata (SetEncodedQueue).
var encodedQueueOff atomic.Bool

// SetEncodedQueue chooses, for the OTLP/gRPC exporters built afterwards,
// between queueing and batching requests encoded (encodedotlp, on by
// default; `flowlua run --no-otlp.encoded-queue` turns it off) and the
// upstream exporter's pdata queue. The config, its defaults and what is
// sent are the same either way.
func SetEncodedQueue(on bool) { encodedQueueOff.Store(!on) }

// otlpGRPCExporter returns a factory of upstream's type, alias, config
// and stability whose exporters are encodedotlp's unless SetEncodedQueue
// turned them off when they are created.
func otlpGRPCExporter(upstream exporter.Factory) exporter.Factory {
	encoded := encodedotlp.NewFactory(upstream)
	pick := func(set exporter.Settings) exporter.Factory {
		if encodedQueueOff.Load() {
			set.Logger.Debug("Queueing requests as pdata (--no-otlp.encoded-queue)")
			return upstream
		}
		set.Logger.Debug("Queueing requests encoded")
		return encoded
	}
	opts := []xexporter.FactoryOption{
		xexporter.WithTraces(func(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Traces, error) {
			return pick(set).CreateTraces(ctx, set, cfg)
		}, upstream.TracesStability()),
		xexporter.WithMetrics(func(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
			return pick(set).CreateMetrics(ctx, set, cfg)
		}, upstream.MetricsStability()),
		xexporter.WithLogs(func(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Logs, error) {
			return pick(set).CreateLogs(ctx, set, cfg)
		}, upstream.LogsStability()),
	}
	if a, ok := upstream.(deprecatedAlias); ok {
		opts = append(opts, xexporter.WithDeprecatedTypeAlias(a.DeprecatedAlias()))
	}
	return xexporter.NewFactory(upstream.Type(), upstream.CreateDefaultConfig, opts...)
}
