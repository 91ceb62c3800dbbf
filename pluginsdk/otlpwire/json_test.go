package otlpwire

import (
	"bytes"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// jsonSignal is one OTLP signal's JSON decoding as the tests see it:
// pdata's JSON decoder and a JSONUnmarshaler, both re-encoded as
// protobuf by pdata, and pdata's JSON encoding of a protobuf input.
type jsonSignal struct {
	name      string
	pdata     func([]byte) ([]byte, error)
	unmarshal func(*JSONUnmarshaler, []byte) ([]byte, error)
	toJSON    func([]byte) ([]byte, error)
	example   string // the upstream OTLP/JSON example
	inputs    func(t testing.TB) [][]byte
}

var jsonSignals = []jsonSignal{
	{
		name: "traces",
		pdata: func(b []byte) ([]byte, error) {
			req := ptraceotlp.NewExportRequest()
			if err := req.UnmarshalJSON(b); err != nil {
				return nil, err
			}
			return req.MarshalProto()
		},
		unmarshal: func(u *JSONUnmarshaler, b []byte) ([]byte, error) {
			td, err := u.UnmarshalTraces(b)
			if err != nil {
				return nil, err
			}
			return (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		},
		toJSON: func(b []byte) ([]byte, error) {
			req := ptraceotlp.NewExportRequest()
			if err := req.UnmarshalProto(b); err != nil {
				return nil, err
			}
			return req.MarshalJSON()
		},
		example: "trace.json",
		inputs:  traceInputs,
	},
	{
		name: "metrics",
		pdata: func(b []byte) ([]byte, error) {
			req := pmetricotlp.NewExportRequest()
			if err := req.UnmarshalJSON(b); err != nil {
				return nil, err
			}
			return req.MarshalProto()
		},
		unmarshal: func(u *JSONUnmarshaler, b []byte) ([]byte, error) {
			md, err := u.UnmarshalMetrics(b)
			if err != nil {
				return nil, err
			}
			return (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
		},
		toJSON: func(b []byte) ([]byte, error) {
			req := pmetricotlp.NewExportRequest()
			if err := req.UnmarshalProto(b); err != nil {
				return nil, err
			}
			return req.MarshalJSON()
		},
		example: "metrics.json",
		inputs:  metricInputs,
	},
	{
		name: "logs",
		pdata: func(b []byte) ([]byte, error) {
			req := plogotlp.NewExportRequest()
			if err := req.UnmarshalJSON(b); err != nil {
				return nil, err
			}
			return req.MarshalProto()
		},
		unmarshal: func(u *JSONUnmarshaler, b []byte) ([]byte, error) {
			ld, err := u.UnmarshalLogs(b)
			if err != nil {
				return nil, err
			}
			return (&plog.ProtoMarshaler{}).MarshalLogs(ld)
		},
		toJSON: func(b []byte) ([]byte, error) {
			req := plogotlp.NewExportRequest()
			if err := req.UnmarshalProto(b); err != nil {
				return nil, err
			}
			return req.MarshalJSON()
		},
		example: "logs.json",
		inputs:  logInputs,
	},
}

// jsonInputs returns the signal's JSON test inputs: the upstream example
// as it is written, and pdata's JSON encoding of every protobuf input of
// the protobuf tests (upstream examples, pdata's test data, every field
// of every message).
func jsonInputs(t testing.TB, s jsonSignal) [][]byte {
	ins := [][]byte{example(t, s.example)}
	for i, in := range s.inputs(t) {
		js, err := s.toJSON(in)
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		ins = append(ins, js)
	}
	return ins
}

// TestJSONUnmarshaler decodes every JSON input with the fast path on and
// off: the data is what pdata's JSON decoder builds, byte for byte once
// encoded, it survives the body being overwritten, and with the fast path
// on the upstream example goes through it.
func TestJSONUnmarshaler(t *testing.T) {
	for _, s := range jsonSignals {
		t.Run(s.name, func(t *testing.T) {
			inputs := jsonInputs(t, s)
			for _, fast := range []bool{true, false} {
				u := NewJSONUnmarshaler(fast)
				for i, in := range inputs {
					want, err := s.pdata(in)
					if err != nil {
						t.Fatalf("input %d: pdata: %v", i, err)
					}
					buf := bytes.Clone(in)
					got, err := s.unmarshal(u, buf)
					if err != nil {
						t.Fatalf("fast %v, input %d: %v", fast, i, err)
					}
					for j := range buf {
						buf[j] = 'x'
					}
					if !bytes.Equal(got, want) {
						t.Errorf("fast %v, input %d: different data from pdata's", fast, i)
					}
					if fast && i == 0 && u.StatsOf(s.name).Fast.Load() != 1 {
						t.Errorf("the upstream example was left to pdata")
					}
				}
				st := u.StatsOf(s.name)
				if st.Fast.Load()+st.Pdata.Load() != uint64(len(inputs)) {
					t.Errorf("fast %v: counted %d fast, %d pdata, for %d requests", fast, st.Fast.Load(), st.Pdata.Load(), len(inputs))
				}
				if fast && st.Fast.Load() < uint64(len(inputs))/2 || !fast && st.Fast.Load() != 0 {
					t.Errorf("fast %v: %d of %d requests went the fast way", fast, st.Fast.Load(), len(inputs))
				}
			}
		})
	}
}

// jsonCase is a hand-written OTLP/JSON traces request, and whether the
// fast path takes it (else pdata's decoder decides).
type jsonCase struct {
	name string
	json string
	fast bool
}

// span wraps a span's JSON fields in a traces request.
func span(fields string) string {
	return `{"resourceSpans":[{"scopeSpans":[{"spans":[{` + fields + `}]}]}]}`
}

// attr wraps an attribute value's JSON in a traces request.
func attr(value string) string {
	return span(`"attributes":[{"key":"k","value":` + value + `}]`)
}

// jsonCases are what clients write that pdata's encoder does not, and
// what transcode must leave to pdata; each decodes as pdata decodes it.
func jsonCases() []jsonCase {
	return []jsonCase{
		{"snake_case names", `{"resource_spans":[{"scope_spans":[{"spans":[{"trace_id":"5b8efff798038103d269b633813fc60c","span_id":"eee19b7ec3c1b174","start_time_unix_nano":"1","end_time_unix_nano":2}]}]}]}`, true},
		{"whitespace", " \n\t\r" + span(` "name" : "a" , "kind" : 2 `) + " \n", true},
		{"numbers unquoted", span(`"startTimeUnixNano":1544712660000000000,"droppedAttributesCount":7,"flags":4294967295`), true},
		{"enum names", span(`"kind":"SPAN_KIND_CLIENT","status":{"code":"STATUS_CODE_ERROR","message":"m"}`), true},
		{"enum number unknown", span(`"kind":42`), true},
		{"enum negative", span(`"kind":-1`), true},
		{"escapes", span(`"name":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\u0000"`), true},
		{"non-ASCII raw", span(`"name":"héllo 中文"`), true},
		{"lone surrogate", span(`"name":"a\ud83db"`), false},
		{"upper-case hex id", span(`"traceId":"5B8EFFF798038103D269B633813FC60C"`), true},
		{"empty ids", span(`"traceId":"","spanId":"","parentSpanId":""`), true},
		{"string value", attr(`{"stringValue":""}`), true},
		{"int value", attr(`{"intValue":"-9223372036854775808"}`), false},
		{"int value small", attr(`{"intValue":-42}`), true},
		{"int value as string", attr(`{"intValue":"42"}`), true},
		{"double value", attr(`{"doubleValue":1.5e-7}`), true},
		{"double value -0", attr(`{"doubleValue":-0}`), true},
		{"double value long", attr(`{"doubleValue":3.14159265358979323846264338327950288}`), true},
		{"double value big", attr(`{"doubleValue":123456789012345678901234567890}`), true},
		{"double NaN", attr(`{"doubleValue":"NaN"}`), true},
		{"double Infinity", attr(`{"doubleValue":"-Infinity"}`), true},
		{"double out of range", attr(`{"doubleValue":1e400}`), false},
		{"bool value", attr(`{"boolValue":false}`), true},
		{"bytes value", attr(`{"bytesValue":"aGVsbG8="}`), true},
		{"bytes value empty", attr(`{"bytesValue":""}`), true},
		{"bytes value bad", attr(`{"bytesValue":"aGVsbG8"}`), false},
		{"array value", attr(`{"arrayValue":{"values":[{"stringValue":"a"},{"intValue":"1"},{}]}}`), true},
		{"kvlist value", attr(`{"kvlistValue":{"values":[{"key":"a","value":{"boolValue":true}},{"key":"b"}]}}`), true},
		{"empty value", attr(`{}`), true},
		{"long string", span(`"name":"` + strings.Repeat("x", 300) + `"`), true},
		{"long escaped string", span(`"name":"` + strings.Repeat("x\\n", 20000) + `"`), true},

		{"null", span(`"name":null`), false},
		{"null object", `{"resourceSpans":[{"resource":null}]}`, false},
		{"unknown field", span(`"foo":1`), false},
		{"entity refs", `{"resourceSpans":[{"resource":{"entityRefs":[{"type":"t"}]}}]}`, false},
		{"field twice", span(`"name":"a","name":"b"`), false},
		{"both names", span(`"traceId":"5b8efff798038103d269b633813fc60c","trace_id":"5b8efff798038103d269b633813fc60d"`), false},
		{"two oneof members", attr(`{"stringValue":"a","intValue":"1"}`), false},
		{"empty key", span(`"":1,"name":"a"`), false},
		{"escaped key", span(`"n\u0061me":"a"`), false},
		{"surrogate pair", span(`"name":"\ud83d\ude00"`), false},
		{"control character", span("\"name\":\"a\x01b\""), false},
		{"unknown escape", span(`"name":"a\qb"`), false},
		{"leading zero", span(`"flags":01`), false},
		{"fraction for an integer", span(`"flags":1.0`), false},
		{"negative unsigned", span(`"flags":-1`), false},
		{"uint32 overflow", span(`"flags":4294967296`), false},
		{"plus sign", span(`"startTimeUnixNano":"+1"`), false},
		{"unknown enum name", span(`"kind":"SERVER"`), false},
		{"short trace id", span(`"traceId":"5b8e"`), false},
		{"bad hex", span(`"spanId":"eee19b7ec3c1b17z"`), false},
		{"escaped id", span(`"spanId":"eee19b7ec3c1b17\u0034"`), false},
		{"trailing comma", span(`"name":"a",`), false},
		{"trailing input", span(`"name":"a"`) + ` {}`, false},
		{"truncated", span(`"name":"a"`)[:20], false},
		{"not an object", `[]`, false},
		{"empty", ``, false},
		{"wrong type", span(`"name":1`), false},
		{"deep", strings.Repeat(`{"resourceSpans":[`, 1) + strings.Repeat(`{"arrayValue":{"values":[`, 100), false},
	}
}

// TestJSONCases decodes the hand-written requests: the same data as
// pdata's JSON decoder (or the same failure), through the fast path or
// not as each case says.
func TestJSONCases(t *testing.T) {
	s := jsonSignals[0]
	for _, c := range jsonCases() {
		t.Run(c.name, func(t *testing.T) {
			u := NewJSONUnmarshaler(true)
			want, perr := s.pdata([]byte(c.json))
			got, err := s.unmarshal(u, []byte(c.json))
			if (err == nil) != (perr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("got %v, pdata %v; same data: %v", err, perr, bytes.Equal(got, want))
			}
			if perr != nil && err.Error() != perr.Error() {
				t.Errorf("error %q, pdata's %q", err, perr)
			}
			if fast := u.StatsOf("traces").Fast.Load() == 1; fast != c.fast {
				t.Errorf("fast path taken: %v, want %v", fast, c.fast)
			}
		})
	}
}

// TestTranscodeLengths checks the length prefixes transcode writes
// around the sizes where a varint grows: messages and strings of 127,
// 128, 16383 and 16384 bytes.
func TestTranscodeLengths(t *testing.T) {
	s := jsonSignals[2]
	u := NewJSONUnmarshaler(true)
	for _, n := range []int{0, 1, 126, 127, 128, 129, 16381, 16383, 16384, 16385, 2097152} {
		for _, escaped := range []bool{false, true} {
			body := strings.Repeat("b", n)
			if escaped && n > 0 {
				body = `\t` + body[1:]
			}
			in := fmt.Sprintf(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"%s"},"attributes":[{"key":"%s","value":{"intValue":"1"}}]}]}]}]}`, body, strings.Repeat("k", n/3))
			want, err := s.pdata([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			before := u.StatsOf("logs").Fast.Load()
			got, err := s.unmarshal(u, []byte(in))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%d bytes (escaped %v): %v; same data: %v", n, escaped, err, bytes.Equal(got, want))
			}
			if u.StatsOf("logs").Fast.Load() != before+1 {
				t.Errorf("%d bytes (escaped %v): left to pdata", n, escaped)
			}
		}
	}
}

// fuzzJSON checks, for any input, that a JSONUnmarshaler with the fast
// path agrees with pdata's JSON decoder: the same data, or an error when
// pdata fails (pdata's own, as the fast path declines then).
//
// It refuses (ErrTooDeep) exactly the requests whose values nest deeper
// than MaxDepth, and those whose arrays and objects nest deeper than
// maxJSONNesting.
func fuzzJSON(f *testing.F, i int) {
	s := jsonSignals[i]
	for _, in := range jsonInputs(f, s) {
		f.Add(in)
	}
	for _, c := range jsonCases() {
		f.Add([]byte(c.json))
	}
	for _, in := range deepJSONCases(i) {
		f.Add(in)
	}
	u := NewJSONUnmarshaler(true)
	f.Fuzz(func(t *testing.T, in []byte) {
		want, perr := s.pdata(in)
		got, err := s.unmarshal(u, in)
		if checkJSONNesting(in) != nil {
			if !refused(err) {
				t.Fatalf("took JSON nested deeper than %d: %v", maxJSONNesting, err)
			}
			return
		}
		// An AnyValue takes at least 3 levels of JSON (its object, an
		// arrayValue's object, its values array).
		if agreesOnDepth(t, i, err, jsonNesting(in) > 3*MaxDepth, want, perr) {
			return
		}
		if (err == nil) != (perr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("the JSONUnmarshaler disagrees with pdata: %v, pdata %v", err, perr)
		}
	})
}

// jsonNesting returns how deeply the arrays and objects of JSON nest,
// strings skipped.
func jsonNesting(in []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(in); i++ {
		switch in[i] {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		case '"':
			for i++; i < len(in) && in[i] != '"'; i++ {
				if in[i] == '\\' {
					i++
				}
			}
		}
	}
	return deepest
}

func FuzzJSONTraces(f *testing.F)  { fuzzJSON(f, 0) }
func FuzzJSONMetrics(f *testing.F) { fuzzJSON(f, 1) }
func FuzzJSONLogs(f *testing.F)    { fuzzJSON(f, 2) }

// TestPlainPrefix compares the eight-bytes-at-a-time scan with a byte
// loop, for every special byte at every offset of a 20-byte run.
func TestPlainPrefix(t *testing.T) {
	slow := func(b []byte) int {
		for i, c := range b {
			if c == '"' || c == '\\' || c < ' ' {
				return i
			}
		}
		return len(b)
	}
	for c := range 256 {
		for at := range 21 {
			b := []byte(strings.Repeat("a\x7f\xff !#[]", 3))[:20]
			if at < len(b) {
				b[at] = byte(c)
			}
			if got, want := plainPrefix(b), slow(b); got != want {
				t.Fatalf("byte %#x at %d: %d, want %d", c, at, got, want)
			}
		}
	}
}

// TestJSONEnumNames decodes every enum name transcode knows, in the
// field that takes it: pdata's decoder reads each to the same number, so
// a misspelt or misnumbered name fails here rather than silently
// decoding another value (names pdata does not know would fail on its
// side and be declined on this one).
func TestJSONEnumNames(t *testing.T) {
	cases := []struct {
		signal jsonSignal
		names  map[string]int32
		json   func(name string) string
	}{
		{jsonSignals[0], spanKinds, func(n string) string { return span(`"kind":"` + n + `"`) }},
		{jsonSignals[0], statusCodes, func(n string) string { return span(`"status":{"code":"` + n + `"}`) }},
		{jsonSignals[1], temporalities, func(n string) string {
			return `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m","sum":{"aggregationTemporality":"` + n + `","dataPoints":[{"asInt":"1"}]}}]}]}]}`
		}},
		{jsonSignals[2], severities, func(n string) string {
			return `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"` + n + `"}]}]}]}`
		}},
	}
	for _, c := range cases {
		for name, num := range c.names {
			u := NewJSONUnmarshaler(true)
			in := []byte(c.json(name))
			want, err := c.signal.pdata(in)
			if err != nil {
				t.Fatalf("%s: pdata: %v", name, err)
			}
			got, err := c.signal.unmarshal(u, in)
			if err != nil || !bytes.Equal(got, want) || u.StatsOf(c.signal.name).Fast.Load() != 1 {
				t.Errorf("%s (%d): %v; same data: %v; fast: %d", name, num, err, bytes.Equal(got, want), u.StatsOf(c.signal.name).Fast.Load())
			}
			// The number stands for the name: the same data either way.
			numeric := []byte(strings.Replace(c.json(name), `"`+name+`"`, strconv.Itoa(int(num)), 1))
			if byNumber, err := c.signal.pdata(numeric); err != nil || !bytes.Equal(byNumber, want) {
				t.Errorf("%s is not %d: %v", name, num, err)
			}
		}
	}
	// Either spelling of TRACE goes to pdata, which takes the one with a
	// space and rejects the other.
	logs := jsonSignals[2]
	for name, wantErr := range map[string]bool{"SEVERITY_NUMBER_TRACE ": false, "SEVERITY_NUMBER_TRACE": true} {
		u := NewJSONUnmarshaler(true)
		in := []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"` + name + `"}]}]}]}`)
		want, perr := logs.pdata(in)
		got, err := logs.unmarshal(u, in)
		if (err != nil) != wantErr || (perr != nil) != wantErr || !bytes.Equal(got, want) || u.StatsOf("logs").Pdata.Load() != 1 {
			t.Errorf("%q: %v, pdata %v; left to pdata: %d", name, err, perr, u.StatsOf("logs").Pdata.Load())
		}
	}
	if len(severities) != 24 {
		t.Errorf("%d severity names, want 24 (all but TRACE, which pdata spells with a space)", len(severities))
	}
}

// TestJSONSchema writes, for each request, documents that give every
// field transcode knows a value, in either spelling, each oneof member in
// turn: pdata's decoder must read them to the same data, through the
// fast path. A name pdata does not know (it would skip the field), a
// wrong field number or a wrong kind fails here.
func TestJSONSchema(t *testing.T) {
	jsonTables.Do(buildJSONTables)
	for i, m := range []*jmessage{&jTracesRequest, &jMetricsRequest, &jLogsRequest} {
		s := jsonSignals[i]
		for spelling := range 2 {
			for variant := range 7 {
				in := []byte(schemaDoc(m, spelling, variant, 0))
				u := NewJSONUnmarshaler(true)
				want, perr := s.pdata(in)
				got, err := s.unmarshal(u, in)
				if perr != nil || err != nil || !bytes.Equal(got, want) || u.StatsOf(s.name).Fast.Load() != 1 {
					t.Fatalf("%s, spelling %d, variant %d: %v, pdata %v; same data: %v; fast: %d\n%s",
						s.name, spelling, variant, err, perr, bytes.Equal(got, want), u.StatsOf(s.name).Fast.Load(), in)
				}
			}
		}
	}
}

// schemaDoc writes a JSON object of m with a value for every field (the
// camelCase names with spelling 0, snake_case with 1), and of each oneof
// the member variant selects; messages below depth 12 (AnyValues in
// AnyValues) are left empty.
func schemaDoc(m *jmessage, spelling, variant, depth int) string {
	var b strings.Builder
	b.WriteByte('{')
	members := map[uint64]int{} // oneof -> members seen
	for i := spelling; i < len(m.names); i += 2 {
		e := m.names[i]
		f := e.field
		if f.oneof != 0 {
			k := members[f.oneof]
			members[f.oneof]++
			if k != variant%bits.OnesCount64(f.oneof) {
				continue
			}
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", e.name)
		switch f.kind {
		case jMessage, jMessages:
			doc := "{}"
			if depth < 12 {
				doc = schemaDoc(f.msg, spelling, variant, depth+1)
			}
			if f.kind == jMessages {
				doc = "[" + doc + "]"
			}
			b.WriteString(doc)
		case jString:
			b.WriteString(`"s\n"`)
		case jBytes:
			b.WriteString(`"aGk="`)
		case jID:
			b.WriteString(`"` + strings.Repeat("a1", f.size) + `"`)
		case jUint32, jFixed32:
			b.WriteString("7")
		case jSint32:
			b.WriteString("-3")
		case jEnum:
			b.WriteString("1")
		case jInt64, jSfixed64:
			b.WriteString(`"-5"`)
		case jFixed64:
			b.WriteString(`"9"`)
		case jDouble:
			b.WriteString("1.5")
		case jBool:
			b.WriteString("true")
		case jFixed64s, jUint64s:
			b.WriteString(`[1,"2"]`)
		case jDoubles:
			b.WriteString(`[0.5,2]`)
		default:
			panic(fmt.Sprintf("kind %d", f.kind))
		}
	}
	b.WriteByte('}')
	return b.String()
}
