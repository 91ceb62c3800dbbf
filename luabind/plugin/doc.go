// Package plugin loads components written in Lua from plugin directories
// and hosts them. A Lua component is a component.Registration like any
// other: its arguments and exports are declared in Lua and checked by
// package engine/decode (see component.Schema), so that a pipeline uses
// it, and `flowlua components` lists it, exactly like a Go component.
//
// # Plugins
//
// A plugin is a directory holding plugin.lua, its manifest, and Lua files:
//
//	plugins/acme/plugin.lua     return { name = "acme", version = "1.2.0",
//	                                     components = { "redact" },
//	                                     grants = { "os.time" } }
//	plugins/acme/redact.lua     the component acme.redact
//	plugins/acme/lib/util.lua   a module: require "lib.util"
//
// The manifest runs in an empty sandbox (values only) and is checked like
// component arguments (see Manifest). A script declares the plugins it
// uses:
//
//	plugin "acme" { path = "plugins/acme", version = "1.2.0", grants = { "os.time" } }
//	plugin "acme_v1" { path = "plugins/acme-1.0" }   -- another version, side by side
//	acme.redact "pii" { keys = { "user.email" } }
//
// Loading a declaration (Load), step by step:
//
//  1. The namespace must be lowercase and not taken by registered
//     components.
//  2. The path (default: the namespace) is looked up: an absolute path as
//     it is; a relative one in the script's directory, then in each
//     Options.SearchPaths (--plugins.path), then in plugins/ next to the
//     script. A missing directory is an error naming every place tried.
//  3. Every *.lua file of the directory is read once, bounded in number and
//     size, through an os.Root (links cannot lead outside). Components run
//     the code that was read, whatever happens on disk later.
//  4. The manifest is checked; every file is compiled (a syntax error is
//     reported at its line); each component file runs once in a probe
//     state whose API does nothing, and the table it returns is checked.
//  5. A declared version must equal the manifest's (a leading "v" aside).
//     The declaration must grant every grant the manifest asks for; a
//     granted name unknown to flowlua is an error with a hint. Grants the
//     manifest does not ask for are not given.
//  6. The components are added under the namespace to a clone of the
//     registry, with Fingerprint a hash of the plugin's files and grants:
//     an edited plugin has its running components rebuilt on reload,
//     other components are kept. The files join Script.Files, so that
//     they are watched; the files looked for and not found (the manifest
//     in each directory tried, a component's file) are recorded as
//     absent, so that a reload that failed for them is retried when they
//     appear.
//
// LoadFS loads a plugin embedded in the binary under its own name (the
// lua.* standard components); Scan finds plugins in directories, for
// listings.
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
// Types: string, number, integer, boolean, duration ("200ms" in scripts, a
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
// into its Lua code). Data components take on_error ("pass", default, or
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
//     flowlua_lua_errors_total{hook, reason="error"|"timeout"}.
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
// call (a huge pattern match); string.rep and string.format are bounded.
package plugin
