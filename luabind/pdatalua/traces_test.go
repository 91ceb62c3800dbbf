package pdatalua

import (
	"math"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func TestTracesExampleAccessors(t *testing.T) {
	mustRun(t, runTraces(t, `
function on_traces(batch)
  eq(batch:signal(), "traces")
  eq(batch:read_only(), false)
  eq(batch:resource_count(), 1)
  eq(batch:span_count(), 1)
  local rs = batch:resource(1)
  eq(rs:attr("service.name"), "my.service")
  eq(rs:scope_count(), 1)
  local ss = rs:scope(1)
  eq(ss:name(), "my.library")
  eq(ss:version(), "1.0.0")
  eq(ss:attr("my.scope.attribute"), "some scope attribute")
  eq(ss:span_count(), 1)
  local s = ss:span(1)
  eq(s:name(), "I'm a server span")
  eq(s:kind(), "server")
  eq(s:trace_id(), "5b8efff798038103d269b633813fc60c")
  eq(s:span_id(), "eee19b7ec3c1b174")
  eq(s:parent_span_id(), "eee19b7ec3c1b173")
  eq(s:start_time(), "1544712660000000000")
  eq(s:end_time(), "1544712661000000000")
  eq(s:duration(), 1e9)
  local code, msg = s:status()
  eq(code, "unset", "status code")
  eq(msg, "", "status message")
  eq(s:trace_state(), "")
  eq(s:event_count(), 0)
  eq(s:link_count(), 0)
  eq(s:attr("my.span.attr"), "some value")
  eq(s:attr("missing"), nil)
  eq(s:has_attr("my.span.attr"), true)
  eq(s:has_attr("missing"), false)
  eq(s:attr_count(), 1)
  eq(s:resource():attr("service.name"), "my.service")
  eq(s:scope():name(), "my.library")
  eq(ss:resource():attr("service.name"), "my.service")
  eq(ss:span(2), nil)
  eq(ss:span(0), nil)
  eq(batch:resource(2), nil)
  eq(rs:scope(2), nil)
  eq(batch:span(2), nil)
  eq(tostring(s), "pdata.span")
  eq(getmetatable(s), "pdata.span")
  eq(s:dropped(), false)
end`, exampleTraces(t)))
}

func TestTracesSettersVisibleInGo(t *testing.T) {
	td := exampleTraces(t)
	mustRun(t, runTraces(t, `
function on_traces(batch)
  local s = batch:span(1)
  s:set_name("renamed")
  s:set_kind("client")
  s:set_status("error", "boom")
  s:set_trace_id("0102030405060708090a0b0c0d0e0f10")
  s:set_span_id("AABBCCDDEEFF0011")
  s:set_parent_span_id("")
  s:set_start_time("1700000000000000001")
  s:set_end_time("1700000000000000999")
  s:set_attr("str", "v")
  s:set_attr("int", 42)
  s:set_attr("neg", -7)
  s:set_attr("double", 1.5)
  s:set_attr("bool", true)
  s:set_attr("my.span.attr", 3)
  eq(s:del_attr("missing"), false)
  s:resource():set_attr("deployment.environment", "prod")
  s:scope():set_attr("scope.extra", false)
  eq(s:name(), "renamed")
  eq(s:kind(), "client")
  local code, msg = s:status()
  eq(code, "error")
  eq(msg, "boom")
  eq(s:parent_span_id(), "")
  eq(s:duration(), 998)
end`, td))
	s := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	if s.Name() != "renamed" || s.Kind() != ptrace.SpanKindClient {
		t.Errorf("name/kind = %q/%v", s.Name(), s.Kind())
	}
	if s.Status().Code() != ptrace.StatusCodeError || s.Status().Message() != "boom" {
		t.Errorf("status = %v %q", s.Status().Code(), s.Status().Message())
	}
	if got := s.TraceID(); got != pcommon.TraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}) {
		t.Errorf("trace id %v", got)
	}
	if got := s.SpanID(); got != pcommon.SpanID([8]byte{0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0, 0x11}) {
		t.Errorf("span id %v", got)
	}
	if !s.ParentSpanID().IsEmpty() {
		t.Errorf("parent span id %v, want empty", s.ParentSpanID())
	}
	if s.StartTimestamp() != 1700000000000000001 || s.EndTimestamp() != 1700000000000000999 {
		t.Errorf("times %d %d", s.StartTimestamp(), s.EndTimestamp())
	}
	want := map[string]any{
		"str": "v", "int": int64(42), "neg": int64(-7), "double": 1.5, "bool": true, "my.span.attr": int64(3),
	}
	if got := s.Attributes().AsRaw(); !equalRaw(got, want) {
		t.Errorf("attributes = %v, want %v", got, want)
	}
	if v, _ := td.ResourceSpans().At(0).Resource().Attributes().Get("deployment.environment"); v.Str() != "prod" {
		t.Errorf("resource attribute not set")
	}
	if v, ok := td.ResourceSpans().At(0).ScopeSpans().At(0).Scope().Attributes().Get("scope.extra"); !ok || v.Bool() {
		t.Errorf("scope attribute not set")
	}
}

