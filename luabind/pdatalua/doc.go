// Package pdatalua gives Lua components the pdata batch of a callback
// (ptrace.Traces, pmetric.Metrics, plog.Logs) as userdata, by reference: no
// copy and no re-encoding in or out. Scripts read and edit the batch in
// place; what Go holds after the callback is what the script left.
//
// # Go side
//
// Open registers the bindings in a state, once. For each callback the host
// wraps the batch, passes Value to the callback and invalidates the batch
// when the callback returns, whether it succeeded or not:
//
//	b := pdatalua.NewTraces(L, td) // or b.ResetTraces(td) to reuse a Batch
//	err := L.CallByParam(lua.P{Fn: onTraces, NRet: 1, Protect: true}, b.Value())
//	b.Invalidate() // applies drops; any later use from Lua is an error
//
// UnwrapTraces (UnwrapMetrics, UnwrapLogs) turns a batch a script hands back
// (emit(batch), a returned batch) into the Go batch; it fails for anything
// but the live batch of the current callback. Reusing one Batch per state
// with ResetTraces keeps its buffers; a Batch is not safe for concurrent use,
// like the state it belongs to.
//
// # Lua side: walking a batch
//
// A batch is resources, each with scopes, each with items: spans, log
// records, or metrics that hold data points. Every level can be walked with
// an iterator or by index (1-based; an index out of range gives nil):
//
//	for rs in batch:resources() do           -- batch:resource_count(), batch:resource(i)
//	  for ss in rs:scopes() do               -- rs:scope_count(), rs:scope(i)
//	    for span in ss:spans() do            -- ss:span_count(), ss:span(i)
//	      ...
//	    end                                  -- logs: ss:records(), ss:record_count(), ss:record(i)
//	  end                                    -- metrics: ss:metrics(), metric:points()
//	end
//
// Flat access skips the levels: batch:spans() iterates every span of the
// batch, batch:each_span(fn) calls fn(span) for each (fn returning false
// stops; the number of calls is returned), and batch:span(i) is the i-th span
// of the batch (O(1) per call in increasing order of i). span:resource() and
// span:scope() give the span's resource and scope when they are needed.
// Logs have batch:records(), batch:each_record(fn), batch:record(i),
// batch:record_count(); metrics batch:metrics(), batch:each_metric(fn),
// batch:metric(i), batch:metric_count(), and over every data point
// batch:points(), batch:each_point(fn), batch:point(i), batch:point_count().
//
// Handles are reused: a loop does not allocate per item. An iterator moves
// one handle from item to item, so a handle is valid only until its iterator
// moves on; keep a value (span:name()), not the handle, to use it later. The
// handle of an index access (ss:span(i), batch:span(i), ...) is the same
// userdata for every index of one parent, moved by each call. Each iterator
// has its own handle, so nested loops over the same level are fine.
//
// # The recommended pattern
//
// A call from Lua to Go costs about 50 ns and a method lookup (span:name())
// about 30 ns more; a generic for calls its iterator once per item. The
// fastest loop is a numeric for over the batch's flat index, with the
// methods of batch:by_index(type) kept in locals: they take the item's
// index (as batch:span(i) does) in place of the item, so each item costs
// only the calls of its edits:
//
//	function on_traces(batch)
//	  local spans = batch:by_index("span")
//	  local set_attr, del_attr = spans.set_attr, spans.del_attr
//	  for i = 1, batch:span_count() do
//	    set_attr(i, "user.email", "redacted")
//	    del_attr(i, "net.peer.ip")
//	  end
//	end
//
// by_index takes "span" (traces), "record" (logs), "metric" or "point"
// (metrics); its table has every method of that type (name, set_attr,
// drop, resource, ...). Going to the next index, or staying on the same
// one, costs O(1); any other move costs as batch:span(i) does. An index out
// of range raises an error. The table is made once and serves the callback
// it was last asked for in: kept and used in a later callback without
// asking again, it raises "batch used after its callback returned".
//
// The loop over handles, with the methods of batch:methods(type) in locals,
// costs one call more per item (the iterator's step):
//
//	for span in batch:spans() do
//	  set_attr(span, "user.email", "redacted") -- m.set_attr of batch:methods("span")
//	end
//
// When the edit is the same for every item, the bulk helpers below do it in
// Go in one call, at the speed of a Go loop:
//
//	function on_traces(batch)
//	  batch:set_attr("user.email", "redacted")
//	  batch:del_attr("net.peer.ip")
//	end
//
// # Fields
//
// Resources, scopes, spans, log records and data points have attributes:
// attr(key), has_attr(key), set_attr(key, value), del_attr(key) (returns
// whether it was there), attr_count(), and attrs(), an iterator of key,
// value pairs over a snapshot (the loop may change the attributes). Values
// read are strings, numbers, booleans or nil; an int beyond ±2^53, which a
// Lua number (a float64) would round, is returned as a string of digits;
// bytes are a Lua string of the raw bytes; maps and slices their JSON text.
// set_attr takes a string, a boolean or a number: an integral number is
// stored as an int, any other as a double.
//
// Trace and span ids are lowercase hex strings ("" when unset), timestamps
// strings of decimal unix nanoseconds: neither fits a Lua number. Setters
// take the same forms.
//
//   - scope: name(), version(), resource()
//   - span: name/set_name, kind/set_kind ("unspecified", "internal",
//     "server", "client", "producer", "consumer"), trace_id/set_trace_id,
//     span_id/set_span_id, parent_span_id/set_parent_span_id, trace_state(),
//     start_time/set_start_time, end_time/set_end_time, duration() (a number
//     of nanoseconds), status() (code "unset", "ok" or "error", and
//     message), set_status(code [, message]), event_count(), link_count(),
//     resource(), scope()
//   - log record: body/set_body (a string, number or boolean),
//     severity_text/set_severity_text, severity_number/set_severity_number
//     (0 to 24), event_name/set_event_name, trace_id/set_trace_id,
//     span_id/set_span_id, time/set_time, observed_time/set_observed_time,
//     resource(), scope()
//   - metric: name/set_name, type() ("gauge", "sum", "histogram",
//     "exponential_histogram", "summary", "empty"), unit/set_unit,
//     description/set_description, temporality() ("delta", "cumulative",
//     "unspecified"; nil for gauges and summaries), is_monotonic() (sums),
//     point_count(), point(i), points(), resource(), scope()
//   - data point: value() (gauge and sum points: the number, as stored,
//     double or int), set_value(n) (keeps the point's type: an int point
//     takes an integral number or a string of digits), count() and sum()
//     (histogram, exponential histogram and summary points), time(),
//     start_time(), metric()
//   - batch: signal() ("traces", "metrics", "logs"), read_only(),
//     methods(type) (type: "batch", "resource", "scope", "span", "metric",
//     "point", "record"), by_index(type) (type: "span", "record", "metric",
//     "point")
//
// # Dropping
//
// span:drop(), record:drop(), point:drop(), metric:drop(), ss:drop() and
// rs:drop() mark the item for removal; x:dropped() tells whether it or a
// container of it is marked. Marks are applied once, with RemoveIf, when the
// callback returns (Invalidate) or when the batch is unwrapped: until then
// indexes and counts do not move, and breaking out of a loop loses nothing.
// A scope, resource or metric that the drops leave empty is removed with
// them; batch:remove_empty() also removes those that were empty before.
//
// # Bulk helpers
//
// These apply to every span, data point or log record of the batch, in Go,
// and return the number of items they changed (or selected):
//
//	batch:set_attr(key, value [, where])
//	batch:del_attr(key [, where])        -- key nil: every key where.key_pattern matches
//	batch:hash_attr(key [, where])       -- value := hex SHA-256 of its string form
//	batch:mask_attr(key, mask [, where]) -- value := mask, where the attribute exists
//	batch:drop(where)                    -- marks the items for removal
//	batch:count([where])
//	batch:edit_attrs(edits [, where])    -- several edits in one walk; one count per edit
//
// edit_attrs takes a list of edits, each { action = "set" | "mask" | "hash"
// | "delete", key = k or key_pattern = re, value = v } (value: set's scalar,
// mask's string), and applies them in order to each item in a single walk
// over the batch, where as many calls of the helpers above walk it once each:
//
//	local masked, deleted = batch:edit_attrs({
//	  { action = "mask", key = "user.email", value = "redacted" },
//	  { action = "delete", key = "net.peer.ip" },
//	})
//
// hash_attr writes the full SHA-256 (64 lowercase hex characters) of the
// value's string form, unsalted: a pseudonym that still joins across
// batches, not an anonymisation of guessable values.
//
// A where clause selects items; all its conditions must hold. It is a table
// of conditions, or a list of such tables:
//
//	{ attr = "http.route", equals = "/login" }        -- the item's attribute
//	{ resource_attr = "service.name", equals = "x" }   -- its resource's
//	{ scope_attr = "k", exists = false }               -- its scope's
//	{ attr = "user.email", matches = "@example\\.com$" } -- Go regexp, see below
//	{ name = "GET /x" }, { name_matches = "^GET " }    -- span or metric name
//	{ scope = "my.library" }                           -- scope name
//	{ kind = "server" }                                -- spans
//	{ severity_at_least = 17 }, { body_matches = "timeout" } -- log records
//	{ {resource_attr = "service.name", equals = "x"}, {attr = "http.route", exists = true} }
//	{ key_pattern = "^user\\." }                       -- keys for del/hash/mask_attr
//
// An attribute condition takes one of equals (a string compares with the
// string form of strings, numbers and booleans; a number with ints and
// doubles; a boolean with booleans), matches, or exists (true by default).
// Patterns (matches, name_matches, body_matches, key_pattern) are Go regular
// expressions (RE2: linear time, no backtracking), not Lua patterns: write
// "^user\\." in a Lua string. They are compiled once per state.
//
// # Errors
//
// Every function checks its arguments and raises a Lua error, never a Go
// panic: a wrong type, a method called with '.' instead of ':', a string
// longer than MaxStringLen (MaxKeyLen for keys), an unknown where key. A
// write to a batch marked read-only (shared by a fan-out) raises "batch is
// read-only: declare the component as mutating". A batch or handle used
// after its callback returned raises "batch used after its callback
// returned". Bulk helpers check the state's context every 1024 items, so a
// callback deadline also stops them.
package pdatalua
