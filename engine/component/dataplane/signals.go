package dataplane

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// ErrUnsupportedSignal is returned (wrapped) by a Consumer for a signal it
// does not accept.
var ErrUnsupportedSignal = errors.New("signal not supported")

// Signals makes a Consumer of one consumer per signal. A nil field rejects
// its signal with an error wrapping ErrUnsupportedSignal.
type Signals struct {
	Traces  consumer.Traces
	Metrics consumer.Metrics
	Logs    consumer.Logs
}

var _ Consumer = (*Signals)(nil)

// Capabilities says the data is mutated when any of the signal consumers
// mutates it.
func (s *Signals) Capabilities() consumer.Capabilities {
	m := false
	if s.Traces != nil {
		m = m || s.Traces.Capabilities().MutatesData
	}
	if s.Metrics != nil {
		m = m || s.Metrics.Capabilities().MutatesData
	}
	if s.Logs != nil {
		m = m || s.Logs.Capabilities().MutatesData
	}
	return consumer.Capabilities{MutatesData: m}
}

// ConsumeTraces passes td to Traces.
func (s *Signals) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	if s.Traces == nil {
		return fmt.Errorf("traces: %w", ErrUnsupportedSignal)
	}
	return s.Traces.ConsumeTraces(ctx, td)
}

// ConsumeMetrics passes md to Metrics.
func (s *Signals) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	if s.Metrics == nil {
		return fmt.Errorf("metrics: %w", ErrUnsupportedSignal)
	}
	return s.Metrics.ConsumeMetrics(ctx, md)
}

// ConsumeLogs passes ld to Logs.
func (s *Signals) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	if s.Logs == nil {
		return fmt.Errorf("logs: %w", ErrUnsupportedSignal)
	}
	return s.Logs.ConsumeLogs(ctx, ld)
}
