package otlpwire

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// nested returns the payload of an AnyValue depth levels deep: depth-1
// arrays (or key-value lists) of one element around a string.
func nested(depth int, kvlist bool) []byte {
	v := bytesField(1, []byte("x"))
	for range depth - 1 {
		if kvlist {
			v = bytesField(6, bytesField(1, append(bytesField(1, []byte("k")), bytesField(2, v)...)))
		} else {
			v = bytesField(5, bytesField(1, v))
		}
	}
	return v
}

// deepRequest returns a request of signal whose one item holds value (an
// AnyValue payload): a span's attribute, a gauge point's attribute, a log
// record's body. With declined, the resource starts with a field the fast
// path leaves to pdata (entity_refs), so that the request goes to pdata's
// decoder behind the depth check.
func deepRequest(signal int, value []byte, declined bool) []byte {
	kv := append(bytesField(1, []byte("deep")), bytesField(2, value)...)
	var item []byte
	switch signal {
	case 0: // ResourceSpans{2: ScopeSpans{2: Span{9: attribute}}}
		item = bytesField(2, bytesField(2, append(append(bytesField(1, bytes.Repeat([]byte{1}, 16)), bytesField(2, bytes.Repeat([]byte{2}, 8))...), bytesField(9, kv)...)))
	case 1: // ResourceMetrics{2: ScopeMetrics{2: Metric{5: Gauge{1: NumberDataPoint{7: attribute}}}}}
		point := protowire.AppendFixed64(protowire.AppendTag(bytesField(7, kv), 4, protowire.Fixed64Type), 0)
		item = bytesField(2, bytesField(2, append(bytesField(1, []byte("m")), bytesField(5, bytesField(1, point))...)))
	case 2: // ResourceLogs{2: ScopeLogs{2: LogRecord{5: body}}}
		item = bytesField(2, bytesField(2, bytesField(5, value)))
	}
	if declined {
		item = append(bytesField(1, bytesField(3, nil)), item...)
	}
	return bytesField(1, item)
}

// deepCases are requests of signal past MaxDepth, for the fuzzers' seeds.
func deepCases(signal int) [][]byte {
	return [][]byte{
		deepRequest(signal, nested(MaxDepth+1, true), false),
		deepRequest(signal, nested(MaxDepth+1, false), true),
		deepRequest(signal, nested(MaxDepth, false), false),
	}
}

// pdataEdge returns the deepest nesting (in AnyValues, nested's depth) of
// a value in deepRequest(signal, ...) that pdata's own decoder accepts,
// and the expected one: pdata counts every nested message of a value
// (MaxDepth), three per level of key-value lists and two per level of
// arrays, from an attribute's KeyValue or a log body's AnyValue.
func pdataEdge(t *testing.T, signal int, kvlist bool) (edge, want int) {
	t.Helper()
	per, base := 2, 1 // arrays; an attribute's value is the second message
	if kvlist {
		per = 3
	}
	if signal == 2 {
		base = 0 // a log body is the first
	}
	want = (MaxDepth-1-base)/per + 1
	for n := 1; n < 4*MaxDepth; n++ {
		if _, err := signals[signal].pdata(deepRequest(signal, nested(n, kvlist), false)); err != nil {
			if !strings.Contains(err.Error(), "recursion") {
				t.Fatalf("pdata at depth %d: %v", n, err)
			}
			return n - 1, want
		}
	}
	// Older pdata releases have no bound (v1.64.0, which the SDK's own
	// module builds with). make test runs this package in flowlua's
	// module too, at the pdata release whose edge the bound matches.
	t.Skip("this pdata accepts any depth: otlpwire's MaxDepth is the only bound")
	return 0, want
}

// TestDepthLimit checks the bound at pdata's own edge for every signal,
// on every path a protobuf request takes: the deepest value pdata's
// decoder accepts is decoded as pdata decodes it, one level more is
// refused with ErrTooDeep, by the fast decoder, by the check in front of
// pdata's decoder when the fast path declines the request, and with the
// fast path off.
func TestDepthLimit(t *testing.T) {
	for i, s := range signals {
		for _, kvlist := range []bool{false, true} {
			edge, want := pdataEdge(t, i, kvlist)
			if edge != want {
				t.Fatalf("%s kvlist=%v: pdata's edge is at depth %d, MaxDepth's counting gives %d", signalNames[i], kvlist, edge, want)
			}
			for _, declined := range []bool{false, true} {
				for _, fast := range []bool{true, false} {
					name := fmt.Sprintf("%s/kvlist=%v/declined=%v/fast=%v", signalNames[i], kvlist, declined, fast)
					t.Run(name, func(t *testing.T) {
						u := NewUnmarshaler(fast)
						ok := deepRequest(i, nested(edge, kvlist), declined)
						want, err := s.pdata(ok)
						if err != nil {
							t.Fatal(err)
						}
						got, err := s.unmarshal(u, ok)
						if err != nil {
							t.Fatalf("depth %d: %v", edge, err)
						}
						if !bytes.Equal(got, want) {
							t.Fatalf("depth %d: not what pdata decodes", edge)
						}
						viaFast := u.StatsOf(signalNames[i]).Fast.Load()
						if wantFast := fast && !declined; (viaFast == 1) != wantFast {
							t.Fatalf("decoded by the fast path: %v, want %v", viaFast == 1, wantFast)
						}
						_, err = s.unmarshal(u, deepRequest(i, nested(edge+1, kvlist), declined))
						if !errors.Is(err, ErrTooDeep) {
							t.Fatalf("depth %d: %v, want ErrTooDeep", edge+1, err)
						}
						if n := u.StatsOf(signalNames[i]).Pdata.Load(); n != 1-viaFast {
							t.Fatalf("%d requests went to pdata's decoder, want %d (the refused one never)", n, 1-viaFast)
						}
					})
				}
			}
		}
	}
}

