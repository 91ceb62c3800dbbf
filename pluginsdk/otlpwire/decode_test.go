package otlpwire

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/testdata"
	"google.golang.org/protobuf/encoding/protowire"
)

// signal is one OTLP signal as the tests see it: pdata's own decoder, this
// package's, and pdata's encoder, all on protobuf bytes.
type signal struct {
	name  string
	pdata func([]byte) ([]byte, error) // decode with pdata, re-encode
	fast  func(*decoder, []byte) ([]byte, error)
	// unmarshal decodes with an Unmarshaler (the OTLP/HTTP entry point)
	// and re-encodes.
	unmarshal func(*Unmarshaler, []byte) ([]byte, error)
	inputs    func(t testing.TB) [][]byte
}

var signals = []signal{
	{
		name: "traces",
		pdata: func(b []byte) ([]byte, error) {
			td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(b)
			if err != nil {
				return nil, err
			}
			return (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		},
		fast: func(d *decoder, b []byte) ([]byte, error) {
			td, err := d.traces(b)
			if err != nil {
				return nil, err
			}
			return (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		},
		unmarshal: func(u *Unmarshaler, b []byte) ([]byte, error) {
			td, err := u.UnmarshalTraces(b)
			if err != nil {
				return nil, err
			}
			return (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		},
		inputs: traceInputs,
	},
	{
		name: "metrics",
		pdata: func(b []byte) ([]byte, error) {
			md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(b)
			if err != nil {
				return nil, err
			}
			return (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		},
		fast: func(d *decoder, b []byte) ([]byte, error) {
			md, err := d.metrics(b)
			if err != nil {
				return nil, err
			}
			return (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		},
		unmarshal: func(u *Unmarshaler, b []byte) ([]byte, error) {
			md, err := u.UnmarshalMetrics(b)
			if err != nil {
				return nil, err
			}
			return (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		},
		inputs: metricInputs,
	},
	{
		name: "logs",
		pdata: func(b []byte) ([]byte, error) {
			ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(b)
			if err != nil {
				return nil, err
			}
			return (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		},
		fast: func(d *decoder, b []byte) ([]byte, error) {
			ld, err := d.logs(b)
			if err != nil {
				return nil, err
			}
			return (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		},
		unmarshal: func(u *Unmarshaler, b []byte) ([]byte, error) {
			ld, err := u.UnmarshalLogs(b)
			if err != nil {
				return nil, err
			}
			return (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		},
		inputs: logInputs,
	},
}

func newDecoder() *decoder { return &decoder{strings: new(internTable)} }

// example reads one of the upstream OTLP/JSON examples kept in the
// repository's testdata/otlp.
func example(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "otlp", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustFor returns a function that fails t on an encoding error.
func mustFor(t testing.TB) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

func traceInputs(t testing.TB) [][]byte {
	must := mustFor(t)
	m := &ptrace.ProtoMarshaler{}
	upstream, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(example(t, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	every := ptrace.NewTraces()
	rs := every.ResourceSpans().AppendEmpty()
	rs.SetSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
	rs.Resource().SetDroppedAttributesCount(3)
	fillValues(rs.Resource().Attributes())
	ss := rs.ScopeSpans().AppendEmpty()
	ss.SetSchemaUrl("scope-schema")
	ss.Scope().SetName("scope")
	ss.Scope().SetVersion("1.0")
	ss.Scope().SetDroppedAttributesCount(1)
	ss.Scope().Attributes().PutStr("scope.key", "v")
	sp := ss.Spans().AppendEmpty()
	sp.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	sp.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, 7, 8})
	sp.SetParentSpanID([8]byte{8, 7, 6, 5, 4, 3, 2, 1})
	sp.TraceState().FromRaw("congo=t61rcWkgMzE")
	sp.SetFlags(0x101)
	sp.SetName("every field")
	sp.SetKind(ptrace.SpanKindConsumer)
	sp.SetStartTimestamp(1)
	sp.SetEndTimestamp(1 << 62)
	fillValues(sp.Attributes())
	sp.SetDroppedAttributesCount(4)
	sp.SetDroppedEventsCount(5)
	sp.SetDroppedLinksCount(6)
	sp.Status().SetCode(ptrace.StatusCodeError)
	sp.Status().SetMessage("boom")
	ev := sp.Events().AppendEmpty()
	ev.SetName("exception")
	ev.SetTimestamp(7)
	ev.SetDroppedAttributesCount(2)
	ev.Attributes().PutStr("exception.message", "boom")
	sp.Events().AppendEmpty()
	ln := sp.Links().AppendEmpty()
	ln.SetTraceID([16]byte{0: 9, 15: 1})
	ln.SetSpanID([8]byte{0: 9})
	ln.TraceState().FromRaw("a=b")
	ln.SetFlags(1)
	ln.SetDroppedAttributesCount(1)
	ln.Attributes().PutInt("link.n", -7)
	ss.Spans().AppendEmpty() // a span with no fields at all
	every.ResourceSpans().AppendEmpty()
	return [][]byte{
		must(m.MarshalTraces(upstream)),
		must(m.MarshalTraces(testdata.GenerateTraces(20))),
		must(m.MarshalTraces(every)),
		must(m.MarshalTraces(ptrace.NewTraces())),
	}
}

func metricInputs(t testing.TB) [][]byte {
	must := mustFor(t)
	m := &pmetric.ProtoMarshaler{}
	upstream, err := (&pmetric.JSONUnmarshaler{}).UnmarshalMetrics(example(t, "metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	every := testdata.GenerateMetricsAllTypes()
	rm := every.ResourceMetrics().At(0)
	rm.SetSchemaUrl("resource-schema")
	sm := rm.ScopeMetrics().At(0)
	sm.SetSchemaUrl("scope-schema")
	sm.Scope().SetName("scope")
	sm.Scope().SetVersion("2")
	metric := sm.Metrics().AppendEmpty()
	metric.SetName("with.metadata")
	metric.Metadata().PutStr("prometheus.type", "unknown")
	dp := metric.SetEmptySum().DataPoints().AppendEmpty()
	dp.SetFlags(pmetric.DefaultDataPointFlags.WithNoRecordedValue(true))
	fillValues(dp.Attributes())
	ex := dp.Exemplars().AppendEmpty()
	ex.SetIntValue(-3)
	ex.SetTimestamp(9)
	ex.SetTraceID([16]byte{0: 1})
	ex.SetSpanID([8]byte{0: 1})
	ex.FilteredAttributes().PutStr("k", "v")
	hist := sm.Metrics().AppendEmpty().SetEmptyHistogram().DataPoints().AppendEmpty()
	hist.SetMin(-1)
	hist.SetMax(1)
	hist.SetSum(0)
	hist.Exemplars().AppendEmpty().SetDoubleValue(0.5)
	eh := sm.Metrics().AppendEmpty().SetEmptyExponentialHistogram()
	eh.SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
	edp := eh.DataPoints().AppendEmpty()
	edp.SetScale(-4)
	edp.SetZeroThreshold(1e-9)
	edp.SetMin(0.1)
	edp.SetMax(9)
	edp.Negative().SetOffset(-2)
	edp.Negative().BucketCounts().FromRaw([]uint64{1, 1 << 40, 0, 3})
	edp.Exemplars().AppendEmpty().SetIntValue(1)
	sm.Metrics().AppendEmpty() // a metric with no data
	return [][]byte{
		must(m.MarshalMetrics(upstream)),
		must(m.MarshalMetrics(testdata.GenerateMetrics(20))),
		must(m.MarshalMetrics(every)),
		must(m.MarshalMetrics(testdata.GenerateMetricsAllTypesEmpty())),
	}
}

func logInputs(t testing.TB) [][]byte {
	must := mustFor(t)
	m := &plog.ProtoMarshaler{}
	upstream, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs(example(t, "logs.json"))
	if err != nil {
		t.Fatal(err)
	}
	every := plog.NewLogs()
	rl := every.ResourceLogs().AppendEmpty()
	rl.SetSchemaUrl("resource-schema")
	rl.Resource().Attributes().PutStr("service.name", "svc")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.SetSchemaUrl("scope-schema")
	sl.Scope().SetName("scope")
	lr := sl.LogRecords().AppendEmpty()
	lr.SetTimestamp(1)
	lr.SetObservedTimestamp(2)
	lr.SetSeverityNumber(plog.SeverityNumberFatal4)
	lr.SetSeverityText("FATAL")
	lr.SetEventName("app.crash")
	lr.SetFlags(plog.DefaultLogRecordFlags.WithIsSampled(true))
	lr.SetTraceID([16]byte{0: 1, 15: 2})
	lr.SetSpanID([8]byte{0: 3})
	lr.SetDroppedAttributesCount(9)
	fillValues(lr.Attributes())
	body := lr.Body().SetEmptyMap()
	fillValues(body)
	sl.LogRecords().AppendEmpty().Body().SetStr("plain")
	sl.LogRecords().AppendEmpty().Body().SetEmptyBytes().FromRaw([]byte{0, 1, 2})
	return [][]byte{
		must(m.MarshalLogs(upstream)),
		must(m.MarshalLogs(testdata.GenerateLogs(20))),
		must(m.MarshalLogs(every)),
	}
}

// fillValues puts one attribute of every value type into m, nested ones
// included.
func fillValues(m pcommon.Map) {
	m.PutStr("str", "value")
	m.PutStr("", "empty key")
	m.PutStr("empty.value", "")
	m.PutInt("int", -42)
	m.PutInt("int.max", 1<<63-1)
	m.PutDouble("double", 3.25)
	m.PutBool("bool", true)
	m.PutBool("false", false)
	m.PutEmpty("empty")
	m.PutEmptyBytes("bytes").FromRaw([]byte("\x00\xff"))
	s := m.PutEmptySlice("slice")
	s.AppendEmpty().SetStr("a")
	s.AppendEmpty().SetInt(1)
	s.AppendEmpty()
	s.AppendEmpty().SetEmptySlice().AppendEmpty().SetBool(true)
	kv := m.PutEmptyMap("map")
	kv.PutStr("inner", "x")
	kv.PutEmptyMap("deeper").PutDouble("d", 1)
	m.PutEmptyMap("empty.map")
	m.PutEmptySlice("empty.slice")
}

// TestSameAsPdata decodes real and generated requests of every signal with
// the fast path and checks that it handled them and built exactly what
// pdata builds: both re-encode to the request's own bytes.
func TestSameAsPdata(t *testing.T) {
	for _, s := range signals {
		t.Run(s.name, func(t *testing.T) {
			d := newDecoder()
			for i, in := range s.inputs(t) {
				want, err := s.pdata(in)
				if err != nil {
					t.Fatalf("input %d: pdata: %v", i, err)
				}
				if !bytes.Equal(want, in) {
					t.Fatalf("input %d: pdata does not round-trip its own encoding", i)
				}
				got, err := s.fast(d, in)
				if err != nil {
					t.Fatalf("input %d: fast path declined: %v", i, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("input %d: fast path built different data (%d bytes re-encoded, pdata %d)", i, len(got), len(want))
				}
			}
		})
	}
}

// TestDeclines covers input the fast path leaves to pdata: it declines, and
// pdata's result (or error) is what the receiver gets.
func TestDeclines(t *testing.T) {
	cases := declineCases()
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := newDecoder().traces(in); !errors.Is(err, errUnsupported) {
				t.Fatalf("fast path: got %v, want it to decline", err)
			}
		})
	}
	// Declined but valid input still decodes, through pdata: the duplicate
	// key is kept twice as pdata keeps it.
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(cases["duplicate attribute key"])
	if err != nil || td.ResourceSpans().At(0).Resource().Attributes().Len() != 2 {
		t.Fatalf("pdata: %v", err)
	}
}

// TestInternedStrings checks that a string repeated across items is one
// allocation, and that strings survive the request buffer being reused.
func TestInternedStrings(t *testing.T) {
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for range 3 {
		spans.AppendEmpty().Attributes().PutStr("http.request.method", "GET")
	}
	in := mustFor(t)((&ptrace.ProtoMarshaler{}).MarshalTraces(td))
	got, err := newDecoder().traces(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 0 // the pooled buffer is reused after decoding
	}
	var first string
	gotSpans := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := range gotSpans.Len() {
		v, _ := gotSpans.At(i).Attributes().Get("http.request.method")
		if v.Str() != "GET" {
			t.Fatalf("span %d: value %q after the buffer was overwritten", i, v.Str())
		}
		if i == 0 {
			first = v.Str()
		} else if unsafe.StringData(v.Str()) != unsafe.StringData(first) {
			t.Errorf("span %d: value not shared with span 0", i)
		}
	}
}

// declineCases are requests (traces) the fast path must leave to pdata.
func declineCases() map[string][]byte {
	kv := keyValue
	msg := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	resource := func(r []byte) []byte { return bytesField(1, bytesField(1, r)) } // ExportTraceServiceRequest.resource_spans[0].resource
	return map[string][]byte{
		"duplicate attribute key": resource(msg(bytesField(1, kv("k", "a")), bytesField(1, kv("k", "b")))),
		"resource entity_refs":    resource(bytesField(3, bytesField(2, []byte("type")))),
		"unknown field":           resource(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1)),
		"attribute value twice":   resource(bytesField(1, msg(bytesField(1, []byte("k")), bytesField(2, bytesField(1, []byte("a"))), bytesField(2, nil)))),
		"resource twice":          msg(bytesField(1, msg(bytesField(1, bytesField(1, kv("a", "1"))), bytesField(1, bytesField(1, kv("b", "2")))))),
		"group wire type":         protowire.AppendTag(nil, 1, protowire.StartGroupType),
		"truncated":               bytesField(1, bytesField(1, bytesField(1, kv("k", "v"))))[:9],
		"short trace id":          bytesField(1, bytesField(2, bytesField(2, bytesField(1, []byte{1, 2, 3})))),
	}
}
