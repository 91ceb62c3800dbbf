package otelcol

import (
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/encoding"

	"github.com/flowlua/flowlua/stdlib/otelcol/otlpdecode"
)

// InstallGRPCCodec makes gRPC decode OTLP export requests with otlpdecode,
// which builds the same pdata with fewer allocations and hands whatever it
// does not handle to pdata's own decoder (fast false: every request goes
// to pdata's decoder, and is still counted). It returns the collector of
// flowlua_otlp_grpc_decoded_requests_total for the installed codec.
//
// gRPC keeps one codec per name for the whole process, read by every
// server, and allows replacing it only before servers start: call it once,
// from the command that runs pipelines, before the first receiver is
// built. Nothing else installs it, so `check`, `graph` and tests keep
// gRPC's default codec.
func InstallGRPCCodec(fast bool) (prometheus.Collector, error) {
	c, err := otlpdecode.NewGRPCCodec(encoding.GetCodecV2("proto"), fast)
	if err != nil {
		return nil, err
	}
	encoding.RegisterCodecV2(c)
	return decodingCollector{c}, nil
}

var decodedDesc = prometheus.NewDesc(
	"flowlua_otlp_grpc_decoded_requests_total",
	"OTLP/gRPC export requests decoded, by signal and decoder: fast (flowlua's) or pdata (every request with --no-otlp.fast-decoding, else input the fast decoder leaves to pdata's: a repeated attribute key, a field it does not know, malformed input).",
	[]string{"signal", "decoder"}, nil,
)

// decodingCollector exposes a codec's counters.
type decodingCollector struct{ codec *otlpdecode.Codec }

func (decodingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- decodedDesc }

func (d decodingCollector) Collect(ch chan<- prometheus.Metric) {
	for _, signal := range []string{"traces", "metrics", "logs"} {
		s := d.codec.StatsOf(signal)
		ch <- prometheus.MustNewConstMetric(decodedDesc, prometheus.CounterValue, float64(s.Fast.Load()), signal, "fast")
		ch <- prometheus.MustNewConstMetric(decodedDesc, prometheus.CounterValue, float64(s.Pdata.Load()), signal, "pdata")
	}
}
