// Command flowlua-plugin-prometheus serves to flowlua, as a native
// plugin, otelcol.receiver.prometheus: the collector's Prometheus
// receiver with Prometheus's service discoveries, whose cloud SDKs and
// Kubernetes client are most of what a binary holding it weighs. Its
// static targets are fed through files (targets.go), so that a change of
// them alone (cluster.shard's on a membership change) keeps the receiver
// and its scrape loops running.
package main

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/receiver"

	"github.com/flowlua/flowlua/pluginsdk"
)

// version is this plugin's own version, which declarations pin.
const version = "1.0.0"

func main() {
	f := prometheusreceiver.NewFactory()
	pluginsdk.Serve(pluginsdk.Plugin{
		Name:        "prometheus",
		Version:     version,
		Release:     "v0.165.1",
		Receivers:   []receiver.Factory{f},
		TargetFeeds: map[component.Type]pluginsdk.TargetFeed{f.Type(): feedTargets},
	})
}
