// Command nativeplugin serves the collector's attributes processor and
// OTLP receiver as a flowlua native plugin, for the bench (bench/README.md,
// "Pipelines": plugin-attributes, plugin-receiver).
package main

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"

	"github.com/flowlua/flowlua/pluginsdk"
)

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{
		Name:       "bench",
		Version:    "1.0.0",
		Release:    "v0.165.0",
		Receivers:  []receiver.Factory{otlpreceiver.NewFactory()},
		Processors: []processor.Factory{attributesprocessor.NewFactory()},
	})
}
