-- integrations.self: flowlua's own metrics (its /metrics: the engine's,
-- every component's, the Go runtime's) scraped and sent to an output, so
-- that a flowlua fleet monitors itself through its own pipelines.
module "integrations.self" {
  doc = "flowlua's own metrics, scraped from its HTTP address and sent to an output",
  placement = "all_nodes",
  args = {
    address         = {
      type = "string",
      default = "127.0.0.1:12345",
      doc = "flowlua's --http.listen-addr",
    },
    scrape_interval = { type = "duration", default = "15s", doc = "how often /metrics is read" },
    output          = {
      type = "output",
      required = true,
      doc = "where the metrics go (metrics = { ... })",
    },
  },
  body = function(args)
    otelcol.receiver.prometheus "self" {
      config = {
        scrape_configs = {
          {
            job_name = "flowlua",
            scrape_interval = args.scrape_interval,
            static_configs = { { targets = { args.address } } },
          },
        },
      },
      output = args.output,
    }
  end,
}
