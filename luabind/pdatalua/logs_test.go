package pdatalua

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
)

func TestLogsExampleAccessors(t *testing.T) {
	mustRun(t, runLogs(t, `
function on_logs(batch)
  eq(batch:signal(), "logs")
  eq(batch:record_count(), 1)
  local ss = batch:resource(1):scope(1)
  eq(ss:record_count(), 1)
  local r = ss:record(1)
  eq(r:body(), "Example log record")
  eq(r:severity_text(), "Information")
  eq(r:severity_number(), 10)
  eq(r:trace_id(), "5b8efff798038103d269b633813fc60c")
  eq(r:span_id(), "eee19b7ec3c1b174")
  eq(r:time(), "1544712660300000000")
  eq(r:observed_time(), "1544712660300000000")
  eq(r:event_name(), "")
  eq(r:attr("string.attribute"), "some string")
  eq(r:attr("boolean.attribute"), true)
  eq(r:attr("int.attribute"), 10)
  eq(r:attr("double.attribute"), 637.704)
  eq(r:attr("array.attribute"), '["many","values"]')
  eq(r:attr("map.attribute"), '{"some.map.key":"some value"}')
  eq(r:resource():attr("service.name"), "my.service")
  eq(r:scope():name(), "my.library")
  local n = 0
  for rec in batch:records() do n = n + 1 end
  for rec in ss:records() do n = n + 1 end
  eq(n, 2)
  eq(batch:record(1):body(), "Example log record")
  eq(batch:each_record(function(r) end), 1)
end`, exampleLogs(t)))
}

func TestLogsEdits(t *testing.T) {
	ld := exampleLogs(t)
	mustRun(t, runLogs(t, `
function on_logs(batch)
  local r = batch:record(1)
  r:set_body("redacted body")
  r:set_severity_text("WARN")
  r:set_severity_number(13)
  eq(pcall(r.set_severity_number, r, 25), false)
  r:set_trace_id("")
  r:set_span_id("0102030405060708")
  r:set_time("1")
  r:set_observed_time(2)
  r:set_event_name("login")
  r:del_attr("map.attribute")
end`, ld))
	r := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0)
	if r.Body().Str() != "redacted body" || r.SeverityText() != "WARN" || r.SeverityNumber() != plog.SeverityNumberWarn {
		t.Errorf("record: %q %q %v", r.Body().Str(), r.SeverityText(), r.SeverityNumber())
	}
	if !r.TraceID().IsEmpty() || r.SpanID().String() != "0102030405060708" {
		t.Errorf("ids %v %v", r.TraceID(), r.SpanID())
	}
	if r.Timestamp() != 1 || r.ObservedTimestamp() != 2 || r.EventName() != "login" {
		t.Errorf("times %d %d, event %q", r.Timestamp(), r.ObservedTimestamp(), r.EventName())
	}
	if _, ok := r.Attributes().Get("map.attribute"); ok {
		t.Errorf("attribute not deleted")
	}
}

func genLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "api")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for i := range n {
		r := lrs.AppendEmpty()
		r.SetSeverityNumber(plog.SeverityNumber(1 + 4*(i%6)))
		r.Body().SetStr("request " + itoa(i) + " done")
		if i%3 == 0 {
			r.Body().SetStr("request " + itoa(i) + " timeout")
		}
		r.Attributes().PutStr("user.email", "u"+itoa(i)+"@example.com")
	}
	return ld
}

func TestLogsDropsAndBulk(t *testing.T) {
	ld := genLogs(12)
	mustRun(t, runLogs(t, `
function on_logs(batch)
  eq(batch:count({ severity_at_least = 17 }), 4)  -- i%6 in {4, 5}: 4, 5, 10, 11
  eq(batch:count({ body_matches = "timeout$" }), 4)
  eq(batch:drop({ body_matches = "timeout$" }), 4)
  eq(batch:hash_attr("user.email", { severity_at_least = 17 }), 4)
  for r in batch:records() do
    if r:severity_number() == 5 then r:drop() end
  end
end`, ld))
	recs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	// dropped: i%3 == 0 (0,3,6,9) and severity 5 (i%6 == 1: 1, 7)
	if recs.Len() != 6 {
		t.Fatalf("%d records left, want 6", recs.Len())
	}
	hashed := 0
	for _, r := range recs.All() {
		if v, _ := r.Attributes().Get("user.email"); len(v.Str()) == 64 {
			hashed++
		}
	}
	if hashed != 4 { // severity >= 17: i%6 in {4, 5}, so 4, 5, 10, 11
		t.Errorf("%d hashed emails left, want 4", hashed)
	}
}
