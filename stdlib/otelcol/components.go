package otelcol

import (
	"reflect"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector/forwardconnector"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/nopexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/memorylimiterprocessor"
	"go.opentelemetry.io/collector/receiver/nopreceiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"

	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/countconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/spanmetricsconnector"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/kafkaexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/basicauthextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/bearertokenauthextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/healthcheckextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/pprofextension"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/cumulativetodeltaprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/filterprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/probabilisticsamplerprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/redactionprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourceprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/tailsamplingprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/journaldreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/kafkareceiver"
)

// The upstream components flowlua's core hosts, one line each: OTLP in
// and out, the processors of most pipelines, and the components whose
// modules weigh little. Heavier ones are served by the first-party native
// plugins (plugins/): the Prometheus receiver, whose service discoveries
// (cloud SDKs, the Kubernetes client) were most of the binary and of its
// idle memory, resource detection and load balancing. Such a name is
// still known here, whose use without the plugin is an error saying
// which plugin serves it (absent.go), as is one whose module is not
// available at collectorRelease. Each is named by the type its factory
// reports (otlp_grpc); a renamed one is also registered under its
// deprecated type name (otlp), as the collector accepts it.
func init() {
	registerAbsent()

	RegisterReceiver(otlpreceiver.NewFactory(), ownOTLP()) // flowlua serves its protocols (otlpreceiver.go)

	RegisterProcessor(batchprocessor.NewFactory())
	RegisterProcessor(memorylimiterprocessor.NewFactory())
	RegisterProcessor(attributesprocessor.NewFactory())
	// Built when first used: building their OTTL function tables kept
	// about 0.9 MB resident in a flowlua that does not use them (lazy.go).
	RegisterProcessor(NewLazyProcessor("filter", reflect.TypeFor[*filterprocessor.Config](),
		component.StabilityLevelAlpha, component.StabilityLevelAlpha, component.StabilityLevelAlpha, filterprocessor.NewFactory))
	RegisterProcessor(NewLazyProcessor("transform", reflect.TypeFor[*transformprocessor.Config](),
		component.StabilityLevelBeta, component.StabilityLevelBeta, component.StabilityLevelBeta, transformprocessor.NewFactory))
	RegisterProcessor(resourceprocessor.NewFactory())

	RegisterExporter(otlpGRPCExporter(otlpexporter.NewFactory())) // otlp_grpc, alias otlp; its queue holds encoded requests (encodedqueue.go)
	RegisterExporter(otlphttpexporter.NewFactory())               // otlp_http, alias otlphttp
	RegisterExporter(debugexporter.NewFactory())
	// nop: what the collector's own configs and tests wire where nothing
	// is to be received or sent.
	RegisterReceiver(nopreceiver.NewFactory(), FromPackage("go.opentelemetry.io/collector/receiver/nopreceiver"))
	RegisterExporter(nopexporter.NewFactory(), FromPackage("go.opentelemetry.io/collector/exporter/nopexporter"))

	RegisterConnector(forwardconnector.NewFactory())

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
	// What collector configs carry besides pipelines: the port the Helm
	// chart's probes ask (health_check, 13133) and the profiler's (1777).
	// flowlua serves its own health and profiles on its HTTP address too.
	// zpages is not hosted: its pages show the collector's own tracer
	// and service, which flowlua does not have (convert notes it).
	RegisterExtension(healthcheckextension.NewFactory())
	RegisterExtension(pprofextension.NewFactory())
}
