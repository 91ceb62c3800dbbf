-- lua.redact: masks, hashes or deletes attributes of spans, log records and
-- metric data points, chosen by key or by a key pattern. Every rule is one
-- edit of batch:edit_attrs, so all of them take one walk over the batch,
-- done in Go.
local redacted = metrics.counter("redacted_total",
  "Spans, log records and data points that had an attribute redacted, by action.",
  { labels = { "action" } })

-- edits_of turns the arguments into edit_attrs' list: the rule the top-level
-- keys, pattern, action and mask make, then each of rules. It also returns,
-- for the metric, the group (one per action) of each edit, and the labels
-- of each group.
local function edits_of(a)
  local edits, group_of, labels = {}, {}, {}
  local group_by_action = {}
  local function add(rule)
    local value = nil
    if rule.action == "mask" then
      value = rule.mask
    end
    local g = group_by_action[rule.action]
    if g == nil then
      g = #labels + 1
      labels[g] = { action = rule.action }
      group_by_action[rule.action] = g
    end
    for _, key in ipairs(rule.keys) do
      edits[#edits + 1] = { action = rule.action, key = key, value = value }
      group_of[#group_of + 1] = g
    end
    if rule.pattern ~= "" then
      edits[#edits + 1] = { action = rule.action, key_pattern = rule.pattern, value = value }
      group_of[#group_of + 1] = g
    end
  end
  add(a)
  for _, rule in ipairs(a.rules) do
    add(rule)
  end
  return edits, group_of, labels
end

-- All of it is built again only when update replaces args; a call makes
-- one table, the counts.
local built_for, edits, group_of, labels
local totals = {}

local function redact(batch)
  if built_for ~= args then
    built_for = args
    edits, group_of, labels = edits_of(args)
  end
  if #edits == 0 then
    return batch
  end
  local counts = { batch:edit_attrs(edits) }
  for g = 1, #labels do
    totals[g] = 0
  end
  for i = 1, #counts do
    local n = counts[i]
    if n > 0 then
      local g = group_of[i]
      totals[g] = totals[g] + n
    end
  end
  for g = 1, #labels do
    if totals[g] > 0 then
      redacted:inc(totals[g], labels[g])
    end
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
