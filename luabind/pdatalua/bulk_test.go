package pdatalua

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// attrOf returns the string form of attribute key of span i (flat order).
func attrOf(td ptrace.Traces, i int, key string) (string, bool) {
	n := 0
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				if n == i {
					v, ok := s.Attributes().Get(key)
					if !ok {
						return "", false
					}
					return v.AsString(), true
				}
				n++
			}
		}
	}
	panic("no such span")
}

func TestBulkHelpers(t *testing.T) {
	sum := sha256.Sum256([]byte("someone@example.com"))
	hashed := hex.EncodeToString(sum[:])
	tests := []struct {
		name  string
		src   string // the body of on_traces(batch); genTraces(2, 2, 3): 12 spans
		check func(t *testing.T, td ptrace.Traces)
	}{
		{"set_attr everywhere", `eq(batch:set_attr("user.email", "redacted"), 12)`, func(t *testing.T, td ptrace.Traces) {
			for i := range 12 {
				if v, _ := attrOf(td, i, "user.email"); v != "redacted" {
					t.Fatalf("span %d: %q", i, v)
				}
			}
		}},
		{"set_attr typed", `batch:set_attr("n", 3); batch:set_attr("f", 0.5); batch:set_attr("b", true)`, func(t *testing.T, td ptrace.Traces) {
			a := td.ResourceSpans().At(1).ScopeSpans().At(1).Spans().At(2).Attributes().AsRaw()
			if a["n"] != int64(3) || a["f"] != 0.5 || a["b"] != true {
				t.Errorf("attributes %v", a)
			}
		}},
		{"del_attr", `eq(batch:del_attr("net.peer.ip"), 12); eq(batch:del_attr("net.peer.ip"), 0)`, func(t *testing.T, td ptrace.Traces) {
			if _, ok := attrOf(td, 5, "net.peer.ip"); ok {
				t.Error("not deleted")
			}
		}},
		{"del_attr by key pattern", `eq(batch:del_attr(nil, { key_pattern = "^user\\." }), 12)`, func(t *testing.T, td ptrace.Traces) {
			_, email := attrOf(td, 3, "user.email")
			_, id := attrOf(td, 3, "user.id")
			_, route := attrOf(td, 3, "http.route")
			if email || id || !route {
				t.Errorf("user.email %v user.id %v http.route %v", email, id, route)
			}
		}},
		{"hash_attr", `eq(batch:hash_attr("user.email"), 12); eq(batch:hash_attr("absent"), 0)`, func(t *testing.T, td ptrace.Traces) {
			if v, _ := attrOf(td, 7, "user.email"); v != hashed {
				t.Errorf("hashed to %q, want %q", v, hashed)
			}
		}},
		{"hash_attr of an int", `batch:hash_attr("http.status_code")`, func(t *testing.T, td ptrace.Traces) {
			sum := sha256.Sum256([]byte("200"))
			if v, _ := attrOf(td, 0, "http.status_code"); v != hex.EncodeToString(sum[:]) {
				t.Errorf("hashed to %q", v)
			}
		}},
		{"hash_attr by key pattern", `batch:hash_attr(nil, { key_pattern = "^user\\.email$" })`, func(t *testing.T, td ptrace.Traces) {
			if v, _ := attrOf(td, 11, "user.email"); v != hashed {
				t.Errorf("hashed to %q", v)
			}
		}},
		{"mask_attr only where present", `eq(batch:mask_attr("user.id", "***", { name = "span-1" }), 4); eq(batch:mask_attr("absent", "***"), 0)`, func(t *testing.T, td ptrace.Traces) {
			if v, _ := attrOf(td, 1, "user.id"); v != "***" {
				t.Errorf("span-1: %q", v)
			}
			if v, _ := attrOf(td, 2, "user.id"); v != "u-42" {
				t.Errorf("span-2: %q", v)
			}
			if _, ok := attrOf(td, 1, "absent"); ok {
				t.Error("mask created an attribute")
			}
		}},
		{"where attr equals", `eq(batch:set_attr("x", 1, { attr = "http.status_code", equals = 200 }), 12)
			eq(batch:set_attr("y", 1, { attr = "http.status_code", equals = "200" }), 12)
			eq(batch:set_attr("z", 1, { attr = "http.status_code", equals = 500 }), 0)
			eq(batch:count({ attr = "error", equals = false }), 12)
			eq(batch:count({ attr = "sample.ratio", equals = 0.25 }), 12)
			eq(batch:count({ attr = "sample.ratio", equals = "0.25" }), 12)`, nil},
		{"where exists", `eq(batch:count({ attr = "user.email" }), 12)
			eq(batch:count({ attr = "user.email", exists = false }), 0)
			eq(batch:count({ attr = "nope", exists = false }), 12)`, nil},
		{"where matches", `eq(batch:count({ attr = "user.email", matches = "@example\\.com$" }), 12)
			eq(batch:count({ attr = "http.status_code", matches = "^2" }), 12)
			eq(batch:count({ name_matches = "^span-[01]$" }), 8)`, nil},
		{"where resource and scope", `eq(batch:count({ resource_attr = "service.name", equals = "svc-b" }), 6)
			eq(batch:count({ scope = "lib-a" }), 6)
			eq(batch:count({ resource_attr = "service.name", equals = "svc-b", scope = "lib-a" }), 3)
			eq(batch:count({ {resource_attr = "service.name", equals = "svc-b"}, {attr = "user.id", equals = "u-42"}, name = "span-0" }), 2)
			eq(batch:count({ kind = "server" }), 12)
			eq(batch:count({ kind = "client" }), 0)`, nil},
		{"edit_attrs in one walk", `local masked, deleted, absent = batch:edit_attrs({
				{ action = "mask", key = "user.email", value = "redacted" },
				{ action = "delete", key = "net.peer.ip" },
				{ action = "mask", key = "absent", value = "x" },
			})
			eq(masked, 12); eq(deleted, 12); eq(absent, 0)`, func(t *testing.T, td ptrace.Traces) {
			for i := range 12 {
				if v, _ := attrOf(td, i, "user.email"); v != "redacted" {
					t.Fatalf("span %d: user.email %q", i, v)
				}
				if _, ok := attrOf(td, i, "net.peer.ip"); ok {
					t.Fatalf("span %d: net.peer.ip not deleted", i)
				}
				if _, ok := attrOf(td, i, "absent"); ok {
					t.Fatalf("span %d: mask created an attribute", i)
				}
			}
		}},
		{"edit_attrs in order, with where and key patterns", `local set, hashed, deleted = batch:edit_attrs({
				{ action = "set", key = "n", value = 7 },
				{ action = "hash", key_pattern = "^user\\.email$" },
				{ action = "delete", key_pattern = "^user\\.id$|^n$" },
			}, { name = "span-1" })
			eq(set, 4); eq(hashed, 4); eq(deleted, 4)`, func(t *testing.T, td ptrace.Traces) {
			if v, _ := attrOf(td, 1, "user.email"); v != hashed {
				t.Errorf("span-1: user.email %q", v)
			}
			_, id := attrOf(td, 1, "user.id")
			_, n := attrOf(td, 1, "n") // set, then deleted by the edit after it
			if id || n {
				t.Errorf("span-1: user.id %v, n %v", id, n)
			}
			if v, _ := attrOf(td, 2, "user.email"); v != "someone@example.com" {
				t.Errorf("span-2 edited: %q", v)
			}
		}},
		{"drop where", `eq(batch:drop({ name = "span-0" }), 4); eq(batch:span_count(), 12)`, func(t *testing.T, td ptrace.Traces) {
			if td.SpanCount() != 8 {
				t.Errorf("%d spans", td.SpanCount())
			}
		}},
		{"drop where resource", `batch:drop({ resource_attr = "service.name", equals = "svc-a" })`, func(t *testing.T, td ptrace.Traces) {
			if td.ResourceSpans().Len() != 1 {
				t.Errorf("%d resources left", td.ResourceSpans().Len())
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			td := genTraces(2, 2, 3)
			mustRun(t, runTraces(t, "function on_traces(batch)\n"+tt.src+"\nend", td))
			if tt.check != nil {
				tt.check(t, td)
			}
		})
	}
}

func TestBulkOnMetrics(t *testing.T) {
	md := genMetrics()
	mustRun(t, runMetrics(t, `
function on_metrics(batch)
  eq(batch:del_attr("user.id", { name = "requests" }), 3)
  eq(batch:set_attr("env", "prod"), 6)
  eq(batch:mask_attr("route", "/x", { name_matches = "^lat", attr = "route", equals = "/1" }), 1)
  eq(batch:drop({ name = "sizes" }), 1)
end`, md))
	ms := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
	if ms.Len() != 2 {
		t.Fatalf("%d metrics left", ms.Len())
	}
	if _, ok := ms.At(0).Gauge().DataPoints().At(0).Attributes().Get("user.id"); ok {
		t.Error("user.id not deleted")
	}
	if v, _ := ms.At(1).Sum().DataPoints().At(1).Attributes().Get("route"); v.Str() != "/x" {
		t.Errorf("route %q", v.Str())
	}
}

func TestWhereErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unknown key", `batch:set_attr("a", 1, { atr = "x" })`, `unknown key "atr"`},
		{"two attribute targets", `batch:count({ attr = "a", resource_attr = "b" })`, "use a list of predicates"},
		{"test without target", `batch:count({ equals = "x" })`, "add attr, resource_attr or scope_attr"},
		{"two tests", `batch:count({ attr = "a", equals = "x", exists = true })`, "give one of equals, matches, exists"},
		{"bad regexp", `batch:count({ attr = "a", matches = "(" })`, "invalid regular expression"},
		{"lua pattern is not go syntax", `batch:count({ attr = "a", matches = "%d+(" })`, "invalid regular expression"},
		{"bad kind", `batch:count({ kind = "serv" })`, "span kind expected"},
		{"severity on traces", `batch:count({ severity_at_least = 3 })`, "only log records have a severity"},
		{"where not a table", `batch:set_attr("a", 1, "x")`, "where: table expected"},
		{"set_attr with key_pattern", `batch:set_attr("a", 1, { key_pattern = "." })`, "set_attr takes a key"},
		{"key and key_pattern", `batch:del_attr("a", { key_pattern = "." })`, "not both"},
		{"no key", `batch:hash_attr(nil)`, "attribute key expected"},
		{"drop without where", `batch:drop()`, "table expected"},
		{"bad value", `batch:set_attr("a", {})`, "string, number or boolean expected, got table"},
		{"bad nested", `batch:count({ 3 })`, "predicate table expected"},
		{"equals of a table", `batch:count({ attr = "a", equals = {} })`, "string, number or boolean expected"},
		{"a where clause that holds itself", `local w = {}; w[1] = w; batch:count(w)`, "nested too deep"},
		{"pattern too long", `batch:count({ attr = "a", matches = string.rep("a", 2000) })`, "pattern too long"},
		{"edits not a list", `batch:edit_attrs({ action = "delete", key = "a" })`, "edits: a list of at least one edit expected"},
		{"edits with other keys", `batch:edit_attrs({ { action = "delete", key = "a" }, x = 1 })`, "a list expected"},
		{"edit not a table", `batch:edit_attrs({ "a" })`, "edits[1]: table expected, got string"},
		{"edit action typo", `batch:edit_attrs({ { action = "delet", key = "a" } })`, `edits[1].action: unknown action "delet" (did you mean "delete"?)`},
		{"edit key typo", `batch:edit_attrs({ { action = "delete", kye = "a" } })`, `edits[1]: unknown key "kye" (did you mean "key"?)`},
		{"edit without key", `batch:edit_attrs({ { action = "hash" } })`, "edits[1]: key or key_pattern expected"},
		{"edit with both keys", `batch:edit_attrs({ { action = "hash", key = "a", key_pattern = "a" } })`, "not both"},
		{"set by pattern", `batch:edit_attrs({ { action = "set", key_pattern = "a", value = 1 } })`, "set takes a key"},
		{"set without value", `batch:edit_attrs({ { action = "set", key = "a" } })`, "edits[1].value: string, number or boolean expected, got nil"},
		{"mask without mask", `batch:edit_attrs({ { action = "mask", key = "a", value = 3 } })`, "edits[1].value: the mask, a string, expected, got number"},
		{"delete with value", `batch:edit_attrs({ { action = "delete", key = "a", value = 3 } })`, "delete takes no value"},
		{"edit bad pattern", `batch:edit_attrs({ { action = "delete", key_pattern = "(" } })`, "edits[1].key_pattern: invalid regular expression"},
		{"edits where with key_pattern", `batch:edit_attrs({ { action = "delete", key = "a" } }, { key_pattern = "." })`, "key_pattern belongs in an edit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, runTraces(t, "function on_traces(batch)\n"+tt.src+"\nend", genTraces(1, 1, 1)), tt.want)
		})
	}
	wantErr(t, runLogs(t, `function on_logs(batch) batch:count({ name = "x" }) end`, genLogs(1)), "log records have no name")
}

