package otelcol

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/pluginsdk/otlpwire"
)

// SetOTLPDecoding sets how the otlp receivers built afterwards decode
// export requests: with otlpwire's fast path, which builds the same pdata
// through pdata's API with fewer allocations and hands whatever it does
// not handle to pdata's own decoder, or (fast false) with pdata's decoder
// for every request. Both transports are flowlua's servers (otlpgrpc.go,
// otlphttp.go): gRPC requests and HTTP protobuf bodies are decoded by an
// otlpwire.Unmarshaler, HTTP JSON bodies by an otlpwire.JSONUnmarshaler.
// Either way the requests are counted, and too deep ones refused.
//
// It returns the collector of flowlua_otlp_grpc_decoded_requests_total
// and flowlua_otlp_http_decoded_requests_total. `flowlua run` calls it
// once, before the first receiver is built; until then receivers use the
// fast path, uncounted by any registry.
func SetOTLPDecoding(fast bool) prometheus.Collector {
	d := newOTLPDecoding(fast)
	otlpDecodingNow.Store(d)
	return decodingCollector{d}
}

// otlpDecoding is how flowlua's OTLP servers decode requests, and what
// they count.
type otlpDecoding struct {
	grpc *otlpwire.Unmarshaler
	http *httpDecoding
}

// httpDecoding is how flowlua's OTLP/HTTP servers decode request bodies:
// protobuf with an otlpwire.Unmarshaler, JSON with an
// otlpwire.JSONUnmarshaler.
type httpDecoding struct {
	proto *otlpwire.Unmarshaler
	json  *otlpwire.JSONUnmarshaler
}

func newOTLPDecoding(fast bool) *otlpDecoding {
	return &otlpDecoding{grpc: otlpwire.NewUnmarshaler(fast), http: newHTTPDecoding(fast)}
}

func newHTTPDecoding(fast bool) *httpDecoding {
	return &httpDecoding{proto: otlpwire.NewUnmarshaler(fast), json: otlpwire.NewJSONUnmarshaler(fast)}
}

// otlpDecodingNow is what the next otlp receiver decodes with, once
// SetOTLPDecoding has set it; until then, defaultOTLPDecoding.
var otlpDecodingNow atomic.Pointer[otlpDecoding]

// defaultOTLPDecoding is the fast path, the default of `flowlua run`.
var defaultOTLPDecoding = newOTLPDecoding(true)

func currentOTLPDecoding() *otlpDecoding {
	if d := otlpDecodingNow.Load(); d != nil {
		return d
	}
	return defaultOTLPDecoding
}

// grpcUndecoded counts the OTLP/gRPC requests of each signal passed on
// undecoded (otlpgrpc.go).
var grpcUndecoded [dataplane.NumSignals]atomic.Uint64

var (
	grpcDecodedDesc = prometheus.NewDesc(
		"flowlua_otlp_grpc_decoded_requests_total",
		"OTLP/gRPC export requests decoded, by signal and decoder: fast (flowlua's), pdata (every request with --no-otlp.fast-decoding, else input the fast decoder leaves to pdata's: a repeated attribute key, a field it does not know, malformed input) or none (passed on undecoded, as the bytes came, to consumers that all take them so: native plugins).",
		[]string{"signal", "decoder"}, nil,
	)
	httpDecodedDesc = prometheus.NewDesc(
		"flowlua_otlp_http_decoded_requests_total",
		"OTLP/HTTP export request bodies decoded, by signal and decoder: fast (flowlua's, protobuf), pdata (protobuf: every body with --no-otlp.fast-decoding, else input the fast decoder leaves to pdata's), json_fast (flowlua's, JSON) or json (pdata's JSON decoder: every JSON body with --no-otlp.fast-decoding, else input flowlua's leaves to it: a field it does not know, a field given twice, null, a surrogate escape, malformed input).",
		[]string{"signal", "decoder"}, nil,
	)
)

// decodingCollector exposes the decoders' counters.
type decodingCollector struct{ d *otlpDecoding }

func (decodingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- grpcDecodedDesc
	ch <- httpDecodedDesc
}

func (c decodingCollector) Collect(ch chan<- prometheus.Metric) {
	count := func(desc *prometheus.Desc, n uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(n), labels...)
	}
	for _, signal := range []string{"traces", "metrics", "logs"} {
		s := c.d.grpc.StatsOf(signal)
		count(grpcDecodedDesc, s.Fast.Load(), signal, "fast")
		count(grpcDecodedDesc, s.Pdata.Load(), signal, "pdata")
		if sig, ok := dataplane.ParseSignal(signal); ok {
			count(grpcDecodedDesc, grpcUndecoded[sig].Load(), signal, "none")
		}
		h := c.d.http.proto.StatsOf(signal)
		count(httpDecodedDesc, h.Fast.Load(), signal, "fast")
		count(httpDecodedDesc, h.Pdata.Load(), signal, "pdata")
		j := c.d.http.json.StatsOf(signal)
		count(httpDecodedDesc, j.Fast.Load(), signal, "json_fast")
		count(httpDecodedDesc, j.Pdata.Load(), signal, "json")
	}
}
