-- passthrough: OTLP/gRPC and OTLP/HTTP in -> batch (200ms, 8192) -> OTLP/gRPC
-- out, no compression; the same pipeline as collector/passthrough.yaml. The
-- benchmark runner sets RECEIVER_ENDPOINT (gRPC), RECEIVER_HTTP_ENDPOINT and
-- EXPORTER_ENDPOINT to free loopback ports.
otelcol.receiver.otlp "in" {
  protocols = {
    grpc = { endpoint = env("RECEIVER_ENDPOINT", "127.0.0.1:4317") },
    http = { endpoint = env("RECEIVER_HTTP_ENDPOINT", "127.0.0.1:4318") },
  },
  output = {
    traces  = { otelcol.processor.batch.b.input },
    metrics = { otelcol.processor.batch.b.input },
    logs    = { otelcol.processor.batch.b.input },
  },
}
otelcol.processor.batch "b" {
  timeout = "200ms",
  send_batch_size = 8192,
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
}
