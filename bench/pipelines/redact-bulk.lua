-- redact-bulk: the redaction by lua.redact (bulk helpers: one Lua call per
-- batch, one walk over it in Go for both rules); the collector side is its
-- attributes processor.
otelcol.receiver.otlp "in" {
  protocols = { grpc = { endpoint = env("RECEIVER_ENDPOINT", "127.0.0.1:4317") } },
  output = {
    traces  = { lua.redact.pii.input },
    metrics = { otelcol.processor.batch.b.input },
    logs    = { otelcol.processor.batch.b.input },
  },
}
lua.redact "pii" {
  rules = {
    { keys = { "user.email" }, action = "mask", mask = "redacted" },
    { keys = { "net.peer.ip" }, action = "delete" },
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
