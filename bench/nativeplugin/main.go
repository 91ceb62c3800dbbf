// Command nativeplugin serves the collector's attributes processor as a
// flowlua native plugin, for the bench (bench/README.md, "Native
// plugins").
package main

import (
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor"
	"go.opentelemetry.io/collector/processor"

	"github.com/flowlua/flowlua/pluginsdk"
)

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{
		Name:       "bench",
		Version:    "1.0.0",
		Release:    "v0.165.0",
		Processors: []processor.Factory{attributesprocessor.NewFactory()},
	})
}
