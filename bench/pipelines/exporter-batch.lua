-- exporter-batch: OTLP/gRPC and OTLP/HTTP in -> OTLP/gRPC out, batched by
-- the exporter's sending_queue (at least 8192 items or 200ms) instead of
-- the batch processor; the same pipeline as collector/exporter-batch.yaml.
otelcol.receiver.otlp "in" {
  protocols = {
    grpc = { endpoint = env("RECEIVER_ENDPOINT", "127.0.0.1:4317") },
    http = { endpoint = env("RECEIVER_HTTP_ENDPOINT", "127.0.0.1:4318") },
  },
  output = {
    traces  = { otelcol.exporter.otlp.out.input },
    metrics = { otelcol.exporter.otlp.out.input },
    logs    = { otelcol.exporter.otlp.out.input },
  },
}
otelcol.exporter.otlp "out" {
  endpoint = env("EXPORTER_ENDPOINT", "127.0.0.1:4319"),
  tls = { insecure = true },
  compression = "none",
  sending_queue = {
    batch = { flush_timeout = "200ms", min_size = 8192, sizer = "items" },
  },
}
