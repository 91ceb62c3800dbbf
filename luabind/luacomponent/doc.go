// Package luacomponent runs components written in Lua: it reads a
// component file (Read) into a Kind, whose Registration builds running
// components, each with its own sandboxed Lua states, deadlines, timers,
// metrics, routes and health. Package luabind/plugin finds the files in
// plugin directories; this package documents the Lua API of a component.
//
// # Components
//
// A component file returns a table:
//
//	local redacted = metrics.counter("redacted_total", "Items redacted.")
//
//	return {
//	  doc = "Masks attributes.",
//	  signals = { "traces", "logs" },   -- a data component: on_<signal> for each
//	  args = {
//	    keys = { type = "list(string)", required = true, doc = "keys to mask" },
//	    mask = { type = "string", default = "***" },
//	    mode = { type = "string", enum = { "a", "b" }, default = "a" },
//	    ratio = { type = "number", min = 0, max = 1, default = 1 },
//	    every = "duration",                        -- shorthand: the type alone
//	  },
//	  exports = { count = "integer" },
//	  services = { "http" },
//	  routes = { ["GET /hello"] = function(req) return "hi" end },
//	  start = function(ctx) end,      -- ctx = { id = ..., data_path = ... }
//	  update = function(args) end,    -- new arguments (also in the global args)
//	  stop = function() end,
//	  on_traces = function(batch) ... return batch end,
//	  on_logs = function(batch) ... return batch end,
//	}
//
// The types of args and exports are those of package luabind/schema:
// string, number, integer, boolean, duration ("200ms" in scripts, a
// number of seconds in Lua), any, table (any table), consumer (a
// component's input), output ({ traces = {...}, metrics = {...}, logs =
// {...} }), object (with fields = { ... }), list(T) and map(T). A field
// takes type, required, default, enum (strings), min and max (numbers),
// doc and fields. Arguments are decoded by package engine/decode: wrong
// types, unknown fields (with "did you mean"), missing required fields,
// enums, durations and bounds get its errors, at the script's lines, and
// are checked by `flowlua check` with references as placeholders.
//
// Every component also takes timeout (default "1s": the limit of each call
// into its Lua code) and memory_limit (default "64MiB": the memory budget
// of each of its Lua states, see Isolation). Data components take on_error ("pass", default, or
// "drop"), concurrency (default 1, at most MaxConcurrency) and output
// (unless the table says output = false), and export input.
//
// # The API in the component's Lua state
//
//   - args: the current arguments, a table (read it in the hooks; update
//     replaces it).
//   - component: { id, name, plugin_version }.
//   - log.debug/info/warn/error(msg [, { key = value }]) and print: the
//     component's logger, with component_id.
//   - metrics.counter/gauge/histogram(name, help [, { labels = {...},
//     buckets = {...} }]) → :inc([n] [, labels]), :add(n), :dec, :set(v),
//     :observe(v). The metric is named <plugin>_<component>_<name>
//     (acme_redact_redacted_total) and carries component_id; the states of
//     a component share it. The host counts failed calls in
//     flowlua_lua_errors_total{hook, reason="error"|"timeout"}. A metric
//     keeps at most MetricSeriesLimit (1000) series: label values beyond
//     go to its overflow series (every label "__overflow__"), counted in
//     flowlua_lua_metric_series_overflow_total{metric} and logged once; a
//     component defines at most MaxMetrics (100) metrics.
//   - every(interval, fn) and after(delay, fn): timers ("10s" or seconds),
//     returning a handle with :stop(); they run while the component runs,
//     in the primary state (create them in start).
//   - set_health("healthy"|"unhealthy", msg): the component's own health.
//   - set_exports{ name = value }: changes those exports (checked against
//     their types); components referencing them are re-evaluated.
//   - emit(batch [, output]): sends a batch to output (an argument of type
//     output or consumer; default: the output argument) once the callback
//     returns.
//   - extract(batch, key, value): moves the records whose attribute key
//     (the record's, else its resource's) equals value into a new batch,
//     returned (nil when none matches).
//   - require "lib.util": a module of the plugin, once per state.
//   - The sandbox: base (without dofile, loadfile, collectgarbage; load
//     takes text only), string (bounded rep, no dump), table, math, and
//     the granted functions of os and io (os.time, os.date, os.clock,
//     os.difftime, os.getenv, io.open). Reading an undefined global is an
//     error (a typo fails where it is made).
//
// # Data
//
// on_traces, on_metrics and on_logs get the batch by reference, as
// userdata of package luabind/pdatalua (iterate, read and write, drop,
// bulk helpers). What the callback returns is forwarded to the output: a
// batch (usually the one it got); nil, false or nothing forwards nothing,
// so the batch is dropped unless it was emitted. Batches are forwarded
// after the callback returned and its state is free again; a batch without
// records is not forwarded; one emitted to several places is copied for
// all but the last. After the callback, the batch userdata is dead: a
// script cannot keep it. The input declares MutatesData, so the fan-out
// gives the component a batch it may write.
//
// # Isolation
//
// Each component instance has its own Lua states: one (the primary) plus,
// for data components, concurrency-1 more, each with its own globals;
// batches take any free state, while start, stop, timers and routes run
// in the primary. A state is used by one call at a time. Each call runs
// under a deadline (timeout); a call that fails (a Lua error, with its
// traceback) or runs out of time (cancelled) marks the component
// unhealthy until that hook next succeeds, is counted and logged, and its
// batch is passed on as it is (edits made before the failure stay) or
// dropped, as on_error says. The deadline cannot interrupt one long Go
// call (a huge pattern match); string.rep, string.format, string.gsub and
// table.concat are bounded.
//
// Each state has a memory budget (memory_limit), kept by package
// luabind/luamem: the builtins above refuse to build a string larger
// than it, and the state measures what it holds (strings, tables,
// functions it can reach) whenever the process has allocated another
// part of the budget during a long call, and at its first call after each
// garbage collection. A call whose state is over its budget fails with
// "memory limit of 64 MiB exceeded", counted with reason="memory"; the
// component turns unhealthy, and the state is discarded and rebuilt in
// place: the component file runs again with the current arguments (a
// primary state also runs start again, while the component runs; the
// timers of the old state die with it). The next call runs in the new
// state and, when it succeeds, makes the hook healthy again.
package luacomponent