func TestBulkHonoursContext(t *testing.T) {
	L := newState(t, "")
	td := genTraces(1, 1, 3000)
	b := NewTraces(L, td)
	defer b.Invalidate()
	// Called from Go, the helper runs no Lua instruction: only its own
	// check of the context can stop it.
	setAttr := b.bd.tracesBatch.RawGetString("__index").(*lua.LTable).RawGetString("set_attr")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	L.SetContext(ctx)
	defer L.RemoveContext()
	err := L.CallByParam(lua.P{Fn: setAttr, NRet: 0, Protect: true}, b.Value(), lua.LString("a"), lua.LNumber(1))
	wantErr(t, err, "context canceled")
	if _, ok := attrOf(td, 2999, "a"); ok {
		t.Error("the helper ran to the end")
	}
}

func TestRegexpCache(t *testing.T) {
	L := newState(t, `function on_traces(batch)
  for i = 1, 300 do batch:count({ attr = "a", matches = "^x" .. i }) end
  batch:count({ attr = "a", matches = "^x1$" })
end`)
	b := NewTraces(L, genTraces(1, 1, 1))
	defer b.Invalidate()
	mustRun(t, call(L, "on_traces", b.Value()))
	if n := len(b.bd.regexps); n > maxRegexps || n == 0 {
		t.Errorf("%d regexps cached", n)
	}
}

