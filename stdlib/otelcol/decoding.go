package otelcol

import (
	"fmt"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/encoding"

	"github.com/flowlua/flowlua/stdlib/otelcol/otlpwire"
)

// InstallOTLPDecoding makes flowlua decode OTLP export requests with
// otlpwire, which builds the same pdata with fewer allocations and hands
// whatever it does not handle to pdata's own decoder (fast false: every
// request goes to pdata's decoder, and is still counted). It covers both
// transports:
//
//  1. gRPC: it installs otlpwire's codec as gRPC's "proto" codec. gRPC
//     keeps one codec per name for the whole process, read by every
//     server, and allows replacing it only before servers start.
//  2. HTTP: the otlp receivers' HTTP servers (flowlua's, see otlphttp.go)
//     created afterwards decode protobuf bodies with an
//     otlpwire.Unmarshaler, and JSON bodies with an
//     otlpwire.JSONUnmarshaler, of the same setting.
//
// It returns the collector of flowlua_otlp_grpc_decoded_requests_total
// and flowlua_otlp_http_decoded_requests_total. Call it once, from the
// command that runs pipelines, before the first receiver is built.
// Nothing else installs it: `check`, `graph` and tests keep gRPC's default
// codec, and HTTP servers the fast path, uncounted.
//
// An error means that the gRPC codec could not be built (pdata's message
// wrappers changed): gRPC keeps its default codec, HTTP still follows fast,
// uncounted.
func InstallOTLPDecoding(fast bool) (prometheus.Collector, error) {
	h := newHTTPDecoding(fast)
	httpDecodingNow.Store(h)
	c, err := otlpwire.NewGRPCCodec(encoding.GetCodecV2("proto"), fast)
	if err != nil {
		return nil, fmt.Errorf("building the OTLP/gRPC codec: %w", err)
	}
	encoding.RegisterCodecV2(c)
	return decodingCollector{grpc: c, http: h}, nil
}

// httpDecoding is how flowlua's OTLP/HTTP servers decode request bodies,
// and what they count: protobuf with an otlpwire.Unmarshaler, JSON with
// an otlpwire.JSONUnmarshaler.
type httpDecoding struct {
	proto *otlpwire.Unmarshaler
	json  *otlpwire.JSONUnmarshaler
}

func newHTTPDecoding(fast bool) *httpDecoding {
	return &httpDecoding{proto: otlpwire.NewUnmarshaler(fast), json: otlpwire.NewJSONUnmarshaler(fast)}
}

// httpDecodingNow is what the next OTLP/HTTP server decodes with, once
// InstallOTLPDecoding has set it; until then, defaultHTTPDecoding.
var httpDecodingNow atomic.Pointer[httpDecoding]

// defaultHTTPDecoding is the fast path, the default of `flowlua run`.
var defaultHTTPDecoding = newHTTPDecoding(true)

func currentHTTPDecoding() *httpDecoding {
	if d := httpDecodingNow.Load(); d != nil {
		return d
	}
	return defaultHTTPDecoding
}

var (
	grpcDecodedDesc = prometheus.NewDesc(
		"flowlua_otlp_grpc_decoded_requests_total",
		"OTLP/gRPC export requests decoded, by signal and decoder: fast (flowlua's) or pdata (every request with --no-otlp.fast-decoding, else input the fast decoder leaves to pdata's: a repeated attribute key, a field it does not know, malformed input).",
		[]string{"signal", "decoder"}, nil,
	)
	httpDecodedDesc = prometheus.NewDesc(
		"flowlua_otlp_http_decoded_requests_total",
		"OTLP/HTTP export request bodies decoded, by signal and decoder: fast (flowlua's, protobuf), pdata (protobuf: every body with --no-otlp.fast-decoding, else input the fast decoder leaves to pdata's), json_fast (flowlua's, JSON) or json (pdata's JSON decoder: every JSON body with --no-otlp.fast-decoding, else input flowlua's leaves to it: a field it does not know, a field given twice, null, a surrogate escape, malformed input).",
		[]string{"signal", "decoder"}, nil,
	)
	grpcEncodedDesc = prometheus.NewDesc(
		"flowlua_otlp_grpc_encoded_requests_total",
		"OTLP/gRPC export requests encoded by the exporters, by signal and sizing: guessed (written into a buffer of the expected size, without a sizing walk) or sized (sized first, as pdata does: the first request of a signal, one longer than expected, and every request with --no-otlp.fast-decoding).",
		[]string{"signal", "sizing"}, nil,
	)
)

// decodingCollector exposes the decoders' counters.
type decodingCollector struct {
	grpc *otlpwire.Codec
	http *httpDecoding
}

func (decodingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- grpcDecodedDesc
	ch <- httpDecodedDesc
	ch <- grpcEncodedDesc
}

func (d decodingCollector) Collect(ch chan<- prometheus.Metric) {
	count := func(desc *prometheus.Desc, n uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(n), labels...)
	}
	for _, signal := range []string{"traces", "metrics", "logs"} {
		s := d.grpc.StatsOf(signal)
		count(grpcDecodedDesc, s.Fast.Load(), signal, "fast")
		count(grpcDecodedDesc, s.Pdata.Load(), signal, "pdata")
		h := d.http.proto.StatsOf(signal)
		count(httpDecodedDesc, h.Fast.Load(), signal, "fast")
		count(httpDecodedDesc, h.Pdata.Load(), signal, "pdata")
		j := d.http.json.StatsOf(signal)
		count(httpDecodedDesc, j.Fast.Load(), signal, "json_fast")
		count(httpDecodedDesc, j.Pdata.Load(), signal, "json")
		e := d.grpc.MarshalStatsOf(signal)
		count(grpcEncodedDesc, e.Guessed.Load(), signal, "guessed")
		count(grpcEncodedDesc, e.Sized.Load(), signal, "sized")
	}
}
