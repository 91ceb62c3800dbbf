-- Sets user.email to "redacted" and deletes net.peer.ip on every span, one
-- span at a time in Lua (the recommended idiom: a numeric for over the
-- batch's spans, with the span methods that take the span's index, kept in
-- locals).
return {
  doc = "Redacts two span attributes in a Lua loop (benchmark).",
  signals = { "traces", "metrics", "logs" },
  on_traces = function(batch)
    local spans = batch:by_index("span")
    local set_attr, del_attr = spans.set_attr, spans.del_attr
    for i = 1, batch:span_count() do
      set_attr(i, "user.email", "redacted")
      del_attr(i, "net.peer.ip")
    end
    return batch
  end,
  on_metrics = function(batch) return batch end,
  on_logs = function(batch) return batch end,
}
