-- lua.sample: keeps a percentage of traces. The decision is a function of
-- the trace id and the seed only, so every span of a trace, and every log
-- record that carries its trace id, gets the same decision, in any batch
-- and on any flowlua instance with the same seed. Spans and log records
-- without a trace id are kept.
local kept = metrics.counter("kept_total", "Spans and log records kept.")
local dropped = metrics.counter("dropped_total", "Spans and log records dropped.")

local TWO32 = 4294967296

-- keep reports whether a trace id (32 hex digits, "" when unset) is kept:
-- 32 random bits of the id, shifted by the seed, fall under the threshold.
local function keep(id)
  if id == "" then
    return true
  end
  local bits = tonumber(id:sub(17, 24), 16)
  local offset = (args.seed * 2654435761) % TWO32
  return (bits + offset) % TWO32 < args.percentage / 100 * TWO32
end

-- sample drops the items (spans or log records) of traces not kept.
local function sample(batch, kind, each)
  local m = batch:methods(kind)
  local trace_id, drop = m.trace_id, m.drop
  local k, d = 0, 0
  for item in each(batch) do
    if keep(trace_id(item)) then
      k = k + 1
    else
      drop(item)
      d = d + 1
    end
  end
  kept:inc(k)
  dropped:inc(d)
  return batch
end

return {
  doc = "Keeps a percentage of traces, with the same decision for every span and log record of a trace.",
  signals = { "traces", "logs" },
  args = {
    percentage = { type = "number", required = true, min = 0, max = 100, doc = "the share of traces kept" },
    seed = { type = "integer", default = 0, doc = "changes which traces are kept; instances that must agree need the same seed" },
  },
  on_traces = function(batch)
    return sample(batch, "span", batch.spans)
  end,
  on_logs = function(batch)
    return sample(batch, "record", batch.records)
  end,
}
