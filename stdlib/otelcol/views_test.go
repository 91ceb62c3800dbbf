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
	type enabler interface{ Enabled(context.Context) bool }
	bp := b.MeterProvider().Meter("go.opentelemetry.io/collector/processor/batchprocessor")
	bytes, _ := bp.Int64Histogram("otelcol_processor_batch_batch_send_size_bytes")
	size, _ := bp.Int64Histogram("otelcol_processor_batch_batch_send_size")
	if bytes.(enabler).Enabled(context.Background()) {
		t.Error("batch_send_size_bytes is enabled: the batch processor would marshal-size every batch")
	}
	if !size.(enabler).Enabled(context.Background()) {
		t.Error("batch_send_size is disabled")
	}
	var _ metric.Int64Histogram = bytes
}
