package otelcol

import (
	"reflect"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector/forwardconnector"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/memorylimiterprocessor"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"

	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/filterprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourceprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
)

// The upstream components flowlua hosts, one line each, in three files by
// what they cost a process that does not use them (every linked package
// initialises at start, and the runtime maps in every type an interface
// conversion names: see bench/README.md, "Like with like"):
//
//   - components.go, in every build: OTLP in and out, and the processors
//     of most pipelines;
//   - components_standard.go, left out by -tags flowlua_minimal;
//   - components_full.go, left out by -tags flowlua_minimal or
//     flowlua_lean: the Prometheus receiver, whose service discoveries
//     (cloud SDKs, the Kubernetes client) are most of the binary and of
//     its idle memory.
//
// The default build (make build) has all of them; a component a build
// leaves out is still a name, whose use is an error saying so
// (components_absent*.go), as is one whose module is not available at
// collectorRelease (absent.go, notAtRelease). Each is named by the type its factory reports
// (otlp_grpc); a renamed one is also registered under its deprecated type
// name (otlp), as the collector accepts it.
func init() {
	registerNotAtRelease()

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

	RegisterConnector(forwardconnector.NewFactory())
}
