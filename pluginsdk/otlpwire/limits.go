package otlpwire

import (
	"errors"
	"fmt"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxDepth bounds how deeply the recursive messages of an OTLP value
// (AnyValue, ArrayValue, KeyValueList, KeyValue) may nest in a request
// flowlua decodes: the bound pdata's protobuf decoder has had since
// v1.71.0 (its internal proto.RecursionLimit), counted as pdata counts
// it. An attribute's KeyValue is at depth 0 and its value at 1; a log
// body is at 0; each level of a key-value list adds three messages
// (the value, the list, a KeyValue) and each level of an array two. So
// an attribute may hold 33 levels of key-value lists or 50 of arrays. A
// message entered at MaxDepth is refused (ErrTooDeep), whatever decoder
// would have decoded the request.
//
// pdata's JSON decoder still recurses once per level without a bound
// (upstream collector issue #15301): before v1.71.0 its protobuf decoder
// did too, and a 15 MB body nesting key-value lists about 900,000 levels
// deep overflowed the goroutine stack, a fatal error no recover catches.
// TestDepthLimit checks that this bound is pdata's, at its edge.
const MaxDepth = 100

// ErrTooDeep is the error of a request with an AnyValue nested deeper
// than MaxDepth. It is the client's error (HTTP 400, gRPC InvalidArgument):
// the request is not handed to any other decoder.
var ErrTooDeep = fmt.Errorf("otlp: a value (attribute or log body) nests arrays or key-value lists too deep: past %d nested messages (%d levels of key-value lists in an attribute, %d of arrays)", MaxDepth, (MaxDepth-2)/3+1, (MaxDepth-2)/2+1)

// refused reports whether err refuses a request outright, rather than
// leaving it to pdata's decoder.
func refused(err error) bool { return errors.Is(err, ErrTooDeep) }

// pmessage is what the depth check knows of a protobuf message: which of
// its fields hold messages that lead to AnyValues. Fields it does not list
// are skipped, as pdata skips what it does not know or decodes without
// recursion.
type pmessage struct {
	recursive bool // AnyValue, ArrayValue, KeyValueList, KeyValue: one level of depth
	children  []pchild
}

type pchild struct {
	num protowire.Number
	msg *pmessage
}

func (m *pmessage) child(num protowire.Number) *pmessage {
	for _, c := range m.children {
		if c.num == num {
			return c.msg
		}
	}
	return nil
}

// The messages of the three export requests, as far as AnyValues go
// (opentelemetry-proto v1: common, resource, trace, metrics and logs).
var (
	pAnyValue, pArrayValue, pKeyValueList, pKeyValue pmessage
	pResource, pScope                                pmessage

	pTracesRequest, pResourceSpans, pScopeSpans, pSpan, pEvent, pLink pmessage

	pMetricsRequest, pResourceMetrics, pScopeMetrics, pMetric            pmessage
	pNumberPoints, pHistogramPoints, pExpHistogramPoints, pSummaryPoints pmessage
	pNumberPoint, pHistogramPoint, pExpHistogramPoint, pSummaryPoint     pmessage
	pExemplar                                                            pmessage

	pLogsRequest, pResourceLogs, pScopeLogs, pLogRecord pmessage
)

// depthTables builds the messages above once, when a request is first
// checked.
var depthTables sync.Once

func buildDepthTables() {
	set := func(m *pmessage, children ...pchild) { m.children = children }
	for _, m := range []*pmessage{&pAnyValue, &pArrayValue, &pKeyValueList, &pKeyValue} {
		m.recursive = true
	}
	set(&pAnyValue, pchild{5, &pArrayValue}, pchild{6, &pKeyValueList})
	set(&pArrayValue, pchild{1, &pAnyValue})
	set(&pKeyValueList, pchild{1, &pKeyValue})
	set(&pKeyValue, pchild{2, &pAnyValue})
	set(&pResource, pchild{1, &pKeyValue})
	set(&pScope, pchild{3, &pKeyValue})

	set(&pTracesRequest, pchild{1, &pResourceSpans})
	set(&pResourceSpans, pchild{1, &pResource}, pchild{2, &pScopeSpans})
	set(&pScopeSpans, pchild{1, &pScope}, pchild{2, &pSpan})
	set(&pSpan, pchild{9, &pKeyValue}, pchild{11, &pEvent}, pchild{13, &pLink})
	set(&pEvent, pchild{3, &pKeyValue})
	set(&pLink, pchild{4, &pKeyValue})

	set(&pMetricsRequest, pchild{1, &pResourceMetrics})
	set(&pResourceMetrics, pchild{1, &pResource}, pchild{2, &pScopeMetrics})
	set(&pScopeMetrics, pchild{1, &pScope}, pchild{2, &pMetric})
	// gauge 5, sum 7, histogram 9, exponential histogram 10, summary 11;
	// metadata 12.
	set(&pMetric, pchild{5, &pNumberPoints}, pchild{7, &pNumberPoints}, pchild{9, &pHistogramPoints},
		pchild{10, &pExpHistogramPoints}, pchild{11, &pSummaryPoints}, pchild{12, &pKeyValue})
	set(&pNumberPoints, pchild{1, &pNumberPoint})
	set(&pHistogramPoints, pchild{1, &pHistogramPoint})
	set(&pExpHistogramPoints, pchild{1, &pExpHistogramPoint})
	set(&pSummaryPoints, pchild{1, &pSummaryPoint})
	set(&pNumberPoint, pchild{7, &pKeyValue}, pchild{5, &pExemplar})
	set(&pHistogramPoint, pchild{9, &pKeyValue}, pchild{8, &pExemplar})
	set(&pExpHistogramPoint, pchild{1, &pKeyValue}, pchild{11, &pExemplar})
	set(&pSummaryPoint, pchild{7, &pKeyValue})
	set(&pExemplar, pchild{7, &pKeyValue})

	set(&pLogsRequest, pchild{1, &pResourceLogs})
	set(&pResourceLogs, pchild{1, &pResource}, pchild{2, &pScopeLogs})
	set(&pScopeLogs, pchild{1, &pScope}, pchild{2, &pLogRecord})
	set(&pLogRecord, pchild{5, &pAnyValue}, pchild{6, &pKeyValue})
}

// requestMessages are the export requests of the signals, in the order of
// signalNames.
var requestMessages = [3]*pmessage{&pTracesRequest, &pMetricsRequest, &pLogsRequest}

// checkDepth returns ErrTooDeep when the protobuf export request buf, of
// the signal numbered signal, nests values past MaxDepth. It is what a
// request goes through before pdata's decoder, so that a request is
// refused with the same error whichever decoder would have decoded it. It
// reads only the fields that lead to AnyValues, and skips what does not
// parse (pdata rejects it): its own recursion stops at MaxDepth.
func checkDepth(buf []byte, signal int) error {
	depthTables.Do(buildDepthTables)
	return walkDepth(buf, requestMessages[signal], 0)
}

// walkDepth walks buf, a message m whose nested messages are at depth.
func walkDepth(buf []byte, m *pmessage, depth int) error {
	for len(buf) > 0 {
		num, typ, n := protowire.ConsumeTag(buf)
		if n < 0 {
			return nil
		}
		buf = buf[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, buf)
			if n < 0 {
				return nil
			}
			buf = buf[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(buf)
		if n < 0 {
			return nil
		}
		buf = buf[n:]
		c := m.child(num)
		if c == nil {
			continue
		}
		d := depth
		if c.recursive {
			if d >= MaxDepth {
				return ErrTooDeep
			}
			d++
		}
		if err := walkDepth(v, c, d); err != nil {
			return err
		}
	}
	return nil
}

// maxJSONNesting bounds how deeply the arrays and objects of a JSON
// request may nest before pdata's JSON decoder reads it. A request whose
// AnyValues are within MaxDepth is within it: the deepest path of the
// schema reaches an exemplar's attribute value at 15 levels, each level
// of AnyValue adds at most 4 (a key-value list: its object, its values
// array, a KeyValue, the value), and a value's own object and array 2
// more.
const maxJSONNesting = 4*MaxDepth + 16

// checkJSONNesting returns ErrTooDeep when the arrays and objects of the
// JSON document buf nest deeper than maxJSONNesting. It is the bound of a
// JSON request before pdata's JSON decoder; flowlua's own transcoder
// counts AnyValues exactly (MaxDepth). Strings are skipped; anything
// malformed is left to pdata to reject.
func checkJSONNesting(buf []byte) error {
	depth := 0
	for i := 0; i < len(buf); i++ {
		switch buf[i] {
		case '{', '[':
			if depth++; depth > maxJSONNesting {
				return ErrTooDeep
			}
		case '}', ']':
			depth--
		case '"':
			for i++; i < len(buf) && buf[i] != '"'; i++ {
				if buf[i] == '\\' {
					i++
				}
			}
		}
	}
	return nil
}
