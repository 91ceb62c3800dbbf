-- integrations.otlp_gateway: OTLP in, a memory limiter, OTLP out through a
-- persistent, batching queue. A span is acknowledged once it is in the
-- queue file, so a gateway killed at any moment loses nothing: the next
-- start sends what the queue holds. (The batching is the exporter queue's,
-- not a batch processor's: a batch processor holds acknowledged data in
-- memory, which a kill -9 would lose.)
module "integrations.otlp_gateway" {
  doc = "OTLP gateway: OTLP in, memory limiter, batching persistent queue, OTLP out; loses nothing across restarts",
  placement = "all_nodes",
  args = {
    grpc_endpoint = {
      type = "string",
      default = "127.0.0.1:4317",
      doc = "where OTLP/gRPC is received",
    },
    http_endpoint = { type = "string", doc = "where OTLP/HTTP is received; none when not set" },
    endpoint      = { type = "string", required = true, doc = "the upstream OTLP/gRPC endpoint" },
    insecure      = {
      type = "boolean",
      default = false,
      doc = "connect to the upstream without TLS",
    },
    headers       = {
      type = "map(string)",
      default = {},
      doc = "headers sent upstream (e.g. authorization, from file.read)",
    },
    limit_mib     = {
      type = "integer",
      default = 512,
      doc = "memory limit of the gateway's data, in MiB",
    },
    flush_timeout = {
      type = "duration",
      default = "200ms",
      doc = "longest a batch waits in the queue before it is sent",
    },
  },
  exports = {
    input = { type = "consumer", doc = "where other components send data to the gateway" },
  },
  body = function(args)
    local all = { otelcol.processor.memory_limiter.limit.input }
    local protocols = { grpc = { endpoint = args.grpc_endpoint } }
    if args.http_endpoint then
      protocols.http = { endpoint = args.http_endpoint }
    end
    otelcol.receiver.otlp "in" {
      protocols = protocols,
      output = { traces = all, metrics = all, logs = all },
    }
    local out = { otelcol.exporter.otlp.out.input }
    otelcol.processor.memory_limiter "limit" {
      check_interval = "1s",
      limit_mib = args.limit_mib,
      output = { traces = out, metrics = out, logs = out },
    }
    otelcol.extension.file_storage "queue" {}
    otelcol.exporter.otlp "out" {
      endpoint = args.endpoint,
      tls = { insecure = args.insecure },
      headers = args.headers,
      sending_queue = {
        storage = otelcol.extension.file_storage.queue.id,
        batch = { flush_timeout = args.flush_timeout },
      },
    }
    return { input = otelcol.processor.memory_limiter.limit.input }
  end,
}
