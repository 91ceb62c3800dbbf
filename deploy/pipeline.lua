-- The container image's default pipeline (/etc/flowlua/pipeline.lua):
-- OTLP in on every interface, gRPC on 4317 and HTTP on 4318, batched and
-- printed by the debug exporter. Mount a directory of your own on
-- /etc/flowlua to replace it; flowlua reloads when its files change.
otelcol.receiver.otlp "default" {
  protocols = {
    grpc = { endpoint = "0.0.0.0:4317" },
    http = { endpoint = "0.0.0.0:4318" },
  },
  output = {
    traces  = { otelcol.processor.batch.default.input },
    metrics = { otelcol.processor.batch.default.input },
    logs    = { otelcol.processor.batch.default.input },
  },
}

otelcol.processor.batch "default" {
  output = {
    traces  = { otelcol.exporter.debug.console.input },
    metrics = { otelcol.exporter.debug.console.input },
    logs    = { otelcol.exporter.debug.console.input },
  },
}

otelcol.exporter.debug "console" {
  verbosity = "basic",
}
