-- lua.route: sends each span, log record and data point to the output of
-- the first route whose attribute equals the route's value (the record's
-- own attribute, else its resource's), and the rest to default. Records
-- move into per-route batches; none is copied.
local routed = metrics.counter("routed_total",
  "Batches sent to a route (1, 2, ... in the order of routes) or to default.",
  { labels = { "route" } })

local function route(batch)
  for i, r in ipairs(args.routes) do
    local part = extract(batch, r.attr, r.equals)
    if part then
      emit(part, r.output)
      routed:inc(1, { route = tostring(i) })
    end
  end
  if batch:count() > 0 then
    emit(batch, args.default)
    routed:inc(1, { route = "default" })
  end
end

return {
  doc = "Routes spans, log records and data points to outputs by the value of an attribute.",
  signals = { "traces", "metrics", "logs" },
  output = false,
  args = {
    routes = {
      type = "list(object)", required = true,
      doc = "the routes, tried in order: a record goes to the first that matches",
      fields = {
        attr = { type = "string", required = true, doc = "the attribute key (the record's, else its resource's)" },
        equals = { type = "string", required = true, doc = "the value that selects the route" },
        output = { type = "output", required = true, doc = "where the route's records go" },
      },
    },
    default = { type = "output", doc = "where records that match no route go (none: dropped)" },
  },
  on_traces = route,
  on_metrics = route,
  on_logs = route,
}
