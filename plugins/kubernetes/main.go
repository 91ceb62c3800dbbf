// Command flowlua-plugin-kubernetes serves the collector's Kubernetes
// components to flowlua as a native plugin: otelcol.processor.k8s_attributes,
// otelcol.receiver.kubelet_stats, otelcol.receiver.k8s_cluster and
// otelcol.receiver.k8sobjects. It is a module of its own, pinned to
// the releases of those components that resolve, whatever release flowlua's
// core is built with.
package main

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/k8sattributesprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/k8sclusterreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/k8sobjectsreceiver"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/kubeletstatsreceiver"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"

	"github.com/flowlua/flowlua/pluginsdk"
)

// version is this plugin's own version, which declarations pin.
const version = "1.0.0"

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{
		Name:       "kubernetes",
		Version:    version,
		Release:    "v0.165.0",
		Processors: []processor.Factory{k8sattributesprocessor.NewFactory()},
		Receivers: []receiver.Factory{
			kubeletstatsreceiver.NewFactory(),
			k8sclusterreceiver.NewFactory(),
			k8sobjectsreceiver.NewFactory(),
		},
	})
}
