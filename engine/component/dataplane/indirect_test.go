package dataplane

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

func TestIndirectWaitsForItsFirstTarget(t *testing.T) {
	in := NewIndirect()
	sink := &recorder{name: "late"}
	done := make(chan error, 1)
	go func() { done <- in.ConsumeTraces(context.Background(), newTraces()) }()
	in.Set(sink)
	if err := <-done; err != nil {
		t.Fatalf("a call made before the first target was set failed: %v", err)
	}
	// A caller's context bounds the wait.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := NewIndirect().ConsumeLogs(ctx, plog.NewLogs()); !errors.Is(err, ErrNoConsumer) {
		t.Fatalf("err = %v, want ErrNoConsumer", err)
	}
}

func TestIndirectWithoutTarget(t *testing.T) {
	in := NewIndirect()
	in.Set(nil) // removed: calls fail at once
	ctx := context.Background()
	if err := in.ConsumeTraces(ctx, newTraces()); !errors.Is(err, ErrNoConsumer) {
		t.Errorf("traces: err = %v, want ErrNoConsumer", err)
	}
	if err := in.ConsumeMetrics(ctx, pmetric.NewMetrics()); !errors.Is(err, ErrNoConsumer) {
		t.Errorf("metrics: err = %v, want ErrNoConsumer", err)
	}
	if err := in.ConsumeLogs(ctx, plog.NewLogs()); !errors.Is(err, ErrNoConsumer) {
		t.Errorf("logs: err = %v, want ErrNoConsumer", err)
	}
	if in.Capabilities().MutatesData || in.Get() != nil {
		t.Error("an empty Indirect has a target or mutates")
	}
}

func TestIndirectSwap(t *testing.T) {
	in := NewIndirect()
	a := &recorder{name: "a"}
	b := &recorder{name: "b", mutates: true}
	ctx := context.Background()

	in.Set(a)
	_ = in.ConsumeTraces(ctx, newTraces())
	_ = in.ConsumeMetrics(ctx, pmetric.NewMetrics())
	_ = in.ConsumeLogs(ctx, plog.NewLogs())
	if in.Capabilities().MutatesData {
		t.Error("capabilities are not the target's")
	}
	in.Set(b)
	_ = in.ConsumeTraces(ctx, newTraces())
	if !in.Capabilities().MutatesData {
		t.Error("capabilities did not follow the new target")
	}
	if a.traces.SpanCount() != 1 || len(a.metrics.AllMetrics()) != 1 || len(a.logs.AllLogs()) != 1 {
		t.Error("first target did not get every signal")
	}
	if b.traces.SpanCount() != 1 {
		t.Error("second target did not get the batch sent after Set")
	}
	in.Set(nil)
	if err := in.ConsumeTraces(ctx, newTraces()); !errors.Is(err, ErrNoConsumer) {
		t.Errorf("after Set(nil): err = %v", err)
	}
}

// TestIndirectConcurrentSwap swaps targets while batches flow: every batch
// reaches exactly one target.
func TestIndirectConcurrentSwap(t *testing.T) {
	in := NewIndirect()
	targets := []*recorder{{name: "a"}, {name: "b"}, {name: "c"}}
	in.Set(targets[0])
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			in.Set(targets[i%len(targets)])
		}
	})
	var senders sync.WaitGroup
	for range 4 {
		senders.Go(func() {
			for range 500 {
				if err := in.ConsumeTraces(context.Background(), newTraces()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	senders.Wait()
	stop.Store(true)
	wg.Wait()
	total := 0
	for _, r := range targets {
		total += r.traces.SpanCount()
	}
	if total != 2000 {
		t.Errorf("targets got %d spans, want 2000", total)
	}
}

func TestSignals(t *testing.T) {
	sink := new(consumertest.TracesSink)
	s := &Signals{Traces: sink}
	ctx := context.Background()
	if err := s.ConsumeTraces(ctx, newTraces()); err != nil || sink.SpanCount() != 1 {
		t.Fatalf("traces not delivered: %v", err)
	}
	if err := s.ConsumeMetrics(ctx, pmetric.NewMetrics()); !errors.Is(err, ErrUnsupportedSignal) {
		t.Errorf("metrics: err = %v, want ErrUnsupportedSignal", err)
	}
	if err := s.ConsumeLogs(ctx, plog.NewLogs()); !errors.Is(err, ErrUnsupportedSignal) {
		t.Errorf("logs: err = %v, want ErrUnsupportedSignal", err)
	}
	if s.Capabilities().MutatesData {
		t.Error("Signals of a read-only sink mutates")
	}
	if !(&Signals{Logs: &recorder{mutates: true}}).Capabilities().MutatesData {
		t.Error("Signals hides a mutating consumer")
	}
}
