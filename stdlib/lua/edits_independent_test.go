package lua

import (
	"context"
	"strconv"
	"testing"
	"testing/fstest"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/flowlua/flowlua/luabind/plugin"
	"github.com/flowlua/flowlua/pluginsdk/otlpwire"
)

// everyOther is a plugin whose component sets user.email on the odd
// spans only (1, 3, ...) and masks tier on every span with lua.redact's
// helper, so that a write reaching a neighbour's value shows.
var everyOther = fstest.MapFS{
	"plugin.lua": {Data: []byte(`return { name = "everyother", version = "1.0.0", components = { "set" } }`)},
	"set.lua": {Data: []byte(`
return {
  signals = { "traces" },
  on_traces = function(batch)
    local spans = batch:by_index("span")
    for i = 1, batch:span_count(), 2 do
      spans.set_attr(i, "user.email", "redacted-" .. i)
    end
    return batch
  end,
}`)},
}

// TestSetStringIndependent: set_attr and lua.redact edit a batch from
// flowlua's OTLP decoder, whose intern table shares the strings of the
// repeated attribute across spans. Each span's edit must stay its own, a
// copy taken before the edit must not change, and the result must be the
// same edit made with pdata's setters on pdata's own decoding of the same
// request.
func TestSetStringIndependent(t *testing.T) {
	req := ptrace.NewTraces()
	spans := req.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for i := range 12 {
		a := spans.AppendEmpty().Attributes()
		switch i {
		case 4:
			a.PutInt("user.email", 7) // not a string: SetStr's path
		case 6:
			// no user.email: PutStr appends
		default:
			a.PutStr("user.email", "same@example.com")
		}
		a.PutStr("tier", "gold")
	}
	buf, err := ptraceotlp.NewExportRequestFromTraces(req).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	u := otlpwire.NewUnmarshaler(true)
	td, err := u.UnmarshalTraces(buf)
	if err != nil {
		t.Fatal(err)
	}
	if u.StatsOf("traces").Fast.Load() != 1 {
		t.Fatal("flowlua's decoder did not decode the request")
	}
	before := ptrace.NewTraces()
	td.CopyTo(before)

	regs, err := plugin.LoadFS(everyOther, "everyother")
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	redact := startReg(t, registered(t, "lua.redact"), map[string]any{"keys": []any{"tier"}, "mask": "x", "output": out(s)})
	set := startReg(t, regs[0], map[string]any{"output": map[string]any{"traces": []any{redact}}})
	if err := set.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if len(s.AllTraces()) != 1 {
		t.Fatalf("%d batches reached the sink", len(s.AllTraces()))
	}

	var want ptrace.Traces
	{
		r := ptraceotlp.NewExportRequest()
		if err := r.UnmarshalProto(buf); err != nil {
			t.Fatal(err)
		}
		want = r.Traces()
	}
	eachSpan(want, func(i int, sp ptrace.Span) {
		if i%2 == 0 {
			sp.Attributes().PutStr("user.email", "redacted-"+strconv.Itoa(i+1))
		}
		v, _ := sp.Attributes().Get("tier")
		v.SetStr("x")
	})
	if !ptraceEqual(t, s.AllTraces()[0], want) {
		t.Errorf("edited batch:\n%s\nwant (pdata's setters on pdata's decoding):\n%s", dump(s.AllTraces()[0]), dump(want))
	}
	if !ptraceEqual(t, before, req) {
		t.Errorf("the copy taken before the edit changed:\n%s", dump(before))
	}
}

func ptraceEqual(t *testing.T, a, b ptrace.Traces) bool {
	t.Helper()
	x, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(x) == string(y)
}

func dump(td ptrace.Traces) string {
	var out string
	eachSpan(td, func(i int, sp ptrace.Span) { out += strconv.Itoa(i+1) + ": " + attrs(sp.Attributes()) + "\n" })
	return out
}
