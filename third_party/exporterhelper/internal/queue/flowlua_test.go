// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/metadatatest"
	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/request"
	"go.opentelemetry.io/collector/exporter/exporterhelper/internal/requesttest"
	"go.opentelemetry.io/collector/pipeline"
)

// sizedRequest counts the calls of BytesSize, a walk over every item of
// a real request.
type sizedRequest struct {
	requesttest.FakeRequest
	sized int
}

func (r *sizedRequest) BytesSize() int {
	r.sized++
	return r.FakeRequest.BytesSize()
}

// TestFlowluaBytesSizeOnlyWhenRecorded checks flowlua's patch: Offer sizes
// a request in bytes only when the histogram of batch sizes in bytes
// records it.
func TestFlowluaBytesSizeOnlyWhenRecorded(t *testing.T) {
	offer := func(t *testing.T, set component.TelemetrySettings) *sizedRequest {
		q, err := newObsQueue[request.Request](Settings[request.Request]{
			Signal:    pipeline.SignalLogs,
			ID:        exporterID,
			Telemetry: set,
		}, newFakeQueue[request.Request](nil, 7, 9))
		require.NoError(t, err)
		req := &sizedRequest{FakeRequest: requesttest.FakeRequest{Items: 2, Bytes: 100}}
		require.NoError(t, q.Offer(context.Background(), req))
		return req
	}
	telemetry := func(t *testing.T, opts ...componenttest.TelemetryOption) *componenttest.Telemetry {
		tt := componenttest.NewTelemetry(opts...)
		t.Cleanup(func() { require.NoError(t, tt.Shutdown(context.Background())) })
		return tt
	}

	t.Run("recorded", func(t *testing.T) {
		tt := telemetry(t)
		req := offer(t, tt.NewTelemetrySettings())
		require.Equal(t, 1, req.sized)
		metadatatest.AssertEqualExporterQueueBatchSendSizeBytes(t, tt,
			[]metricdata.HistogramDataPoint[int64]{{
				Attributes:   attribute.NewSet(attribute.String(exporterKey, exporterID.String())),
				Count:        1,
				Bounds:       []float64{128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608, 16777216},
				BucketCounts: []uint64{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
				Min:          metricdata.NewExtrema[int64](100),
				Max:          metricdata.NewExtrema[int64](100),
				Sum:          100,
			}}, metricdatatest.IgnoreTimestamp())
	})

	t.Run("dropped", func(t *testing.T) {
		// The view the collector's "normal" level (and flowlua) applies.
		drop := sdkmetric.NewView(
			sdkmetric.Instrument{
				Scope: instrumentation.Scope{Name: "go.opentelemetry.io/collector/exporter/exporterhelper"},
				Name:  "otelcol_exporter_queue_batch_send_size_bytes",
			},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationDrop{}},
		)
		tt := telemetry(t, componenttest.WithMetricOptions(sdkmetric.WithView(drop)))
		req := offer(t, tt.NewTelemetrySettings())
		require.Zero(t, req.sized, "BytesSize computed for a histogram nobody records")
	})

	t.Run("no meter", func(t *testing.T) {
		req := offer(t, componenttest.NewNopTelemetrySettings())
		require.Zero(t, req.sized)
	})
}
