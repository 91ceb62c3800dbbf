-- integrations.host: the host's metrics (CPU, memory, disks, filesystems,
-- network, load) with the host's name as host.name, sent to an output.
-- It runs on every node: each node reports its own host.
module "integrations.host" {
  doc = "Host metrics (cpu, memory, disk, filesystem, network, load) with host.name, to an output",
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
    host_name           = {
      type = "string",
      default = env("HOSTNAME", ""),
      doc = "the host.name resource attribute (default: $HOSTNAME, which Kubernetes sets to the pod's name: give a DaemonSet's spec.nodeName through the downward API); empty: none",
    },
  },
  body = function(args)
    local named = args.output
    if args.host_name ~= "" then
      named = { metrics = { otelcol.processor.resource.host.input } }
    end
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
      output = named,
    }
    if args.host_name ~= "" then
      otelcol.processor.resource "host" {
        attributes = { { key = "host.name", value = args.host_name, action = "upsert" } },
        output = args.output,
      }
    end
  end,
}
