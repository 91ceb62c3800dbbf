package wire_test

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/flowlua/flowlua/bench/internal/gen"
	"github.com/flowlua/flowlua/bench/internal/wire"
)

// TestCountMatchesPdata checks the wire-format counters against the counts
// pdata reports for the generated payloads.
func TestCountMatchesPdata(t *testing.T) {
	for _, n := range []int{1, 99, 100, 250, 500} {
		want := map[wire.Signal]int{
			wire.Traces:  gen.Traces(n).SpanCount(),
			wire.Metrics: gen.Metrics(n).DataPointCount(),
			wire.Logs:    gen.Logs(n).LogRecordCount(),
		}
		for _, s := range wire.Signals {
			if want[s] != n {
				t.Fatalf("%s: generator made %d items, want %d", s, want[s], n)
			}
			b, err := gen.Request(s, n)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wire.Count(s, b)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			if got != n {
				t.Errorf("%s: counted %d, want %d", s, got, n)
			}
			for _, p := range []gen.Payload{gen.Small, gen.OneAttr} {
				b, err = gen.RequestPayload(s, p, n)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := wire.Count(s, b); err != nil || got != n {
					t.Errorf("%s %s: counted %d (%v), want %d", s, p, got, err, n)
				}
			}
		}
	}
}

// TestCountAllMetricTypes covers the data point kinds the generator does not
// emit.
func TestCountAllMetricTypes(t *testing.T) {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	ms.AppendEmpty().SetEmptyExponentialHistogram().DataPoints().AppendEmpty()
	s := ms.AppendEmpty().SetEmptySummary().DataPoints()
	s.AppendEmpty()
	s.AppendEmpty()
	ms.AppendEmpty().SetEmptyGauge().DataPoints().AppendEmpty()
	b, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.CountDataPoints(b)
	if err != nil || got != md.DataPointCount() {
		t.Fatalf("counted %d (%v), want %d", got, err, md.DataPointCount())
	}
}

func TestCountMalformed(t *testing.T) {
	if _, err := wire.CountSpans([]byte{0x0a, 0x05, 0x01}); err == nil {
		t.Fatal("want an error for a truncated message")
	}
}

func TestRejected(t *testing.T) {
	resp := pmetricotlp.NewExportResponse()
	resp.PartialSuccess().SetRejectedDataPoints(7)
	resp.PartialSuccess().SetErrorMessage("nope")
	b, err := resp.MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	n, msg, err := wire.Rejected(b)
	if err != nil || n != 7 || msg != "nope" {
		t.Fatalf("got %d %q %v", n, msg, err)
	}
	if n, _, err := wire.Rejected(nil); err != nil || n != 0 {
		t.Fatalf("empty response: %d %v", n, err)
	}
}
