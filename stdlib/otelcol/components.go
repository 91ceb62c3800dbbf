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
	RegisterReceiver("otlp", otlpreceiver.NewFactory())

	RegisterProcessor("batch", batchprocessor.NewFactory())
	RegisterProcessor("memory_limiter", memorylimiterprocessor.NewFactory())
	RegisterProcessor("attributes", attributesprocessor.NewFactory())
	RegisterProcessor("filter", filterprocessor.NewFactory())
	RegisterProcessor("transform", transformprocessor.NewFactory())

	RegisterExporter("otlp", otlpexporter.NewFactory()) // type otlp_grpc upstream
	RegisterExporter("otlphttp", otlphttpexporter.NewFactory())
	RegisterExporter("debug", debugexporter.NewFactory())
	RegisterExporter("file", fileexporter.NewFactory())

	RegisterExtension("file_storage", filestorage.NewFactory(), WithDataDir("directory", "compaction.directory"))
}
