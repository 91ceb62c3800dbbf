package pdatalua

import (
	"encoding/hex"
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Trace and span ids travel as lowercase hex strings, "" when unset;
// timestamps as strings of decimal unix nanoseconds. A Lua number is a
// float64 and holds neither exactly.

func traceIDToLua(id pcommon.TraceID) lua.LValue {
	if id.IsEmpty() {
		return lua.LString("")
	}
	return lua.LString(hex.EncodeToString(id[:]))
}

func spanIDToLua(id pcommon.SpanID) lua.LValue {
	if id.IsEmpty() {
		return lua.LString("")
	}
	return lua.LString(hex.EncodeToString(id[:]))
}

// checkHexID decodes argument n, a hex string of len(dst) bytes or "", into dst.
func checkHexID(L *lua.LState, n int, dst []byte) {
	s := L.CheckString(n)
	if s == "" {
		clear(dst)
		return
	}
	if len(s) != 2*len(dst) {
		L.ArgError(n, "expected "+strconv.Itoa(2*len(dst))+" hex digits or \"\", got "+strconv.Itoa(len(s))+" characters")
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		L.ArgError(n, "invalid hex id: "+err.Error())
	}
}

func checkTraceID(L *lua.LState, n int) pcommon.TraceID {
	var id pcommon.TraceID
	checkHexID(L, n, id[:])
	return id
}

func checkSpanID(L *lua.LState, n int) pcommon.SpanID {
	var id pcommon.SpanID
	checkHexID(L, n, id[:])
	return id
}

func timeToLua(ts pcommon.Timestamp) lua.LValue {
	return lua.LString(strconv.FormatUint(uint64(ts), 10))
}

// checkTime returns argument n as a timestamp: a string of decimal unix
// nanoseconds, or a number if it is an integer a float64 holds exactly.
func checkTime(L *lua.LState, n int) pcommon.Timestamp {
	switch v := L.Get(n).(type) {
	case lua.LString:
		u, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			L.ArgError(n, "expected a string of unix nanoseconds: "+err.Error())
		}
		return pcommon.Timestamp(u)
	case lua.LNumber:
		if i, ok := exactInt(float64(v)); ok && i >= 0 && i <= maxExactInt {
			return pcommon.Timestamp(i)
		}
		L.ArgError(n, "a number is not an exact timestamp: pass unix nanoseconds as a string")
	default:
		L.ArgError(n, "string of unix nanoseconds expected, got "+v.Type().String())
	}
	return 0
}

var spanKinds = [...]string{
	ptrace.SpanKindUnspecified: "unspecified",
	ptrace.SpanKindInternal:    "internal",
	ptrace.SpanKindServer:      "server",
	ptrace.SpanKindClient:      "client",
	ptrace.SpanKindProducer:    "producer",
	ptrace.SpanKindConsumer:    "consumer",
}

// spanKindNames are the strings of spanKinds, as Lua values, so that
// span:kind() does not allocate.
var spanKindNames = func() []lua.LValue {
	out := make([]lua.LValue, len(spanKinds))
	for i, s := range spanKinds {
		out[i] = lua.LString(s)
	}
	return out
}()

func spanKindToLua(k ptrace.SpanKind) lua.LValue {
	if k >= 0 && int(k) < len(spanKindNames) {
		return spanKindNames[k]
	}
	return lua.LString("unspecified")
}

func parseSpanKind(s string) (ptrace.SpanKind, bool) {
	for k, name := range spanKinds {
		if name == s {
			return ptrace.SpanKind(k), true
		}
	}
	return 0, false
}

func checkSpanKind(L *lua.LState, n int) ptrace.SpanKind {
	s := L.CheckString(n)
	k, ok := parseSpanKind(s)
	if !ok {
		L.ArgError(n, "span kind expected (unspecified, internal, server, client, producer, consumer), got "+strconv.Quote(s))
	}
	return k
}

var statusCodes = [...]string{
	ptrace.StatusCodeUnset: "unset",
	ptrace.StatusCodeOk:    "ok",
	ptrace.StatusCodeError: "error",
}

func statusCodeToLua(c ptrace.StatusCode) lua.LValue {
	if c >= 0 && int(c) < len(statusCodes) {
		return lua.LString(statusCodes[c])
	}
	return lua.LString("unset")
}

func checkStatusCode(L *lua.LState, n int) ptrace.StatusCode {
	s := L.CheckString(n)
	for c, name := range statusCodes {
		if name == s {
			return ptrace.StatusCode(c)
		}
	}
	L.ArgError(n, "status code expected (unset, ok, error), got "+strconv.Quote(s))
	return 0
}
