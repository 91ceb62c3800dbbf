-- integrations.host: the host's metrics (CPU, memory, disks, filesystems,
-- network, load) with the host's resource attributes, sent to an output.
-- It runs on every node: each node reports its own host.
module "integrations.host" {
  doc = "Host metrics (cpu, memory, disk, filesystem, network, load) with resource detection (env, system), to an output",
  placement = "all_nodes",
  args = {
    output              = {
      type = "output",
      required = true,
      doc = "where the metrics go (metrics = { ... })",
    },
    collection_interval = {
      type = "duration",
      default = "60s",
      doc = "how often the host is read",
    },
    root_path           = {
      type = "string",
      doc = "the host's root filesystem when flowlua runs in a container (e.g. /hostfs)",
    },
  },
  body = function(args)
    local detected = { otelcol.processor.resource_detection.host.input }
    otelcol.receiver.host_metrics "host" {
      collection_interval = args.collection_interval,
      root_path = args.root_path,
      scrapers = {
        cpu = {},
        memory = {},
        disk = {},
        filesystem = {},
        network = {},
        load = {},
      },
      output = { metrics = detected },
    }
    otelcol.processor.resource_detection "host" {
      detectors = { "env", "system" },
      output = args.output,
    }
  end,
}
