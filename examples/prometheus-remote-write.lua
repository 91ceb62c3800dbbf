-- Prometheus scrape → remote write: scrape flowlua's own /metrics (and any
-- target listed in targets.json, re-read as it changes) and send the samples
-- to a Prometheus-compatible remote-write endpoint (Prometheus with
-- --web.enable-remote-write-receiver, Mimir, Thanos, VictoriaMetrics).
--   REMOTE_WRITE_URL=http://127.0.0.1:9090/api/v1/write flowlua run examples/prometheus-remote-write.lua
otelcol.receiver.prometheus "scrape" {
  config = {
    scrape_configs = {
      {
        job_name = "flowlua",
        scrape_interval = "15s",
        static_configs = { { targets = { env("FLOWLUA_HTTP_LISTEN_ADDR", "127.0.0.1:12345") } } },
      },
      {
        job_name = "discovered",
        scrape_interval = "15s",
        file_sd_configs = { { files = { env("TARGETS_FILE", "targets.json") } } },
      },
    },
  },
  output = { metrics = { otelcol.processor.batch.default.input } },
}

otelcol.processor.batch "default" {
  timeout = "1s",
  output = { metrics = { otelcol.exporter.prometheus_remote_write.default.input } },
}

otelcol.exporter.prometheus_remote_write "default" {
  endpoint = env("REMOTE_WRITE_URL", "http://127.0.0.1:9090/api/v1/write"),
  resource_to_telemetry_conversion = { enabled = true },
}
