package dataplane

import (
	"context"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/xpdata/pref"
)

// Entry wraps the consumer a receiver sends to: the point where batches
// enter the pipeline. It marks each batch as owned by the pipeline and
// releases it once the synchronous chain behind it has returned, as the
// collector's service does at the start of its pipelines. Components
// that keep a batch longer (the batch processor, exporter queues) take
// their own reference. With pdata's proto pooling (the feature gate
// pdata.useProtoPooling) a released batch's memory is reused for the next
// request instead of being left to the garbage collector.
func Entry(next Consumer) Consumer { return entry{next: next} }

type entry struct{ next Consumer }

// Capabilities are those of the consumer behind.
func (e entry) Capabilities() consumer.Capabilities { return e.next.Capabilities() }

// ConsumeTraces passes td on and releases it when the call returns.
func (e entry) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if pref.MarkPipelineOwnedTraces(td) {
		defer pref.UnrefTraces(td)
	}
	return e.next.ConsumeTraces(ctx, td)
}

// ConsumeMetrics passes md on and releases it when the call returns.
func (e entry) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	if pref.MarkPipelineOwnedMetrics(md) {
		defer pref.UnrefMetrics(md)
	}
	return e.next.ConsumeMetrics(ctx, md)
}

// ConsumeLogs passes ld on and releases it when the call returns.
func (e entry) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	if pref.MarkPipelineOwnedLogs(ld) {
		defer pref.UnrefLogs(ld)
	}
	return e.next.ConsumeLogs(ctx, ld)
}
