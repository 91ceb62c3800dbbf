package otlpwire

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// OTLP/JSON bodies are decoded in two steps: transcode rewrites the JSON
// as the protobuf encoding of the same export request, which the fast
// decoder then decodes. transcode accepts only what pdata's JSON decoder
// reads in one way it can be sure of, and declines everything else, so that
// pdata decides: a field it does not know (pdata skips those; a field
// pdata knows and it does not would otherwise be lost), a field given
// twice or two members of one oneof (pdata's last-wins or append rules),
// null, an empty key, a string with a control character or a surrogate
// \u escape, a number jsoniter would read differently or reject, an ID
// or base64 value with an escape, and trailing input.

// errDecline is transcode's error for what pdata's JSON decoder decides.
var errDecline = errors.New("otlpwire: left to pdata's JSON decoder")

// jkind is how a JSON value of a field becomes protobuf.
type jkind uint8

const (
	jMessage  jkind = iota // an object: a length-delimited message
	jMessages              // an array of objects: one message each
	jString                // a string
	jBytes                 // a base64 string (AnyValue.bytes_value)
	jID                    // a hex string of jfield.size bytes (trace and span IDs)
	jUint32                // varint
	jSint32                // zigzag varint
	jEnum                  // an int32 or one of jfield.enum's names, as varint
	jInt64                 // varint
	jFixed64               // unsigned, fixed 64 bits
	jSfixed64              // signed, fixed 64 bits
	jFixed32               // unsigned, fixed 32 bits
	jDouble                // a number or a string (NaN, Infinity, ...), fixed 64 bits
	jBool                  // true or false, varint
	jFixed64s              // an array of unsigned integers, packed fixed 64 bits
	jUint64s               // an array of unsigned integers, packed varints
	jDoubles               // an array of doubles, packed fixed 64 bits
)

// jfield is one field of a message, under its JSON names.
type jfield struct {
	num   protowire.Number
	kind  jkind
	msg   *jmessage        // jMessage, jMessages
	size  int              // jID
	enum  map[string]int32 // jEnum
	bit   uint64           // this field's bit in the fields seen of an object
	oneof uint64           // the bits of its oneof's members, 0 if none
}

// jmessage is a message's fields by JSON name: lowerCamelCase and
// snake_case, as pdata's generated decoder reads them.
type jmessage struct {
	names []jname // both names of every field, in the fields' order
}

// jname is one JSON name of a field.
type jname struct {
	name  string
	field *jfield
}

// lookup returns the field named key, or nil; hint is where the search
// starts, and it returns where the next one should: JSON writers put an
// object's keys in one order, so the next key is most often the next name
// of the same spelling.
func (m *jmessage) lookup(key []byte, hint int) (*jfield, int) {
	n := len(m.names)
	for i := range n {
		j := hint + i
		if j >= n {
			j -= n
		}
		if e := &m.names[j]; len(e.name) == len(key) && e.name == string(key) {
			next := j + 2 // the next field, in the same spelling
			if next >= n {
				next -= n
			}
			return e.field, next
		}
	}
	return nil, hint
}

// jf describes one field for newMessage.
type jf struct {
	name  string // the proto (snake_case) name
	num   protowire.Number
	kind  jkind
	msg   *jmessage
	size  int
	enum  map[string]int32
	oneof int // fields with the same non-zero oneof are members of one
}

// newMessage builds a message's table from its fields: both names of
// each, its bit and its oneof's bits.
func newMessage(m *jmessage, fields ...jf) {
	groups := map[int]uint64{}
	for i, f := range fields {
		if f.oneof != 0 {
			groups[f.oneof] |= 1 << i
		}
	}
	for i, f := range fields {
		jfd := &jfield{num: f.num, kind: f.kind, msg: f.msg, size: f.size, enum: f.enum, bit: 1 << i, oneof: groups[f.oneof]}
		m.names = append(m.names, jname{lowerCamel(f.name), jfd}, jname{f.name, jfd})
	}
}

// lowerCamel turns a snake_case name into lowerCamelCase.
func lowerCamel(s string) string {
	out := make([]byte, 0, len(s))
	up := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '_':
			up = true
		case up && 'a' <= c && c <= 'z':
			out = append(out, c-'a'+'A')
			up = false
		default:
			out = append(out, c)
			up = false
		}
	}
	return string(out)
}