func equalRaw(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestAttrValues(t *testing.T) {
	td := genTraces(1, 1, 1)
	a := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	a.PutInt("big", 1<<53+1)
	a.PutInt("edge", 1<<53)
	a.PutInt("negbig", -(1<<53)-1)
	a.PutInt("max", math.MaxInt64)
	a.PutInt("min", math.MinInt64)
	a.PutEmptyBytes("bytes").FromRaw([]byte("\x00\xffraw"))
	a.PutEmptySlice("slice").FromRaw([]any{"a", int64(1)})
	a.PutEmptyMap("map").PutStr("k", "v")
	a.PutEmpty("empty")
	mustRun(t, runTraces(t, `
function on_traces(batch)
  local s = batch:span(1)
  eq(s:attr("big"), "9007199254740993")
  eq(s:attr("edge"), 9007199254740992)
  eq(s:attr("negbig"), "-9007199254740993")
  eq(s:attr("max"), "9223372036854775807")
  eq(s:attr("min"), "-9223372036854775808")
  eq(s:attr("http.status_code"), 200)
  eq(s:attr("sample.ratio"), 0.25)
  eq(s:attr("error"), false)
  eq(s:attr("bytes"), "\0\255raw")
  eq(s:attr("slice"), '["a",1]')
  eq(s:attr("map"), '{"k":"v"}')
  eq(s:attr("empty"), nil)
  eq(s:has_attr("empty"), true)
  local seen, n = {}, 0
  for k, v in s:attrs() do
    seen[k] = v
    n = n + 1
    s:del_attr(k) -- the snapshot allows changes during the loop
  end
  eq(n, 17)
  eq(seen["big"], "9007199254740993")
  eq(seen["user.email"], "someone@example.com")
  eq(s:attr_count(), 0)
  s:set_attr("f", 2^53)
  s:set_attr("g", 3.0)
  s:set_attr("h", 1e300)
  s:set_attr("i", 0/0)
end`, td))
	got := a.AsRaw()
	if got["f"] != int64(1<<53) || got["g"] != int64(3) || got["h"] != 1e300 {
		t.Errorf("numbers set: %v", got)
	}
	if v, _ := a.Get("i"); v.Type() != pcommon.ValueTypeDouble || !math.IsNaN(v.Double()) {
		t.Errorf("NaN set as %v", v.Type())
	}
}

func TestTraceIteration(t *testing.T) {
	td := genTraces(3, 2, 4)
	// an empty scope in the middle and an empty resource at the end
	td.ResourceSpans().At(1).ScopeSpans().AppendEmpty()
	td.ResourceSpans().At(1).ScopeSpans().At(2).CopyTo(td.ResourceSpans().At(1).ScopeSpans().At(0))
	td.ResourceSpans().AppendEmpty()
	mustRun(t, runTraces(t, `
function on_traces(batch)
  local n = batch:span_count()
  eq(n, 20)
  -- nested iterators
  local c = 0
  for rs in batch:resources() do
    for ss in rs:scopes() do
      for span in ss:spans() do c = c + 1 end
    end
  end
  eq(c, n, "nested")
  -- nested index access
  c = 0
  for r = 1, batch:resource_count() do
    local rs = batch:resource(r)
    for s = 1, rs:scope_count() do
      local ss = rs:scope(s)
      for i = 1, ss:span_count() do
        eq(ss:span(i):name(), "span-" .. (i - 1))
        c = c + 1
      end
    end
  end
  eq(c, n, "index")
  -- flat
  local names = {}
  for span in batch:spans() do names[#names + 1] = span:name() end
  eq(#names, n, "flat")
  for i = 1, n do eq(batch:span(i):name(), names[i], "span(" .. i .. ")") end
  for i = n, 1, -1 do eq(batch:span(i):name(), names[i], "backwards " .. i) end
  eq(batch:span(7):name(), names[7])
  eq(batch:span(3):name(), names[3])
  eq(batch:span(19):name(), names[19])
  eq(batch:span(n + 1), nil)
  eq(batch:span(0), nil)
  eq(batch:span(5):name(), names[5])
  -- each_span, stopping early
  c = 0
  eq(batch:each_span(function(span) c = c + 1 end), n)
  eq(c, n)
  c = 0
  eq(batch:each_span(function(span) c = c + 1; if c == 3 then return false end end), 3)
  -- nested loops over the same level have their own handles
  local pairs_seen = 0
  for a in batch:spans() do
    local an = a:name()
    for b in batch:spans() do pairs_seen = pairs_seen + 1 end
    eq(a:name(), an, "outer handle moved by the inner loop")
  end
  eq(pairs_seen, n * n)
  -- span:resource() follows the flat iterator
  local services = {}
  for span in batch:spans() do services[span:resource():attr("service.name")] = true end
  eq(services["svc-a"] and services["svc-b"] and services["svc-c"], true)
end`, td))
}

func TestTraceDrops(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, td ptrace.Traces)
	}{
		{"spans in nested loops", `
function on_traces(batch)
  for rs in batch:resources() do
    for ss in rs:scopes() do
      for span in ss:spans() do
        if span:name() == "span-1" or span:name() == "span-3" then span:drop() end
      end
    end
  end
  -- nothing moves during the callback
  eq(batch:span_count(), 16)
  eq(batch:span(2):dropped(), true)
  eq(batch:span(1):dropped(), false)
end`, func(t *testing.T, td ptrace.Traces) {
			if got := spanNames(td); got != "span-0 span-2 span-0 span-2 | span-0 span-2 span-0 span-2" {
				t.Errorf("spans left: %s", got)
			}
		}},
		{"break out of the loop", `
function on_traces(batch)
  for span in batch:spans() do
    span:drop()
    if span:name() == "span-2" then break end
  end
end`, func(t *testing.T, td ptrace.Traces) {
			if got := spanNames(td); got != "span-3 span-0 span-1 span-2 span-3 | span-0 span-1 span-2 span-3 span-0 span-1 span-2 span-3" {
				t.Errorf("spans left: %s", got)
			}
		}},
		{"by index", `
function on_traces(batch)
  batch:span(1):drop()
  batch:resource(2):scope(1):span(4):drop()
  batch:resource(2):scope(1):span(4):drop() -- twice is once
end`, func(t *testing.T, td ptrace.Traces) {
			if got := spanNames(td); got != "span-1 span-2 span-3 span-0 span-1 span-2 span-3 | span-0 span-1 span-2 span-0 span-1 span-2 span-3" {
				t.Errorf("spans left: %s", got)
			}
		}},
		{"resource and scope", `
function on_traces(batch)
  batch:resource(1):drop()
  batch:resource(2):scope(2):drop()
  eq(batch:resource(1):dropped(), true)
  eq(batch:span(1):dropped(), true)
  eq(batch:resource(2):scope(2):dropped(), true)
  eq(batch:resource(2):scope(2):span(1):dropped(), true)
end`, func(t *testing.T, td ptrace.Traces) {
			if td.ResourceSpans().Len() != 1 || td.SpanCount() != 4 {
				t.Errorf("resources %d spans %d", td.ResourceSpans().Len(), td.SpanCount())
			}
			if v, _ := td.ResourceSpans().At(0).Resource().Attributes().Get("service.name"); v.Str() != "svc-b" {
				t.Errorf("wrong resource kept: %s", v.Str())
			}
		}},
		{"containers emptied by drops go", `
function on_traces(batch)
  for ss in batch:resource(1):scopes() do
    for span in ss:spans() do span:drop() end
  end
  for span in batch:resource(2):scope(1):spans() do span:drop() end
end`, func(t *testing.T, td ptrace.Traces) {
			if td.ResourceSpans().Len() != 1 || td.ResourceSpans().At(0).ScopeSpans().Len() != 1 || td.SpanCount() != 4 {
				t.Errorf("left: %s", spanNames(td))
			}
		}},
		{"error after drop still applies it", `
function on_traces(batch)
  batch:span(1):drop()
  error("script failed")
end`, func(t *testing.T, td ptrace.Traces) {
			if td.SpanCount() != 15 {
				t.Errorf("span count %d, want 15", td.SpanCount())
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			td := genTraces(2, 2, 4)
			err := runTraces(t, tt.src, td)
			if !strings.Contains(tt.src, "script failed") {
				mustRun(t, err)
			}
			tt.check(t, td)
		})
	}
}

