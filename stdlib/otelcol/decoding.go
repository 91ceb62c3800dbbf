package otelcol

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/stdlib/otelcol/otlpdecode"
)

// The OTLP receivers flowlua hosts decode gRPC export requests with
// otlpdecode, which builds the same pdata with fewer allocations and hands
// whatever it does not handle to pdata's own decoder.
func init() {
	if err := otlpdecode.RegisterGRPCCodec(); err != nil {
		slog.Warn("OTLP fast decoding is off", "error", err)
	}
}

// SetFastDecoding turns otlpdecode's gRPC decoding on or off for the
// process; off, every OTLP/gRPC request is decoded by pdata.
func SetFastDecoding(on bool) { otlpdecode.SetEnabled(on) }

var decodedDesc = prometheus.NewDesc(
	"flowlua_otlp_grpc_decoded_requests_total",
	"OTLP/gRPC export requests decoded, by signal and decoder: fast (flowlua's) or pdata (every request with --no-otlp.fast-decoding, else input the fast decoder leaves to pdata's: a repeated attribute key, a field it does not know, malformed input).",
	[]string{"signal", "decoder"}, nil,
)

// decodingCollector exposes otlpdecode's counters.
type decodingCollector struct{}

// DecodingMetrics returns the collector of flowlua_otlp_grpc_decoded_requests_total.
func DecodingMetrics() prometheus.Collector { return decodingCollector{} }

func (decodingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- decodedDesc }

func (decodingCollector) Collect(ch chan<- prometheus.Metric) {
	for _, signal := range []string{"traces", "metrics", "logs"} {
		s := otlpdecode.StatsOf(signal)
		ch <- prometheus.MustNewConstMetric(decodedDesc, prometheus.CounterValue, float64(s.Fast.Load()), signal, "fast")
		ch <- prometheus.MustNewConstMetric(decodedDesc, prometheus.CounterValue, float64(s.Pdata.Load()), signal, "pdata")
	}
}