// The enums' names, as pdata's JSON decoder accepts them.
var (
	spanKinds = map[string]int32{
		"SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2,
		"SPAN_KIND_CLIENT": 3, "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5,
	}
	statusCodes = map[string]int32{
		"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2,
	}
	temporalities = map[string]int32{
		"AGGREGATION_TEMPORALITY_UNSPECIFIED": 0, "AGGREGATION_TEMPORALITY_DELTA": 1,
		"AGGREGATION_TEMPORALITY_CUMULATIVE": 2,
	}
	// pdata (v1.64.0) spells severity 1 "SEVERITY_NUMBER_TRACE ", with a
	// trailing space, and rejects the name without it: that name is left
	// out, so that pdata decides whichever spelling a client sends.
	severities = func() map[string]int32 {
		m := map[string]int32{"SEVERITY_NUMBER_UNSPECIFIED": 0}
		for i, level := range []string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"} {
			for j := 1; j <= 4; j++ {
				name := "SEVERITY_NUMBER_" + level
				if j > 1 {
					name += strconv.Itoa(j)
				}
				m[name] = int32(i*4 + j)
			}
		}
		delete(m, "SEVERITY_NUMBER_TRACE")
		return m
	}()
)

// The OTLP messages that transcode knows, field numbers as in
// opentelemetry/proto. Fields the fast decoder leaves to pdata anyway
// (a resource's entity_refs, deprecated_scope_*, the *_strindex fields,
// a metric's metadata) are left out, so that transcode declines them.
var (
	jAnyValue, jKeyValue, jArrayValue, jKeyValueList jmessage
	jResource, jScope                                jmessage

	jTracesRequest, jResourceSpans, jScopeSpans, jSpan, jEvent, jLink, jStatus jmessage

	jMetricsRequest, jResourceMetrics, jScopeMetrics, jMetric   jmessage
	jGauge, jSum, jHistogram, jExpHistogram, jSummary           jmessage
	jNumberPoint, jHistogramPoint, jExpHistogramPoint, jBuckets jmessage
	jSummaryPoint, jQuantile, jExemplar                         jmessage
	jLogsRequest, jResourceLogs, jScopeLogs, jLogRecord         jmessage
)

// jsonTables builds the messages above once, when a request is first
// transcoded.
var jsonTables sync.Once

