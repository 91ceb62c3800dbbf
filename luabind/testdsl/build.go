package testdsl

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The builders turn a short description into OTLP JSON:
//
//	traces {
//	  resource = { ["service.name"] = "shop" },   -- optional
//	  { name = "GET /cart", kind = "server", attributes = { ["http.status_code"] = 200 } },
//	}
//	logs { { body = "disk full", severity_text = "ERROR", attributes = { host = "a" } } }
//	metrics { { name = "requests", sum = 3 }, { name = "queue", gauge = 1.5, attributes = { q = "a" } } }
//
// Spans get trace and span ids numbered from 1 unless given (hex), and a
// fixed start and end time, so that a built batch is the same on every run.

// baseTime is the timestamp of built items: 2024-01-01T00:00:00Z.
const baseTime = pcommon.Timestamp(1704067200 * 1e9)

// entries splits a builder's table into its resource attributes and its
// list of items.
func (p *parser) entries(L *lua.LState, what string) (lua.LValue, []*lua.LTable) {
	t := L.CheckTable(1)
	var res lua.LValue
	var items []*lua.LTable
	n := t.Len()
	t.ForEach(func(k, v lua.LValue) {
		switch k := k.(type) {
		case lua.LString:
			rt, ok := v.(*lua.LTable)
			if string(k) != "resource" || !ok {
				L.RaiseError("%s: unknown field %q (only resource = { ... } and a list of %s)", what, string(k), what)
			}
			res = rt
		case lua.LNumber:
			if int(k) < 1 || int(k) > n {
				L.RaiseError("%s: the list has a hole", what)
			}
		}
	})
	for i := 1; i <= n; i++ {
		it, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.RaiseError("%s: item %d: expected a table, got %s", what, i, t.RawGetInt(i).Type())
		}
		items = append(items, it)
	}
	return res, items
}

// itemFields reads an item's fields, refusing unknown ones.
func itemTable(L *lua.LState, what string, i int, t *lua.LTable, allowed ...string) map[string]lua.LValue {
	f, err := fields(t, allowed...)
	if err != nil {
		L.RaiseError("%s: item %d: %v", what, i+1, err)
	}
	return f
}

func str(L *lua.LState, what string, v lua.LValue) string {
	switch v := v.(type) {
	case nil:
		return ""
	case lua.LString:
		return string(v)
	}
	L.RaiseError("%s: expected a string, got %s", what, v.Type())
	return ""
}

// putAttrs copies a Lua table of attributes into m.
func putAttrs(L *lua.LState, what string, v lua.LValue, m pcommon.Map) {
	if v == nil {
		return
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("%s: expected a table of attributes, got %s", what, v.Type())
	}
	var keys []string
	t.ForEach(func(k, _ lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			L.RaiseError("%s: expected string keys, got %s", what, k)
		}
		keys = append(keys, string(ks))
	})
	sortStrings(keys)
	for _, k := range keys {
		putValue(L, what+"."+k, t.RawGetString(k), m.PutEmpty(k))
	}
}

func putValue(L *lua.LState, what string, v lua.LValue, dst pcommon.Value) {
	switch v := v.(type) {
	case lua.LString:
		dst.SetStr(string(v))
	case lua.LBool:
		dst.SetBool(bool(v))
	case lua.LNumber:
		f := float64(v)
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			dst.SetInt(int64(f))
		} else {
			dst.SetDouble(f)
		}
	case *lua.LTable:
		if l, ok := list(v); ok && l != nil && len(l) > 0 {
			s := dst.SetEmptySlice()
			for i, e := range l {
				putValue(L, fmt.Sprintf("%s[%d]", what, i+1), e, s.AppendEmpty())
			}
			return
		}
		putAttrs(L, what, v, dst.SetEmptyMap())
	default:
		L.RaiseError("%s: expected a string, number, boolean or table, got %s", what, v.Type())
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func id16(L *lua.LState, what string, v lua.LValue, n int) pcommon.TraceID {
	var id pcommon.TraceID
	if v == nil {
		binary.BigEndian.PutUint64(id[8:], uint64(n))
		return id
	}
	if err := decodeHex(str(L, what, v), id[:]); err != nil {
		L.RaiseError("%s: %v", what, err)
	}
	return id
}

func id8(L *lua.LState, what string, v lua.LValue, n int) pcommon.SpanID {
	var id pcommon.SpanID
	if v == nil {
		binary.BigEndian.PutUint64(id[:], uint64(n))
		return id
	}
	if err := decodeHex(str(L, what, v), id[:]); err != nil {
		L.RaiseError("%s: %v", what, err)
	}
	return id
}

func decodeHex(s string, dst []byte) error {
	if len(s) != 2*len(dst) {
		return fmt.Errorf("expected %d hex digits, got %q", 2*len(dst), s)
	}
	for i := range dst {
		var b byte
		if _, err := fmt.Sscanf(s[2*i:2*i+2], "%02x", &b); err != nil {
			return fmt.Errorf("expected hex digits, got %q", s)
		}
		dst[i] = b
	}
	return nil
}

var spanKinds = map[string]ptrace.SpanKind{
	"internal": ptrace.SpanKindInternal, "server": ptrace.SpanKindServer, "client": ptrace.SpanKindClient,
	"producer": ptrace.SpanKindProducer, "consumer": ptrace.SpanKindConsumer,
}

func (p *parser) buildTraces(L *lua.LState) int {
	res, items := p.entries(L, "traces")
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	putAttrs(L, "traces: resource", res, rs.Resource().Attributes())
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	for i, it := range items {
		f := itemTable(L, "traces", i, it, "name", "kind", "attributes", "trace_id", "span_id", "status")
		sp := spans.AppendEmpty()
		sp.SetName(str(L, "name", f["name"]))
		sp.SetTraceID(id16(L, "trace_id", f["trace_id"], i+1))
		sp.SetSpanID(id8(L, "span_id", f["span_id"], i+1))
		sp.SetStartTimestamp(baseTime)
		sp.SetEndTimestamp(baseTime + 1e9)
		if k := str(L, "kind", f["kind"]); k != "" {
			kind, ok := spanKinds[strings.ToLower(k)]
			if !ok {
				L.RaiseError("traces: item %d: kind: expected internal, server, client, producer or consumer, got %q", i+1, k)
			}
			sp.SetKind(kind)
		}
		switch s := strings.ToLower(str(L, "status", f["status"])); s {
		case "":
		case "ok":
			sp.Status().SetCode(ptrace.StatusCodeOk)
		case "error":
			sp.Status().SetCode(ptrace.StatusCodeError)
		default:
			L.RaiseError("traces: item %d: status: expected ok or error, got %q", i+1, s)
		}
		putAttrs(L, "attributes", f["attributes"], sp.Attributes())
	}
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		L.RaiseError("traces: %v", err)
	}
	L.Push(lua.LString(b))
	return 1
}

