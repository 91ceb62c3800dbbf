-- Sets user.email to "redacted" and deletes net.peer.ip on every span, one
-- span at a time in Lua (the recommended idiom: methods kept in locals, the
-- flat iterator moving one handle).
return {
  doc = "Redacts two span attributes in a Lua loop (benchmark).",
  signals = { "traces", "metrics", "logs" },
  on_traces = function(batch)
    local m = batch:methods("span")
    local set_attr, del_attr = m.set_attr, m.del_attr
    for span in batch:spans() do
      set_attr(span, "user.email", "redacted")
      del_attr(span, "net.peer.ip")
    end
    return batch
  end,
  on_metrics = function(batch) return batch end,
  on_logs = function(batch) return batch end,
}
