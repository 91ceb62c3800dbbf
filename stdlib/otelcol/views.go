package otelcol

import (
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// normalLevelViews are the collector's default metric views at its default
// telemetry level, "normal" (service/internal/metricviews): the metrics of
// level "detailed" are dropped. The batch processor checks whether an
// instrument is enabled before computing what it records, and so does
// the exporters' queue (exporterhelper, since v0.165.0), so dropping them
// also saves the work: without these views both would
// compute the protobuf size of every batch.
func normalLevelViews() []sdkmetric.View {
	drop := func(scope, name string) sdkmetric.View {
		return sdkmetric.NewView(
			sdkmetric.Instrument{Scope: instrumentation.Scope{Name: scope}, Name: name},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationDrop{}},
		)
	}
	const (
		exporterhelper = "go.opentelemetry.io/collector/exporter/exporterhelper"
		batchprocessor = "go.opentelemetry.io/collector/processor/batchprocessor"
		grpcScope      = "go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
		httpScope      = "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
		processorhelp  = "go.opentelemetry.io/collector/processor/processorhelper"
	)
	return []sdkmetric.View{
		drop(grpcScope, "*"),
		drop(httpScope, "*"),
		drop(processorhelp, "otelcol_processor_internal_duration"),
		drop(exporterhelper, "otelcol_exporter_queue_batch_send_size_bytes"),
		drop(exporterhelper, "otelcol_exporter_queue_batch_send_size"),
		drop(exporterhelper, "otelcol_exporter_enqueue_size_bytes"),
		drop(exporterhelper, "otelcol_exporter_enqueue_size"),
		drop(batchprocessor, "otelcol_processor_batch_batch_send_size_bytes"),
	}
}
