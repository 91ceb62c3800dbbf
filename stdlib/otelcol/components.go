package otelcol

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/countconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/routingconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/servicegraphconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/spanmetricsconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/kafkaexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/loadbalancingexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/basicauthextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/cumulativetodeltaprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/filterprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/probabilisticsamplerprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/redactionprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourcedetectionprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourceprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/tailsamplingprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/journaldreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/kafkareceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/redisreceiver"
	"go.opentelemetry.io/collector/connector/forwardconnector"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/memorylimiterprocessor"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
)

// The upstream components flowlua hosts: one line each. Each is named by
// the type its factory reports (otlp_grpc); a renamed one is also
// registered under its deprecated type name (otlp), as the collector
// accepts it.
func init() {
	RegisterReceiver(otlpreceiver.NewFactory(), ownOTLPHTTP()) // flowlua serves its http protocol (otlphttp.go)
	RegisterReceiver(prometheusreceiver.NewFactory())
	RegisterReceiver(filelogreceiver.NewFactory())     // file_log, alias filelog
	RegisterReceiver(hostmetricsreceiver.NewFactory()) // host_metrics, alias hostmetrics
	RegisterReceiver(kafkareceiver.NewFactory())
	RegisterReceiver(journaldreceiver.NewFactory())
	RegisterReceiver(redisreceiver.NewFactory(), FromRelease("v0.157.0")) // the proxy lacks v0.158.0

	RegisterProcessor(batchprocessor.NewFactory())
	RegisterProcessor(memorylimiterprocessor.NewFactory())
	RegisterProcessor(attributesprocessor.NewFactory())
	RegisterProcessor(filterprocessor.NewFactory())
	RegisterProcessor(transformprocessor.NewFactory())
	RegisterProcessor(resourceprocessor.NewFactory())
	RegisterProcessor(resourcedetectionprocessor.NewFactory()) // resource_detection, alias resourcedetection
	RegisterProcessor(probabilisticsamplerprocessor.NewFactory())
	RegisterProcessor(tailsamplingprocessor.NewFactory())
	RegisterProcessor(redactionprocessor.NewFactory())
	RegisterProcessor(cumulativetodeltaprocessor.NewFactory()) // cumulative_to_delta, alias cumulativetodelta

	RegisterExporter(otlpexporter.NewFactory())     // otlp_grpc, alias otlp
	RegisterExporter(otlphttpexporter.NewFactory()) // otlp_http, alias otlphttp
	RegisterExporter(debugexporter.NewFactory())
	RegisterExporter(fileexporter.NewFactory())
	RegisterExporter(prometheusexporter.NewFactory())
	RegisterExporter(prometheusremotewriteexporter.NewFactory()) // prometheus_remote_write, alias prometheusremotewrite
	RegisterExporter(kafkaexporter.NewFactory())
	RegisterExporter(loadbalancingexporter.NewFactory()) // load_balancing, alias loadbalancing

	RegisterConnector(forwardconnector.NewFactory())
	RegisterConnector(countconnector.NewFactory())
	RegisterConnector(spanmetricsconnector.NewFactory())                      // span_metrics, alias spanmetrics
	RegisterConnector(servicegraphconnector.NewFactory())                     // service_graph, alias servicegraph
	RegisterConnector(routingconnector.NewFactory(), FromRelease("v0.157.0")) // the proxy lacks v0.158.0

	RegisterExtension(filestorage.NewFactory(), WithDataDir("directory", "compaction.directory"))
	RegisterExtension(basicauthextension.NewFactory())
	RegisterExtension(bearertokenauthextension.NewFactory())
}