func buildJSONTables() {
	attrs := func(num protowire.Number) jf {
		return jf{name: "attributes", num: num, kind: jMessages, msg: &jKeyValue}
	}
	newMessage(&jAnyValue,
		jf{name: "string_value", num: 1, kind: jString, oneof: 1},
		jf{name: "bool_value", num: 2, kind: jBool, oneof: 1},
		jf{name: "int_value", num: 3, kind: jInt64, oneof: 1},
		jf{name: "double_value", num: 4, kind: jDouble, oneof: 1},
		jf{name: "array_value", num: 5, kind: jMessage, msg: &jArrayValue, oneof: 1},
		jf{name: "kvlist_value", num: 6, kind: jMessage, msg: &jKeyValueList, oneof: 1},
		jf{name: "bytes_value", num: 7, kind: jBytes, oneof: 1},
	)
	newMessage(&jKeyValue,
		jf{name: "key", num: 1, kind: jString},
		jf{name: "value", num: 2, kind: jMessage, msg: &jAnyValue},
	)
	newMessage(&jArrayValue, jf{name: "values", num: 1, kind: jMessages, msg: &jAnyValue})
	newMessage(&jKeyValueList, jf{name: "values", num: 1, kind: jMessages, msg: &jKeyValue})
	newMessage(&jResource,
		attrs(1),
		jf{name: "dropped_attributes_count", num: 2, kind: jUint32},
	)
	newMessage(&jScope,
		jf{name: "name", num: 1, kind: jString},
		jf{name: "version", num: 2, kind: jString},
		attrs(3),
		jf{name: "dropped_attributes_count", num: 4, kind: jUint32},
	)

	newMessage(&jTracesRequest, jf{name: "resource_spans", num: 1, kind: jMessages, msg: &jResourceSpans})
	newMessage(&jResourceSpans,
		jf{name: "resource", num: 1, kind: jMessage, msg: &jResource},
		jf{name: "scope_spans", num: 2, kind: jMessages, msg: &jScopeSpans},
		jf{name: "schema_url", num: 3, kind: jString},
	)
	newMessage(&jScopeSpans,
		jf{name: "scope", num: 1, kind: jMessage, msg: &jScope},
		jf{name: "spans", num: 2, kind: jMessages, msg: &jSpan},
		jf{name: "schema_url", num: 3, kind: jString},
	)
	newMessage(&jSpan,
		jf{name: "trace_id", num: 1, kind: jID, size: 16},
		jf{name: "span_id", num: 2, kind: jID, size: 8},
		jf{name: "trace_state", num: 3, kind: jString},
		jf{name: "parent_span_id", num: 4, kind: jID, size: 8},
		jf{name: "name", num: 5, kind: jString},
		jf{name: "kind", num: 6, kind: jEnum, enum: spanKinds},
		jf{name: "start_time_unix_nano", num: 7, kind: jFixed64},
		jf{name: "end_time_unix_nano", num: 8, kind: jFixed64},
		attrs(9),
		jf{name: "dropped_attributes_count", num: 10, kind: jUint32},
		jf{name: "events", num: 11, kind: jMessages, msg: &jEvent},
		jf{name: "dropped_events_count", num: 12, kind: jUint32},
		jf{name: "links", num: 13, kind: jMessages, msg: &jLink},
		jf{name: "dropped_links_count", num: 14, kind: jUint32},
		jf{name: "status", num: 15, kind: jMessage, msg: &jStatus},
		jf{name: "flags", num: 16, kind: jFixed32},
	)
	newMessage(&jEvent,
		jf{name: "time_unix_nano", num: 1, kind: jFixed64},
		jf{name: "name", num: 2, kind: jString},
		attrs(3),
		jf{name: "dropped_attributes_count", num: 4, kind: jUint32},
	)
	newMessage(&jLink,
		jf{name: "trace_id", num: 1, kind: jID, size: 16},
		jf{name: "span_id", num: 2, kind: jID, size: 8},
		jf{name: "trace_state", num: 3, kind: jString},
		attrs(4),
		jf{name: "dropped_attributes_count", num: 5, kind: jUint32},
		jf{name: "flags", num: 6, kind: jFixed32},
	)
	newMessage(&jStatus,
		jf{name: "message", num: 2, kind: jString},
		jf{name: "code", num: 3, kind: jEnum, enum: statusCodes},
	)

	newMessage(&jMetricsRequest, jf{name: "resource_metrics", num: 1, kind: jMessages, msg: &jResourceMetrics})
	newMessage(&jResourceMetrics,
		jf{name: "resource", num: 1, kind: jMessage, msg: &jResource},
		jf{name: "scope_metrics", num: 2, kind: jMessages, msg: &jScopeMetrics},
		jf{name: "schema_url", num: 3, kind: jString},
	)
	newMessage(&jScopeMetrics,
		jf{name: "scope", num: 1, kind: jMessage, msg: &jScope},
		jf{name: "metrics", num: 2, kind: jMessages, msg: &jMetric},
		jf{name: "schema_url", num: 3, kind: jString},
	)
	newMessage(&jMetric,
		jf{name: "name", num: 1, kind: jString},
		jf{name: "description", num: 2, kind: jString},
		jf{name: "unit", num: 3, kind: jString},
		jf{name: "gauge", num: 5, kind: jMessage, msg: &jGauge, oneof: 1},
		jf{name: "sum", num: 7, kind: jMessage, msg: &jSum, oneof: 1},
		jf{name: "histogram", num: 9, kind: jMessage, msg: &jHistogram, oneof: 1},
		jf{name: "exponential_histogram", num: 10, kind: jMessage, msg: &jExpHistogram, oneof: 1},
		jf{name: "summary", num: 11, kind: jMessage, msg: &jSummary, oneof: 1},
	)
	newMessage(&jGauge, jf{name: "data_points", num: 1, kind: jMessages, msg: &jNumberPoint})
	newMessage(&jSum,
		jf{name: "data_points", num: 1, kind: jMessages, msg: &jNumberPoint},
		jf{name: "aggregation_temporality", num: 2, kind: jEnum, enum: temporalities},
		jf{name: "is_monotonic", num: 3, kind: jBool},
	)
	newMessage(&jHistogram,
		jf{name: "data_points", num: 1, kind: jMessages, msg: &jHistogramPoint},
		jf{name: "aggregation_temporality", num: 2, kind: jEnum, enum: temporalities},
	)
	newMessage(&jExpHistogram,
		jf{name: "data_points", num: 1, kind: jMessages, msg: &jExpHistogramPoint},
		jf{name: "aggregation_temporality", num: 2, kind: jEnum, enum: temporalities},
	)
	newMessage(&jSummary, jf{name: "data_points", num: 1, kind: jMessages, msg: &jSummaryPoint})
	newMessage(&jNumberPoint,
		attrs(7),
		jf{name: "start_time_unix_nano", num: 2, kind: jFixed64},
		jf{name: "time_unix_nano", num: 3, kind: jFixed64},
		jf{name: "as_double", num: 4, kind: jDouble, oneof: 1},
		jf{name: "as_int", num: 6, kind: jSfixed64, oneof: 1},
		jf{name: "exemplars", num: 5, kind: jMessages, msg: &jExemplar},
		jf{name: "flags", num: 8, kind: jUint32},
	)
	newMessage(&jHistogramPoint,
		attrs(9),
		jf{name: "start_time_unix_nano", num: 2, kind: jFixed64},
		jf{name: "time_unix_nano", num: 3, kind: jFixed64},
		jf{name: "count", num: 4, kind: jFixed64},
		jf{name: "sum", num: 5, kind: jDouble},
		jf{name: "bucket_counts", num: 6, kind: jFixed64s},
		jf{name: "explicit_bounds", num: 7, kind: jDoubles},
		jf{name: "exemplars", num: 8, kind: jMessages, msg: &jExemplar},
		jf{name: "flags", num: 10, kind: jUint32},
		jf{name: "min", num: 11, kind: jDouble},
		jf{name: "max", num: 12, kind: jDouble},
	)
	newMessage(&jExpHistogramPoint,
		attrs(1),
		jf{name: "start_time_unix_nano", num: 2, kind: jFixed64},
		jf{name: "time_unix_nano", num: 3, kind: jFixed64},
		jf{name: "count", num: 4, kind: jFixed64},
		jf{name: "sum", num: 5, kind: jDouble},
		jf{name: "scale", num: 6, kind: jSint32},
		jf{name: "zero_count", num: 7, kind: jFixed64},
		jf{name: "positive", num: 8, kind: jMessage, msg: &jBuckets},
		jf{name: "negative", num: 9, kind: jMessage, msg: &jBuckets},
		jf{name: "flags", num: 10, kind: jUint32},
		jf{name: "exemplars", num: 11, kind: jMessages, msg: &jExemplar},
		jf{name: "min", num: 12, kind: jDouble},
		jf{name: "max", num: 13, kind: jDouble},
		jf{name: "zero_threshold", num: 14, kind: jDouble},
	)
	newMessage(&jBuckets,
		jf{name: "offset", num: 1, kind: jSint32},
		jf{name: "bucket_counts", num: 2, kind: jUint64s},
	)
	newMessage(&jSummaryPoint,
		attrs(7),
		jf{name: "start_time_unix_nano", num: 2, kind: jFixed64},
		jf{name: "time_unix_nano", num: 3, kind: jFixed64},
		jf{name: "count", num: 4, kind: jFixed64},
		jf{name: "sum", num: 5, kind: jDouble},
		jf{name: "quantile_values", num: 6, kind: jMessages, msg: &jQuantile},
		jf{name: "flags", num: 8, kind: jUint32},
	)
	newMessage(&jQuantile,
		jf{name: "quantile", num: 1, kind: jDouble},
		jf{name: "value", num: 2, kind: jDouble},
	)
	newMessage(&jExemplar,
		jf{name: "filtered_attributes", num: 7, kind: jMessages, msg: &jKeyValue},
		jf{name: "time_unix_nano", num: 2, kind: jFixed64},
		jf{name: "as_double", num: 3, kind: jDouble, oneof: 1},
		jf{name: "as_int", num: 6, kind: jSfixed64, oneof: 1},
		jf{name: "span_id", num: 4, kind: jID, size: 8},
		jf{name: "trace_id", num: 5, kind: jID, size: 16},
	)

	newMessage(&jLogsRequest, jf{name: "resource_logs", num: 1, kind: jMessages, msg: &jResourceLogs})
	newMessage(&jResourceLogs,
		jf{name: "resource", num: 1, kind: jMessage, msg: &jResource},
		jf{name: "scope_logs", num: 2, kind: jMessages, msg: &jScopeLogs},
		jf{name: "schema_url", num: 3, kind: jString},
	)
	newMessage(&jScopeLogs,
		jf{name: "scope", num: 1, kind: jMessage, msg: &jScope},
		jf{name: "log_records", num: 2, kind: jMessages, msg: &jLogRecord},
		jf{name: "schema_url", num: 3, kind: jString},
	)
	newMessage(&jLogRecord,
		jf{name: "time_unix_nano", num: 1, kind: jFixed64},
		jf{name: "observed_time_unix_nano", num: 11, kind: jFixed64},
		jf{name: "severity_number", num: 2, kind: jEnum, enum: severities},
		jf{name: "severity_text", num: 3, kind: jString},
		jf{name: "body", num: 5, kind: jMessage, msg: &jAnyValue},
		attrs(6),
		jf{name: "dropped_attributes_count", num: 7, kind: jUint32},
		jf{name: "flags", num: 8, kind: jFixed32},
		jf{name: "trace_id", num: 9, kind: jID, size: 16},
		jf{name: "span_id", num: 10, kind: jID, size: 8},
		jf{name: "event_name", num: 12, kind: jString},
	)
}

