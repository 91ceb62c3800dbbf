//go:build flowlua_minimal || flowlua_lean

package otelcol

func init() {
	registerAbsent("flowlua_lean or flowlua_minimal",
		"otelcol.receiver.prometheus",
		"otelcol.processor.resource_detection", "otelcol.processor.resourcedetection",
		"otelcol.exporter.load_balancing", "otelcol.exporter.loadbalancing")
}
