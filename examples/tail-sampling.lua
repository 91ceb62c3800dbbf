-- Traces with tail sampling: keep every trace with an error or slower than
-- 500ms and 10% of the rest, and derive request rate, errors and duration
-- from all spans (span_metrics) for Prometheus to scrape on :9464.
--   flowlua run examples/tail-sampling.lua
otelcol.receiver.otlp "default" {
  protocols = {
    grpc = { endpoint = env("OTLP_GRPC_ENDPOINT", "127.0.0.1:4317") },
    http = { endpoint = env("OTLP_HTTP_ENDPOINT", "127.0.0.1:4318") },
  },
  output = {
    traces = {
      otelcol.processor.tail_sampling.default.input,
      otelcol.connector.span_metrics.red.input,
    },
  },
}

otelcol.processor.tail_sampling "default" {
  decision_wait = "10s",
  policies = {
    { name = "errors", type = "status_code", status_code = { status_codes = { "ERROR" } } },
    { name = "slow", type = "latency", latency = { threshold_ms = 500 } },
    { name = "some", type = "probabilistic", probabilistic = { sampling_percentage = 10 } },
  },
  output = { traces = { otelcol.processor.batch.default.input } },
}

otelcol.processor.batch "default" {
  timeout = "1s",
  output = { traces = { otelcol.exporter.otlp_grpc.upstream.input } },
}

otelcol.exporter.otlp_grpc "upstream" {
  endpoint = env("OTLP_ENDPOINT", "127.0.0.1:14317"),
  tls = { insecure = true },
}

otelcol.connector.span_metrics "red" {
  histogram = { explicit = { buckets = { "10ms", "50ms", "100ms", "500ms", "1s", "5s" } } },
  output = { metrics = { otelcol.exporter.prometheus.scrape.input } },
}

otelcol.exporter.prometheus "scrape" {
  endpoint = env("PROMETHEUS_ENDPOINT", "127.0.0.1:9464"),
}