// maxJSONDepth bounds the nesting of objects transcode follows; deeper
// input is declined. It is above the objects of any request whose
// AnyValues are within MaxDepth, and of one a level past it (an exemplar's
// attribute value is the 9th object, and each level of AnyValue adds 3),
// so that what is too deep is refused (ErrTooDeep), not declined.
const maxJSONDepth = 3*MaxDepth + 16

// transcoder rewrites one JSON request as protobuf.
type transcoder struct {
	in     []byte
	pos    int
	out    []byte
	depth  int // objects entered
	values int // nested messages of values entered (MaxDepth)
}

// transcode appends the protobuf encoding of the JSON export request in,
// whose top-level message is m, to out; errDecline when pdata's JSON
// decoder must decide, ErrTooDeep for an AnyValue deeper than MaxDepth.
func transcode(in []byte, m *jmessage, out []byte) ([]byte, error) {
	jsonTables.Do(buildJSONTables)
	t := transcoder{in: in, out: out}
	if err := t.object(m); err != nil {
		return t.out, err
	}
	t.ws()
	if t.pos != len(t.in) {
		return t.out, errDecline // pdata ignores what follows; decide there
	}
	return t.out, nil
}

// ws skips JSON whitespace.
func (t *transcoder) ws() {
	if t.pos < len(t.in) && t.in[t.pos] > ' ' {
		return
	}
	for t.pos < len(t.in) {
		switch t.in[t.pos] {
		case ' ', '\n', '\t', '\r':
			t.pos++
		default:
			return
		}
	}
}

