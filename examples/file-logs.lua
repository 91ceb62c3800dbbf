-- Logs from files: tail /var/log/app/*.log (following rotation), parse each
-- line's level, tag the records with the host's name ($HOSTNAME) and send
-- them over OTLP. The read offsets live in a file_storage extension (under
-- --storage.path), so that a restart reads on from where it stopped and
-- nothing is sent twice.
--   flowlua run --storage.path=/var/lib/flowlua examples/file-logs.lua
otelcol.receiver.file_log "app" {
  include = { env("LOG_GLOB", "/var/log/app/*.log") },
  start_at = "beginning",
  storage = otelcol.extension.file_storage.offsets.id,
  operators = {
    { type = "regex_parser", regex = "^(?P<level>[A-Z]+) ", on_error = "send_quiet",
      severity = { parse_from = "attributes.level" } },
  },
  output = { logs = { otelcol.processor.resource.host.input } },
}

otelcol.extension.file_storage "offsets" {}

otelcol.processor.resource "host" {
  attributes = { { key = "host.name", value = env("HOSTNAME", "unknown"), action = "upsert" } },
  output = { logs = { otelcol.processor.batch.default.input } },
}

otelcol.processor.batch "default" {
  timeout = "1s",
  output = { logs = { otelcol.exporter.otlp_grpc.upstream.input } },
}

otelcol.exporter.otlp_grpc "upstream" {
  endpoint = env("OTLP_ENDPOINT", "127.0.0.1:4317"),
  tls = { insecure = true },
  sending_queue = { storage = otelcol.extension.file_storage.offsets.id },
}
