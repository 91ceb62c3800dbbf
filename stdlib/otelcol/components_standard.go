//go:build !flowlua_minimal

package otelcol

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/countconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/spanmetricsconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/kafkaexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/basicauthextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/cumulativetodeltaprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/probabilisticsamplerprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/redactionprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/tailsamplingprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/journaldreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/kafkareceiver"
)

// The components every build but -tags flowlua_minimal has (see
// components.go).
func init() {
	RegisterReceiver(filelogreceiver.NewFactory())     // file_log, alias filelog
	RegisterReceiver(hostmetricsreceiver.NewFactory()) // host_metrics, alias hostmetrics
	RegisterReceiver(kafkareceiver.NewFactory())
	RegisterReceiver(journaldreceiver.NewFactory())

	RegisterProcessor(probabilisticsamplerprocessor.NewFactory())
	RegisterProcessor(tailsamplingprocessor.NewFactory())
	RegisterProcessor(redactionprocessor.NewFactory())
	RegisterProcessor(cumulativetodeltaprocessor.NewFactory()) // cumulative_to_delta, alias cumulativetodelta

	RegisterExporter(fileexporter.NewFactory())
	RegisterExporter(prometheusexporter.NewFactory())
	RegisterExporter(prometheusremotewriteexporter.NewFactory()) // prometheus_remote_write, alias prometheusremotewrite
	RegisterExporter(kafkaexporter.NewFactory())

	RegisterConnector(countconnector.NewFactory())
	RegisterConnector(spanmetricsconnector.NewFactory()) // span_metrics, alias spanmetrics

	RegisterExtension(filestorage.NewFactory(), WithDataDir("directory", "compaction.directory"))
	RegisterExtension(basicauthextension.NewFactory())
	RegisterExtension(bearertokenauthextension.NewFactory())
}