// next skips whitespace and returns the next byte, 0 at the end.
func (t *transcoder) next() byte {
	t.ws()
	if t.pos == len(t.in) {
		return 0
	}
	return t.in[t.pos]
}

// object transcodes the fields of a JSON object of message m.
func (t *transcoder) object(m *jmessage) error {
	if t.next() != '{' {
		return errDecline
	}
	t.pos++
	t.depth++
	if t.depth > maxJSONDepth {
		return errDecline
	}
	var seen uint64
	hint := 0
	if t.next() == '}' {
		t.pos++
		t.depth--
		return nil
	}
	for {
		if t.next() != '"' {
			return errDecline
		}
		key, err := t.rawString()
		if err != nil || len(key) == 0 {
			return errDecline
		}
		var f *jfield
		f, hint = m.lookup(key, hint)
		if f == nil || seen&f.bit != 0 || seen&f.oneof != 0 {
			return errDecline
		}
		seen |= f.bit
		if t.next() != ':' {
			return errDecline
		}
		t.pos++
		if err := t.value(f); err != nil {
			return err
		}
		switch t.next() {
		case ',':
			t.pos++
		case '}':
			t.pos++
			t.depth--
			return nil
		default:
			return errDecline
		}
	}
}

// rawString reads a JSON string with no escape and no control character
// (the cursor on its opening quote) and returns its bytes in the input.
func (t *transcoder) rawString() ([]byte, error) {
	start := t.pos + 1
	i := start + plainPrefix(t.in[start:])
	if i < len(t.in) && t.in[i] == '"' {
		t.pos = i + 1
		return t.in[start:i], nil
	}
	return nil, errDecline
}