// TestEditAttrsReparses checks that edit_attrs, which keeps the parse of an
// edit list, sees every change a script makes to the list between calls.
func TestEditAttrsReparses(t *testing.T) {
	td := genTraces(1, 1, 2)
	mustRun(t, runTraces(t, `
local edits = { { action = "mask", key = "user.email", value = "a" } }
function on_traces(batch)
  eq(batch:edit_attrs(edits), 2)
  eq(batch:span(1):attr("user.email"), "a")
  edits[1].value = "b"                       -- a value
  eq(batch:edit_attrs(edits), 2)
  eq(batch:span(1):attr("user.email"), "b")
  edits[1].key = "user.id"                   -- a key
  eq(batch:edit_attrs(edits), 2)
  eq(batch:span(1):attr("user.id"), "b")
  edits[1] = { action = "delete", key = "user.id" } -- an entry
  eq(batch:edit_attrs(edits), 2)
  eq(batch:span(1):attr("user.id"), nil)
  edits[2] = { action = "set", key = "k", value = 1 } -- a longer list
  local a, b = batch:edit_attrs(edits)
  eq(a, 0); eq(b, 2)
  eq(batch:span(2):attr("k"), 1)
  edits[2].colour = "red"                    -- an unknown key, added late
  local ok, err = pcall(batch.edit_attrs, batch, edits)
  eq(ok, false)
  assert(string.find(err, 'unknown key "colour"', 1, true), err)
  edits[2].colour = nil
  edits.extra = true                         -- a key that is not an index
  ok, err = pcall(batch.edit_attrs, batch, edits)
  eq(ok, false)
  assert(string.find(err, "a list expected", 1, true), err)
end`, td))
}