// nestedJSON returns the OTLP/JSON of an AnyValue depth levels deep.
func nestedJSON(depth int, kvlist bool) string {
	v := `{"stringValue":"x"}`
	for range depth - 1 {
		if kvlist {
			v = `{"kvlistValue":{"values":[{"key":"k","value":` + v + `}]}}`
		} else {
			v = `{"arrayValue":{"values":[` + v + `]}}`
		}
	}
	return v
}

// deepJSON returns a JSON request of signal whose one item holds value;
// with declined, the span or record starts with a field the fast path
// leaves to pdata's JSON decoder (one it does not know).
func deepJSON(signal int, value string, declined bool) []byte {
	lead := ""
	if declined {
		lead = `"notAnOTLPField":1,`
	}
	switch signal {
	case 0:
		return []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{` + lead + `"traceId":"01010101010101010101010101010101","spanId":"0202020202020202","attributes":[{"key":"deep","value":` + value + `}]}]}]}]}`)
	case 1:
		return []byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m","gauge":{"dataPoints":[{` + lead + `"asDouble":0,"attributes":[{"key":"deep","value":` + value + `}]}]}}]}]}]}`)
	default:
		return []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{` + lead + `"body":` + value + `}]}]}]}`)
	}
}

// deepJSONCases are JSON requests of signal past the bounds, for the
// fuzzers' seeds.
func deepJSONCases(signal int) [][]byte {
	return [][]byte{
		deepJSON(signal, nestedJSON(MaxDepth+1, true), false),
		deepJSON(signal, nestedJSON(MaxDepth+1, false), false),
		deepJSON(signal, nestedJSON(maxJSONNesting, false), true),
	}
}

// TestJSONDepthLimit checks the bound at its edge for JSON, which the
// transcoder counts as the protobuf decoders do: the deepest value
// pdata's protobuf decoder takes is taken (by the fast path, as pdata's
// JSON decoder decodes it), one more refused; and, for what the fast path
// leaves to pdata's JSON decoder, nesting past maxJSONNesting refused
// before it, while the edge still goes through.
func TestJSONDepthLimit(t *testing.T) {
	for i, s := range jsonSignals {
		for _, kvlist := range []bool{false, true} {
			edge, _ := pdataEdge(t, i, kvlist)
			for _, fast := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/kvlist=%v/fast=%v", s.name, kvlist, fast), func(t *testing.T) {
					u := NewJSONUnmarshaler(fast)
					for _, declined := range []bool{false, true} {
						ok := deepJSON(i, nestedJSON(edge, kvlist), declined)
						want, err := s.pdata(ok)
						if err != nil {
							t.Fatal(err)
						}
						got, err := s.unmarshal(u, ok)
						if err != nil || !bytes.Equal(got, want) {
							t.Fatalf("declined=%v, depth %d: %v, or not what pdata decodes", declined, edge, err)
						}
					}
					if fast && u.StatsOf(s.name).Fast.Load() != 1 {
						t.Fatalf("the fast path decoded %d requests, want 1", u.StatsOf(s.name).Fast.Load())
					}
					if fast {
						_, err := s.unmarshal(u, deepJSON(i, nestedJSON(edge+1, kvlist), false))
						if !errors.Is(err, ErrTooDeep) {
							t.Fatalf("depth %d: %v, want ErrTooDeep", edge+1, err)
						}
					}
					before := u.StatsOf(s.name).Pdata.Load()
					deep := deepJSON(i, nestedJSON(maxJSONNesting, kvlist), true)
					if _, err := s.unmarshal(u, deep); !errors.Is(err, ErrTooDeep) {
						t.Fatalf("nested %d deep, left to pdata: %v, want ErrTooDeep", maxJSONNesting, err)
					}
					if u.StatsOf(s.name).Pdata.Load() != before {
						t.Fatal("the refused request went to pdata's JSON decoder")
					}
				})
			}
		}
	}
}

// TestJSONNestingBound checks that maxJSONNesting is above the nesting
// of any request whose values are within MaxDepth: the deepest path of
// the schema (an exemplar's attribute) with values MaxDepth deep, as
// arrays and as key-value lists, both ending in an empty container.
func TestJSONNestingBound(t *testing.T) {
	for _, kvlist := range []bool{false, true} {
		v := nestedJSON(MaxDepth, kvlist)
		v = strings.Replace(v, `{"stringValue":"x"}`, `{"kvlistValue":{"values":[]}}`, 1)
		in := []byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"histogram":{"dataPoints":[{"exemplars":[{"filteredAttributes":[{"key":"k","value":` + v + `}]}]}]}}]}]}]}`)
		if n := jsonNesting(in); n > maxJSONNesting {
			t.Errorf("kvlist=%v: nests %d deep, over the bound %d", kvlist, n, maxJSONNesting)
		}
		if err := checkJSONNesting(in); err != nil {
			t.Errorf("kvlist=%v: %v", kvlist, err)
		}
	}
}