// plainPrefix returns the length of b's prefix without a quote, a
// backslash or a control character, eight bytes at a time.
func plainPrefix(b []byte) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		// A byte of w is special when it is under 0x20, or is '"' or
		// '\\' (zero once xored with it): the classic test for a byte
		// under n, (x - n*ones) &^ x & highs, whose false positives only
		// follow a true one. The xors keep the high bits of w, so one
		// &^ w serves the three.
		quote, backslash := w^('"'*ones), w^('\\'*ones)
		special := (w - 0x20*ones) | (quote - ones) | (backslash - ones)
		if special&^w&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < ' ' {
			return i
		}
	}
	return i
}

// beginMessage appends field num's tag and two bytes of room for a
// length; endMessage writes the length of what was appended since,
// moving it when its varint takes one byte or more than two.
func (t *transcoder) beginMessage(num protowire.Number) int {
	t.out = protowire.AppendTag(t.out, num, protowire.BytesType)
	t.out = append(t.out, 0, 0)
	return len(t.out)
}

func (t *transcoder) endMessage(start int) {
	n := len(t.out) - start
	size := protowire.SizeVarint(uint64(n))
	switch {
	case size == 1:
		copy(t.out[start-1:], t.out[start:])
		t.out = t.out[:len(t.out)-1]
	case size > 2:
		for range size - 2 {
			t.out = append(t.out, 0)
		}
		copy(t.out[start+size-2:], t.out[start:start+n])
	}
	protowire.AppendVarint(t.out[start-2:start-2], uint64(n))
}

// message transcodes an object of field f's message as field f. A value
// nested past MaxDepth, counted as the protobuf decoders count it
// (limits.go), is refused (ErrTooDeep).
func (t *transcoder) message(f *jfield) error {
	recursive := f.msg == &jAnyValue || f.msg == &jKeyValue || f.msg == &jArrayValue || f.msg == &jKeyValueList
	if recursive {
		if t.values >= MaxDepth {
			return ErrTooDeep
		}
		t.values++
	}
	start := t.beginMessage(f.num)
	if err := t.object(f.msg); err != nil {
		return err
	}
	t.endMessage(start)
	if recursive {
		t.values--
	}
	return nil
}

// value transcodes the value of field f.
func (t *transcoder) value(f *jfield) error {
	c := t.next()
	switch f.kind {
	case jMessage:
		return t.message(f)
	case jMessages:
		return t.array(func() error { return t.message(f) })
	case jString:
		return t.stringField(f.num)
	case jBytes:
		if c != '"' {
			return errDecline
		}
		s, err := t.rawString()
		if err != nil {
			return err
		}
		// Padded base64 (the only kind pdata reads) gives three bytes
		// per four characters, less one per '=' at the end.
		if len(s)%4 != 0 {
			return errDecline
		}
		n := len(s) / 4 * 3
		for i := len(s) - 1; i >= len(s)-2 && i >= 0 && s[i] == '='; i-- {
			n--
		}
		t.out = protowire.AppendTag(t.out, f.num, protowire.BytesType)
		t.out = protowire.AppendVarint(t.out, uint64(n))
		at := len(t.out)
		if t.out, err = base64.StdEncoding.AppendDecode(t.out, s); err != nil || len(t.out)-at != n {
			return errDecline
		}
		return nil
	case jID:
		if c != '"' {
			return errDecline
		}
		s, err := t.rawString()
		if err != nil {
			return err
		}
		if len(s) == 0 {
			return nil // pdata leaves the ID zero
		}
		if len(s) != 2*f.size {
			return errDecline
		}
		t.out = protowire.AppendTag(t.out, f.num, protowire.BytesType)
		t.out = protowire.AppendVarint(t.out, uint64(f.size))
		if t.out, err = hex.AppendDecode(t.out, s); err != nil {
			return errDecline
		}
		return nil
	case jFixed64s, jUint64s, jDoubles:
		return t.packed(f)
	}
	v, typ, err := t.scalar(f, c)
	if err != nil {
		return err
	}
	t.out = protowire.AppendTag(t.out, f.num, typ)
	switch typ {
	case protowire.VarintType:
		t.out = protowire.AppendVarint(t.out, v)
	case protowire.Fixed64Type:
		t.out = protowire.AppendFixed64(t.out, v)
	default:
		t.out = protowire.AppendFixed32(t.out, uint32(v))
	}
	return nil
}

