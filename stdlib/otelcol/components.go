package otelcol

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/filterprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/memorylimiterprocessor"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
)

// The upstream components flowlua hosts: one line each.
func init() {
	RegisterReceiver[*otlpreceiver.Config]("otlp", otlpreceiver.NewFactory())

	RegisterProcessor[*batchprocessor.Config]("batch", batchprocessor.NewFactory())
	RegisterProcessor[*memorylimiterprocessor.Config]("memory_limiter", memorylimiterprocessor.NewFactory())
	RegisterProcessor[*attributesprocessor.Config]("attributes", attributesprocessor.NewFactory())
	RegisterProcessor[*filterprocessor.Config]("filter", filterprocessor.NewFactory())
	RegisterProcessor[*transformprocessor.Config]("transform", transformprocessor.NewFactory())

	RegisterExporter[*otlpexporter.Config]("otlp", otlpexporter.NewFactory()) // type otlp_grpc upstream
	RegisterExporter[*otlphttpexporter.Config]("otlphttp", otlphttpexporter.NewFactory())
	RegisterExporter[*debugexporter.Config]("debug", debugexporter.NewFactory())
	RegisterExporter[*fileexporter.Config]("file", fileexporter.NewFactory())

	RegisterExtension[*filestorage.Config]("file_storage", filestorage.NewFactory(), WithDataDir("directory", "compaction.directory"))
}
