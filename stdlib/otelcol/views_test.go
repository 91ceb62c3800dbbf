package otelcol

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/metric"
)

// The detailed-level instruments the collector drops by default are
// disabled, so that components skip computing them (e.g. batch sizes in
// bytes), while the normal-level ones stay.
func TestNormalLevelViewsDisableDetailedInstruments(t *testing.T) {
	b, err := newMetricsBridge(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	bp := b.MeterProvider().Meter("go.opentelemetry.io/collector/processor/batchprocessor")
	bytes, _ := bp.Int64Histogram("otelcol_processor_batch_batch_send_size_bytes")
	size, _ := bp.Int64Histogram("otelcol_processor_batch_batch_send_size")
	var _ metric.Int64Histogram = bytes

	// The exporters' queue sizes every request in bytes only when this
	// histogram records it (exporterhelper's obsQueue.Offer): it must be
	// disabled through the meter an instance gives its components.
	eh := probeMeterProvider{MeterProvider: b.MeterProvider(), p: &probe{}}.Meter("go.opentelemetry.io/collector/exporter/exporterhelper")
	queueBytes, _ := eh.Int64Histogram("otelcol_exporter_queue_batch_send_size_bytes")
	sent, _ := eh.Int64Counter("otelcol_exporter_sent_log_records")

	type enabler interface{ Enabled(context.Context) bool }
	for _, c := range []struct {
		instrument any
		enabled    bool
		failure    string
	}{
		{bytes, false, "batch_send_size_bytes is enabled: the batch processor would marshal-size every batch"},
		{size, true, "batch_send_size is disabled"},
		{queueBytes, false, "exporter_queue_batch_send_size_bytes is enabled: the exporters' queue would size every request"},
		{sent, true, "exporter_sent_log_records is disabled"},
	} {
		if c.instrument.(enabler).Enabled(context.Background()) != c.enabled {
			t.Error(c.failure)
		}
	}
}