// scalar reads the number or bool of field f, whose first byte is c, and
// returns its bits and wire type.
func (t *transcoder) scalar(f *jfield, c byte) (uint64, protowire.Type, error) {
	switch f.kind {
	case jUint32:
		u, err := t.unsigned(math.MaxUint32)
		return u, protowire.VarintType, err
	case jSint32:
		i, err := t.signed(math.MinInt32, math.MaxInt32)
		return protowire.EncodeZigZag(i), protowire.VarintType, err
	case jEnum:
		if c != '"' {
			i, err := t.signed(math.MinInt32, math.MaxInt32)
			return uint64(i), protowire.VarintType, err
		}
		s, err := t.rawString()
		if err != nil {
			return 0, 0, err
		}
		v, ok := f.enum[string(s)]
		if !ok {
			return 0, 0, errDecline
		}
		return uint64(int64(v)), protowire.VarintType, nil
	case jInt64:
		i, err := t.signed(math.MinInt64, math.MaxInt64)
		return uint64(i), protowire.VarintType, err
	case jFixed64:
		u, err := t.unsigned(math.MaxUint64)
		return u, protowire.Fixed64Type, err
	case jSfixed64:
		i, err := t.signed(math.MinInt64, math.MaxInt64)
		return uint64(i), protowire.Fixed64Type, err
	case jFixed32:
		u, err := t.unsigned(math.MaxUint32)
		return u, protowire.Fixed32Type, err
	case jDouble:
		d, err := t.double()
		return math.Float64bits(d), protowire.Fixed64Type, err
	case jBool:
		switch {
		case t.literal("true"):
			return 1, protowire.VarintType, nil
		case t.literal("false"):
			return 0, protowire.VarintType, nil
		}
	}
	return 0, 0, errDecline
}

