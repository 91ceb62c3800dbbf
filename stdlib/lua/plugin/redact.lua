-- lua.redact: masks, hashes or deletes attributes of spans, log records and
-- metric data points, chosen by key or by a key pattern, with the batch's
-- bulk helpers (one call per key, the work done in Go).
local redacted = metrics.counter("redacted_total",
  "Spans, log records and data points that had an attribute redacted, by action.",
  { labels = { "action" } })

local function redact(batch)
  local action, n = args.action, 0
  local function apply(key, where)
    if action == "mask" then
      return batch:mask_attr(key, args.mask, where)
    elseif action == "hash" then
      return batch:hash_attr(key, where)
    end
    return batch:del_attr(key, where)
  end
  for _, key in ipairs(args.keys) do
    n = n + apply(key)
  end
  if args.pattern ~= "" then
    n = n + apply(nil, { key_pattern = args.pattern })
  end
  if n > 0 then
    redacted:inc(n, { action = action })
  end
  return batch
end

return {
  doc = "Masks, hashes or deletes attributes of spans, log records and metric data points.",
  signals = { "traces", "metrics", "logs" },
  args = {
    keys = { type = "list(string)", default = {}, doc = "attribute keys to redact" },
    pattern = { type = "string", doc = "a regular expression (RE2); attribute keys it matches are redacted too" },
    action = {
      type = "string", enum = { "mask", "hash", "delete" }, default = "mask",
      doc = "mask: replace the value with mask; hash: with its hex SHA-256; delete: remove the attribute",
    },
    mask = { type = "string", default = "***", doc = "the value of masked attributes" },
  },
  on_traces = redact,
  on_metrics = redact,
  on_logs = redact,
}