var severities = map[string]plog.SeverityNumber{
	"TRACE": plog.SeverityNumberTrace, "DEBUG": plog.SeverityNumberDebug, "INFO": plog.SeverityNumberInfo,
	"WARN": plog.SeverityNumberWarn, "ERROR": plog.SeverityNumberError, "FATAL": plog.SeverityNumberFatal,
}

func (p *parser) buildLogs(L *lua.LState) int {
	res, items := p.entries(L, "logs")
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	putAttrs(L, "logs: resource", res, rl.Resource().Attributes())
	records := rl.ScopeLogs().AppendEmpty().LogRecords()
	for i, it := range items {
		f := itemTable(L, "logs", i, it, "body", "severity_text", "attributes")
		lr := records.AppendEmpty()
		lr.SetTimestamp(baseTime)
		if b := f["body"]; b != nil {
			putValue(L, "body", b, lr.Body())
		}
		if s := str(L, "severity_text", f["severity_text"]); s != "" {
			lr.SetSeverityText(s)
			lr.SetSeverityNumber(severities[strings.ToUpper(s)])
		}
		putAttrs(L, "attributes", f["attributes"], lr.Attributes())
	}
	b, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	if err != nil {
		L.RaiseError("logs: %v", err)
	}
	L.Push(lua.LString(b))
	return 1
}

func (p *parser) buildMetrics(L *lua.LState) int {
	res, items := p.entries(L, "metrics")
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	putAttrs(L, "metrics: resource", res, rm.Resource().Attributes())
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	for i, it := range items {
		f := itemTable(L, "metrics", i, it, "name", "gauge", "sum", "attributes", "unit")
		m := ms.AppendEmpty()
		m.SetName(str(L, "name", f["name"]))
		m.SetUnit(str(L, "unit", f["unit"]))
		var dp pmetric.NumberDataPoint
		var v lua.LValue
		switch {
		case f["gauge"] != nil && f["sum"] == nil:
			dp, v = m.SetEmptyGauge().DataPoints().AppendEmpty(), f["gauge"]
		case f["sum"] != nil && f["gauge"] == nil:
			sum := m.SetEmptySum()
			sum.SetIsMonotonic(true)
			sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			dp, v = sum.DataPoints().AppendEmpty(), f["sum"]
		default:
			L.RaiseError("metrics: item %d: give one of gauge = <number> or sum = <number>", i+1)
		}
		n, ok := v.(lua.LNumber)
		if !ok {
			L.RaiseError("metrics: item %d: expected a number, got %s", i+1, v.Type())
		}
		if float64(n) == math.Trunc(float64(n)) {
			dp.SetIntValue(int64(n))
		} else {
			dp.SetDoubleValue(float64(n))
		}
		dp.SetTimestamp(baseTime)
		putAttrs(L, "attributes", f["attributes"], dp.Attributes())
	}
	b, err := (&pmetric.JSONMarshaler{}).MarshalMetrics(md)
	if err != nil {
		L.RaiseError("metrics: %v", err)
	}
	L.Push(lua.LString(b))
	return 1
}