// packed transcodes an array of numbers as a packed repeated field; an
// empty array is no field, as pdata decodes it.
func (t *transcoder) packed(f *jfield) error {
	start := t.beginMessage(f.num)
	err := t.array(func() error {
		switch f.kind {
		case jFixed64s:
			u, err := t.unsigned(math.MaxUint64)
			if err != nil {
				return err
			}
			t.out = protowire.AppendFixed64(t.out, u)
		case jUint64s:
			u, err := t.unsigned(math.MaxUint64)
			if err != nil {
				return err
			}
			t.out = protowire.AppendVarint(t.out, u)
		default:
			d, err := t.double()
			if err != nil {
				return err
			}
			t.out = protowire.AppendFixed64(t.out, math.Float64bits(d))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(t.out) == start {
		t.out = t.out[:start-2-protowire.SizeTag(f.num)] // no field
		return nil
	}
	t.endMessage(start)
	return nil
}

// array calls element for each element of a JSON array.
func (t *transcoder) array(element func() error) error {
	if t.next() != '[' {
		return errDecline
	}
	t.pos++
	if t.next() == ']' {
		t.pos++
		return nil
	}
	for {
		if err := element(); err != nil {
			return err
		}
		switch t.next() {
		case ',':
			t.pos++
		case ']':
			t.pos++
			return nil
		default:
			return errDecline
		}
	}
}

// literal consumes word if it is next.
func (t *transcoder) literal(word string) bool {
	if len(t.in)-t.pos >= len(word) && string(t.in[t.pos:t.pos+len(word)]) == word {
		t.pos += len(word)
		return true
	}
	return false
}

// stringField transcodes a JSON string as field num, unescaping it as
// jsoniter does; a control character or a surrogate escape declines.
func (t *transcoder) stringField(num protowire.Number) error {
	if t.next() != '"' {
		return errDecline
	}
	start := t.pos + 1
	i := start + plainPrefix(t.in[start:])
	switch {
	case i == len(t.in):
		return errDecline
	case t.in[i] == '"':
		t.out = protowire.AppendTag(t.out, num, protowire.BytesType)
		t.out = protowire.AppendBytes(t.out, t.in[start:i])
		t.pos = i + 1
		return nil
	case t.in[i] == '\\':
		at := t.beginMessage(num) // the length is known once unescaped
		t.out = append(t.out, t.in[start:i]...)
		t.pos = i
		if err := t.escaped(); err != nil {
			return err
		}
		t.endMessage(at)
		return nil
	}
	return errDecline // a control character
}

// escaped appends the rest of a string that has an escape at the cursor,
// unescaped, and consumes its closing quote.
func (t *transcoder) escaped() error {
	for t.pos < len(t.in) {
		c := t.in[t.pos]
		switch {
		case c == '"':
			t.pos++
			return nil
		case c < ' ':
			return errDecline
		case c != '\\':
			t.out = append(t.out, c)
			t.pos++
			continue
		}
		if t.pos+1 >= len(t.in) {
			return errDecline
		}
		e := t.in[t.pos+1]
		t.pos += 2
		switch e {
		case '"', '\\', '/':
			t.out = append(t.out, e)
		case 'b':
			t.out = append(t.out, '\b')
		case 'f':
			t.out = append(t.out, '\f')
		case 'n':
			t.out = append(t.out, '\n')
		case 'r':
			t.out = append(t.out, '\r')
		case 't':
			t.out = append(t.out, '\t')
		case 'u':
			if len(t.in)-t.pos < 4 {
				return errDecline
			}
			var b [2]byte
			if _, err := hex.Decode(b[:], t.in[t.pos:t.pos+4]); err != nil {
				return errDecline
			}
			r := rune(b[0])<<8 | rune(b[1])
			t.pos += 4
			if 0xD800 <= r && r <= 0xDFFF {
				return errDecline // jsoniter pairs surrogates its own way
			}
			t.out = utf8.AppendRune(t.out, r)
		default:
			return errDecline
		}
	}
	return errDecline
}

// number returns the next JSON number's text, or the contents of a
// string in its place, and whether it was quoted. An unquoted number
// must have JSON's syntax.
func (t *transcoder) number() (s []byte, quoted bool, err error) {
	switch c := t.next(); {
	case c == '"':
		s, err := t.rawString()
		return s, true, err
	case c == '-' || '0' <= c && c <= '9':
	default:
		return nil, false, errDecline
	}
	start := t.pos
	i := start
	if t.in[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(t.in) && '0' <= t.in[i] && t.in[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intStart := i
	n := digits()
	if n == 0 || n > 1 && t.in[intStart] == '0' {
		return nil, false, errDecline
	}
	if i < len(t.in) && t.in[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false, errDecline
		}
	}
	if i < len(t.in) && (t.in[i] == 'e' || t.in[i] == 'E') {
		i++
		if i < len(t.in) && (t.in[i] == '+' || t.in[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false, errDecline
		}
	}
	t.pos = i
	return t.in[start:i], false, nil
}

// unsigned reads an unsigned integer of at most max: a JSON integer or a
// string of decimal digits.
func (t *transcoder) unsigned(max uint64) (uint64, error) {
	s, quoted, err := t.number()
	if err != nil {
		return 0, err
	}
	if !quoted && (len(s) > 19 || !allDigits(s)) {
		return 0, errDecline // jsoniter's overflow checks and fractions: pdata decides
	}
	u, err := strconv.ParseUint(string(s), 10, 64)
	if err != nil || u > max {
		return 0, errDecline
	}
	return u, nil
}

// signed reads an integer in [min, max]: a JSON integer or a string of
// decimal digits with an optional minus sign.
func (t *transcoder) signed(min, max int64) (int64, error) {
	s, _, err := t.number()
	if err != nil {
		return 0, err
	}
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || !allDigits(digits) {
		return 0, errDecline // signs strconv accepts and jsoniter does not, overflow, fractions
	}
	i, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil || i < min || i > max {
		return 0, errDecline
	}
	return i, nil
}

// double reads a double: a JSON number, which jsoniter reads to the
// nearest double as strconv does, or a string strconv.ParseFloat accepts,
// as pdata reads both.
func (t *transcoder) double() (float64, error) {
	s, _, err := t.number()
	if err != nil {
		return 0, err
	}
	d, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return 0, errDecline
	}
	return d, nil
}

// allDigits reports whether s is only decimal digits.
func allDigits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
