-- The quick start: receive OTLP on the standard ports and print what
-- arrives. Send data with any OpenTelemetry SDK or collector, e.g.
--   curl -H 'Content-Type: application/json' -d @trace.json http://127.0.0.1:4318/v1/traces
otelcol.receiver.otlp "default" {
  protocols = {
    grpc = { endpoint = env("OTLP_GRPC_ENDPOINT", "127.0.0.1:4317") },
    http = { endpoint = env("OTLP_HTTP_ENDPOINT", "127.0.0.1:4318") },
  },
  output = {
    traces  = { otelcol.processor.batch.default.input },
    metrics = { otelcol.processor.batch.default.input },
    logs    = { otelcol.processor.batch.default.input },
  },
}

otelcol.processor.batch "default" {
  timeout = "200ms",
  output = {
    traces  = { otelcol.exporter.debug.console.input },
    metrics = { otelcol.exporter.debug.console.input },
    logs    = { otelcol.exporter.debug.console.input },
  },
}

otelcol.exporter.debug "console" {
  verbosity = "basic",
}
