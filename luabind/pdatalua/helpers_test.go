package pdatalua

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// newState returns a state opened like flowlua's sandbox (base, string,
// table, math) with the pdata bindings, and src loaded.
func newState(tb testing.TB, src string) *lua.LState {
	tb.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	tb.Cleanup(L.Close)
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.StringLibName, lua.OpenString},
		{lua.TabLibName, lua.OpenTable},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	Open(L)
	if err := L.DoString(prelude + src); err != nil {
		tb.Fatalf("loading script: %v", err)
	}
	return L
}

// prelude gives the test scripts eq(got, want [, what]).
const prelude = `
function eq(got, want, what)
  if got ~= want then
    error(string.format("%s: got %s (%s), want %s (%s)", what or "value",
      tostring(got), type(got), tostring(want), type(want)), 2)
  end
end
`

// call calls the global function fn with args, protected, under a context
// as the host does.
func call(L *lua.LState, fn string, args ...lua.LValue) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	L.SetContext(ctx)
	defer L.RemoveContext()
	return L.CallByParam(lua.P{Fn: L.GetGlobal(fn), NRet: 0, Protect: true}, args...)
}

// runTraces runs on_traces(batch) over td and invalidates the batch.
func runTraces(tb testing.TB, src string, td ptrace.Traces) error {
	tb.Helper()
	L := newState(tb, src)
	b := NewTraces(L, td)
	defer b.Invalidate()
	return call(L, "on_traces", b.Value())
}

func runMetrics(tb testing.TB, src string, md pmetric.Metrics) error {
	tb.Helper()
	L := newState(tb, src)
	b := NewMetrics(L, md)
	defer b.Invalidate()
	return call(L, "on_metrics", b.Value())
}

func runLogs(tb testing.TB, src string, ld plog.Logs) error {
	tb.Helper()
	L := newState(tb, src)
	b := NewLogs(L, ld)
	defer b.Invalidate()
	return call(L, "on_logs", b.Value())
}

// mustRun fails the test on a Lua error.
func mustRun(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("callback failed: %v", err)
	}
}

// wantErr fails the test unless err contains want.
func wantErr(tb testing.TB, err error, want string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("callback succeeded, want an error containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		tb.Fatalf("error %q does not contain %q", err.Error(), want)
	}
	if ae, ok := err.(*lua.ApiError); ok && ae.Type == lua.ApiErrorPanic {
		tb.Fatalf("a Go panic reached Lua: %v", err)
	}
}

func readExample(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "otlp", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func exampleTraces(tb testing.TB) ptrace.Traces {
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(readExample(tb, "trace.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return td
}

func exampleMetrics(tb testing.TB) pmetric.Metrics {
	md, err := (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(readExample(tb, "metrics.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return md
}

func exampleLogs(tb testing.TB) plog.Logs {
	ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(readExample(tb, "logs.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return ld
}

// genTraces builds resources × scopes × spans spans; span j of a scope is
// named "span-j" and has the attributes of a typical HTTP server span,
// user.email and net.peer.ip among them.
func genTraces(resources, scopes, spans int) ptrace.Traces {
	td := ptrace.NewTraces()
	for r := range resources {
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "svc-"+string(rune('a'+r%26)))
		rs.Resource().Attributes().PutStr("host.name", "host-1")
		for s := range scopes {
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName("lib-" + string(rune('a'+s%26)))
			for j := range spans {
				sp := ss.Spans().AppendEmpty()
				sp.SetName("span-" + itoa(j))
				sp.SetKind(ptrace.SpanKindServer)
				sp.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, byte(j)})
				sp.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, 7, byte(j)})
				sp.SetStartTimestamp(1700000000000000000)
				sp.SetEndTimestamp(1700000000250000000)
				a := sp.Attributes()
				a.PutStr("http.method", "GET")
				a.PutStr("http.route", "/users/{id}")
				a.PutInt("http.status_code", 200)
				a.PutStr("user.email", "someone@example.com")
				a.PutStr("net.peer.ip", "10.1.2.3")
				a.PutStr("user.id", "u-42")
				a.PutDouble("sample.ratio", 0.25)
				a.PutBool("error", false)
			}
		}
	}
	return td
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for ; i > 0; i /= 10 {
		n--
		b[n] = byte('0' + i%10)
	}
	return string(b[n:])
}
