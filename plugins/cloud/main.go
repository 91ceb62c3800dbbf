// Command flowlua-plugin-cloud serves to flowlua, as a native plugin, the
// collector components whose modules do not resolve at the release
// flowlua's core is built with: otelcol.processor.resource_detection,
// with its cloud detectors, and otelcol.exporter.load_balancing, with its
// DNS and Kubernetes resolvers. It pins collector v0.158.0, the newest
// release at which both download (from v0.161.0 on, contrib's detectors
// v0.18.0/v0.19.0 and load balancing's own module are refused by the
// module proxy).
package main

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/loadbalancingexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourcedetectionprocessor"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/processor"

	"github.com/flowlua/flowlua/pluginsdk"
)

// version is this plugin's own version, which declarations pin.
const version = "1.0.0"

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{
		Name:       "cloud",
		Version:    version,
		Release:    "v0.158.0",
		Processors: []processor.Factory{resourcedetectionprocessor.NewFactory()},
		Exporters:  []exporter.Factory{loadbalancingexporter.NewFactory()},
	})
}