func TestEmptyContainers(t *testing.T) {
	// Containers empty before the callback stay, unless remove_empty.
	for _, removeEmpty := range []bool{false, true} {
		td := genTraces(2, 1, 2)
		td.ResourceSpans().At(0).ScopeSpans().AppendEmpty()
		td.ResourceSpans().AppendEmpty()
		src := `function on_traces(batch) batch:span(4):drop() end`
		if removeEmpty {
			src = `function on_traces(batch) batch:span(4):drop(); batch:remove_empty() end`
		}
		mustRun(t, runTraces(t, src, td))
		resources, scopes := td.ResourceSpans().Len(), td.ResourceSpans().At(0).ScopeSpans().Len()
		if removeEmpty && (resources != 2 || scopes != 1) || !removeEmpty && (resources != 3 || scopes != 2) {
			t.Errorf("remove_empty=%v: %d resources, %d scopes in the first", removeEmpty, resources, scopes)
		}
	}
}

func TestUnpositionedHandles(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"iterator state before the loop", `
function on_traces(batch)
  local f, state = batch:spans()
  state:name()
end`, "not positioned"},
		{"iterator handle after the loop", `
function on_traces(batch)
  local last
  for s in batch:spans() do last = s end
  last:name()
end`, "not positioned"},
		{"resource iterator state", `
function on_traces(batch)
  local f, state = batch:resources()
  state:attr("x")
end`, "not positioned"},
		{"drop on an unpositioned handle", `
function on_traces(batch)
  local f, state = batch:resource(1):scope(1):spans()
  state:drop()
end`, "not positioned"},
		{"dot instead of colon", `
function on_traces(batch)
  batch:span(1).name()
end`, "span expected, got nil (call methods with ':')"},
		{"wrong handle type", `
function on_traces(batch)
  local span = batch:span(1)
  span.name(batch:resource(1))
end`, "span expected, got pdata.resource"},
		{"traces method on a scope of logs is refused", `
function on_traces(batch)
  local m = batch:methods("scope")
  m.span_count(batch)
end`, "scope expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, runTraces(t, tt.src, genTraces(1, 1, 2)), tt.want)
		})
	}
}

// spanNames lists span names, resources separated by " | ".
func spanNames(td ptrace.Traces) string {
	var out []string
	for _, rs := range td.ResourceSpans().All() {
		var names []string
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				names = append(names, s.Name())
			}
		}
		out = append(out, strings.Join(names, " "))
	}
	return strings.Join(out, " | ")
}
