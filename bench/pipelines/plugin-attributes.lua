-- plugin-attributes: redact-attributes with the attributes processor
-- served by a native plugin (nativeplugin/, built into
-- .build/plugins/attributes), so that the two pipelines' ratios to the
-- same collector, in one run, give the cost of the crossing.
plugin "bench" { path = "../.build/plugins/attributes" }

otelcol.receiver.otlp "in" {
  protocols = { grpc = { endpoint = env("RECEIVER_ENDPOINT", "127.0.0.1:4317") } },
  output = {
    traces  = { bench.processor.attributes.redact.input },
    metrics = { otelcol.processor.batch.b.input },
    logs    = { otelcol.processor.batch.b.input },
  },
}
bench.processor.attributes "redact" {
  actions = {
    { key = "user.email", action = "update", value = "redacted" },
    { key = "net.peer.ip", action = "delete" },
  },
  output = { traces = { otelcol.processor.batch.b.input } },
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
