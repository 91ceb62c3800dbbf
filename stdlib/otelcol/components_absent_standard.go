//go:build flowlua_minimal

package otelcol

func init() {
	registerAbsent("flowlua_minimal",
		"otelcol.receiver.file_log", "otelcol.receiver.filelog",
		"otelcol.receiver.host_metrics", "otelcol.receiver.hostmetrics",
		"otelcol.receiver.kafka", "otelcol.receiver.journald", "otelcol.receiver.redis",
		"otelcol.processor.probabilistic_sampler", "otelcol.processor.tail_sampling",
		"otelcol.processor.redaction",
		"otelcol.processor.cumulative_to_delta", "otelcol.processor.cumulativetodelta",
		"otelcol.exporter.file", "otelcol.exporter.prometheus",
		"otelcol.exporter.prometheus_remote_write", "otelcol.exporter.prometheusremotewrite",
		"otelcol.exporter.kafka",
		"otelcol.connector.count", "otelcol.connector.routing",
		"otelcol.connector.span_metrics", "otelcol.connector.spanmetrics",
		"otelcol.connector.service_graph", "otelcol.connector.servicegraph",
		"otelcol.extension.file_storage", "otelcol.extension.basicauth", "otelcol.extension.bearertokenauth")
}
