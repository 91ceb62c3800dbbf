-- plugin-receiver: passthrough with its OTLP/gRPC receiver, the
-- collector's own, served by a native plugin (nativeplugin/, built into
-- .build/plugins/attributes): against passthrough, whose receiver is in
-- process, the cost of a receiver's crossing.
plugin "bench" { path = "../.build/plugins/attributes" }

bench.receiver.otlp "in" {
  protocols = { grpc = { endpoint = env("RECEIVER_ENDPOINT", "127.0.0.1:4317") } },
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
