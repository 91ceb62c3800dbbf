package otlpwire

import (
	"bytes"
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// TestAppendRequestIsPdatasEncoding: the bytes appended are those pdata's
// ProtoMarshaler returns, after whatever dst held, for every fixture.
func TestAppendRequestIsPdatasEncoding(t *testing.T) {
	prefix := []byte("kept")
	check := func(name string, data any, want []byte) {
		t.Helper()
		got, ok := AppendRequest(append([]byte(nil), prefix...), data)
		if !ok {
			t.Fatalf("%s: not appended", name)
		}
		if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want) {
			t.Errorf("%s: appended %d bytes, want pdata's %d", name, len(got)-len(prefix), len(want))
		}
		got, _ = AppendRequest(make([]byte, 0, 1), data) // dst without room
		if !bytes.Equal(got, want) {
			t.Errorf("%s: appended into a short buffer differs", name)
		}
		roomy := append(make([]byte, 0, len(prefix)+len(want)+100), prefix...) // written without sizing
		got, _ = AppendRequest(roomy, data)
		if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want) {
			t.Errorf("%s: appended into a buffer with room differs", name)
		}
	}
	for i, in := range traceInputs(t) {
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(in)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		check(fmt.Sprintf("traces %d", i), td, want)
	}
	for i, in := range metricInputs(t) {
		md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(in)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		check(fmt.Sprintf("metrics %d", i), md, want)
	}
	for i, in := range logInputs(t) {
		ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(in)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		check(fmt.Sprintf("logs %d", i), ld, want)
	}
	if _, ok := AppendRequest(nil, "not pdata"); ok {
		t.Error("a string was appended")
	}
	if got, ok := AppendRequest(prefix, ptrace.NewTraces()); !ok || !bytes.Equal(got, prefix) {
		t.Errorf("empty traces: %q, %v; want the prefix alone", got, ok)
	}
}
