-- integrations.redis: a Redis server's metrics, read by one node of the
-- cluster (placement unique: a server is scraped once, not once per node).
module "integrations.redis" {
  doc = "Redis metrics from one endpoint, with credentials from a secret (file.read), to an output; runs on one node",
  placement = "unique",
  args = {
    endpoint            = { type = "string", default = "127.0.0.1:6379", doc = "the Redis server" },
    username            = { type = "string", doc = "the ACL user, when the server has ACLs" },
    password            = {
      type = "string",
      doc = "the password (e.g. file.read.redis_password.content; a trailing newline is dropped)",
    },
    collection_interval = {
      type = "duration",
      default = "60s",
      doc = "how often the server is read",
    },
    output              = {
      type = "output",
      required = true,
      doc = "where the metrics go (metrics = { ... })",
    },
  },
  body = function(args)
    -- A secret read from a file usually ends with a newline: it is not
    -- part of the password.
    local password = args.password and compute(function(p) return (p:gsub("%s+$", "")) end, args.password)
    otelcol.receiver.redis "server" {
      endpoint = args.endpoint,
      username = args.username,
      password = password,
      collection_interval = args.collection_interval,
      output = args.output,
    }
  end,
}
