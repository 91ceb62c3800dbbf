-- lua.redact: masks, hashes or deletes attributes of spans, log records and
-- metric data points, chosen by key or by a key pattern. Every rule is one
-- edit of batch:edit_attrs, so all of them take one walk over the batch,
-- done in Go.
local redacted = metrics.counter("redacted_total",
  "Spans, log records and data points that had an attribute redacted, by action.",
  { labels = { "action" } })

-- edits_of turns the arguments into edit_attrs' list: the rule the top-level
-- keys, pattern, action and mask make, then each of rules. actions[i] is
-- the action of edits[i], for the metric.
local function edits_of(a)
  local edits, actions = {}, {}
  local function add(rule)
    local value = nil
    if rule.action == "mask" then
      value = rule.mask
    end
    for _, key in ipairs(rule.keys) do
      edits[#edits + 1] = { action = rule.action, key = key, value = value }
      actions[#actions + 1] = rule.action
    end
    if rule.pattern ~= "" then
      edits[#edits + 1] = { action = rule.action, key_pattern = rule.pattern, value = value }
      actions[#actions + 1] = rule.action
    end
  end
  add(a)
  for _, rule in ipairs(a.rules) do
    add(rule)
  end
  return edits, actions
end

-- The list is built again only when update replaces args.
local built_for, edits, actions

local function redact(batch)
  if built_for ~= args then
    built_for = args
    edits, actions = edits_of(args)
  end
  if #edits == 0 then
    return batch
  end
  local counts = { batch:edit_attrs(edits) }
  local by_action = {}
  for i, n in ipairs(counts) do
    if n > 0 then
      by_action[actions[i]] = (by_action[actions[i]] or 0) + n
    end
  end
  for action, n in pairs(by_action) do
    redacted:inc(n, { action = action })
  end
  return batch
end

local action = {
  type = "string", enum = { "mask", "hash", "delete" }, default = "mask",
  doc = "mask: replace the value with mask; hash: with its hex SHA-256; delete: remove the attribute",
}

return {
  doc = "Masks, hashes or deletes attributes of spans, log records and metric data points.",
  signals = { "traces", "metrics", "logs" },
  args = {
    keys = { type = "list(string)", default = {}, doc = "attribute keys to redact" },
    pattern = { type = "string", doc = "a regular expression (RE2); attribute keys it matches are redacted too" },
    action = action,
    mask = { type = "string", default = "***", doc = "the value of masked attributes" },
    rules = {
      type = "list(object)", default = {},
      doc = "more rules, each with its own keys, pattern, action and mask, applied after the one above in the same pass",
      fields = {
        keys = { type = "list(string)", default = {}, doc = "attribute keys to redact" },
        pattern = { type = "string", doc = "a regular expression (RE2); attribute keys it matches are redacted too" },
        action = action,
        mask = { type = "string", default = "***", doc = "the value of masked attributes" },
      },
    },
  },
  on_traces = redact,
  on_metrics = redact,
  on_logs = redact,
}
