package otelcol

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// Draining a replaced or stopped instance.
//
// An exporter's queue lives inside the upstream exporterhelper and
// Shutdown does not hand it on: it first stops the retries (whatever is
// being retried fails with "interrupted due to shutdown") and then sends
// each queued request once. With the endpoint down, a memory queue is
// lost on Shutdown; a persistent queue keeps what was not sent in its
// storage (the interrupted requests are not marked done) for the next
// instance that opens it.
//
// So a replaced instance is shut down only once it holds nothing:
//
//  1. The instance is given its own MeterProvider, a thin wrapper over the
//     component's (the metrics still reach /metrics as before). Through
//     it the adapter learns of the exporterhelper's queue-size gauge
//     (otelcol_exporter_queue_size: requests, items or bytes as the queue
//     is sized, counting those queued and those being sent or retried) and
//     of its send-failed counters (otelcol_exporter_send_failed_*, in
//     items).
//  2. drain polls the queue size (by calling the gauge's callbacks, as a
//     metrics reader does) until it is zero or the deadline passes, while
//     the new instance takes the new data. It logs its start, its end and
//     what was left.
//  3. Then the instance is shut down. Items that fail from then on (what
//     was left at the deadline) are counted as dropped with the reason
//     drain_timeout; items an exporter gives up on while it runs are
//     counted as export_failed. A persistent queue's items interrupted by
//     the shutdown stay in its storage: they are not counted.
//
// An instance without a queue (no queue-size gauge) has nothing to drain.

// queueSizeMetric and the send-failed counters are the exporterhelper
// instruments the drain watches, by name.
const queueSizeMetric = "otelcol_exporter_queue_size"

var sendFailedMetrics = map[string]dataplane.Signal{
	"otelcol_exporter_send_failed_spans":         dataplane.Traces,
	"otelcol_exporter_send_failed_metric_points": dataplane.Metrics,
	"otelcol_exporter_send_failed_log_records":   dataplane.Logs,
}

// sentMetrics are the exporterhelper's counters of items sent, which tell
// an exporter's health that a request went through (sending.go).
var sentMetrics = map[string]bool{
	"otelcol_exporter_sent_spans":         true,
	"otelcol_exporter_sent_metric_points": true,
	"otelcol_exporter_sent_log_records":   true,
}

// drainPoll is how often drain reads the queue size.
const drainPoll = 50 * time.Millisecond

// probe watches one instance's upstream components through their metrics.
type probe struct {
	dropped    func(signal, reason string, n int)
	persistent bool // the queue is kept in a storage extension
	// send, for an exporter, learns of the requests sent (sending.go);
	// nil for other components.
	send *sending

	retiring atomic.Bool // Shutdown has begun: failures now are drain timeouts

	mu        sync.Mutex
	gauges    []metric.Int64Observable // queue-size instruments
	callbacks []metric.Callback        // the callbacks observing them
}

// hasQueue reports whether an upstream component registered a queue.
func (p *probe) hasQueue() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.callbacks) > 0
}

// queued returns the size of the instance's queues, in the queue's unit.
func (p *probe) queued() int64 {
	p.mu.Lock()
	o := &sizeObserver{gauges: slices.Clone(p.gauges)}
	callbacks := slices.Clone(p.callbacks)
	p.mu.Unlock()
	for _, cb := range callbacks {
		_ = cb(context.Background(), o)
	}
	return o.sum
}

// failed counts n items of sig an exporter failed to send, with the
// failure's attributes.
func (p *probe) failed(sig dataplane.Signal, n int64, attrs attribute.Set) {
	if p.dropped == nil || !p.hasQueue() {
		return // without a queue the error went back to the sender
	}
	if v, _ := attrs.Value("error.type"); v.AsString() == "Shutdown" && p.persistent {
		return // kept in the storage for the next instance
	}
	reason := flowcomp.DropExportFailed
	if p.retiring.Load() {
		reason = flowcomp.DropDrainTimeout
	}
	p.dropped(sig.String(), reason, int(n))
}

// sizeObserver sums what the queue-size callbacks observe.
type sizeObserver struct {
	metric.Observer // not called: the methods below are the ones used
	gauges          []metric.Int64Observable
	sum             int64
}

func (o *sizeObserver) ObserveInt64(inst metric.Int64Observable, v int64, _ ...metric.ObserveOption) {
	if slices.Contains(o.gauges, inst) {
		o.sum += v
	}
}

func (o *sizeObserver) ObserveFloat64(metric.Float64Observable, float64, ...metric.ObserveOption) {}

// probeMeterProvider gives an instance's components meters that report to
// the component's provider and to the instance's probe.
type probeMeterProvider struct {
	metric.MeterProvider
	p *probe
}

func (mp probeMeterProvider) Meter(name string, opts ...metric.MeterOption) metric.Meter {
	return &probeMeter{Meter: mp.MeterProvider.Meter(name, opts...), p: mp.p}
}

type probeMeter struct {
	metric.Meter
	p *probe
}

// Int64ObservableGauge remembers the queue-size gauge.
func (m *probeMeter) Int64ObservableGauge(name string, opts ...metric.Int64ObservableGaugeOption) (metric.Int64ObservableGauge, error) {
	g, err := m.Meter.Int64ObservableGauge(name, opts...)
	if err == nil && name == queueSizeMetric {
		m.p.mu.Lock()
		m.p.gauges = append(m.p.gauges, g)
		m.p.mu.Unlock()
	}
	return g, err
}

// RegisterCallback remembers the callbacks that observe a queue size.
func (m *probeMeter) RegisterCallback(f metric.Callback, insts ...metric.Observable) (metric.Registration, error) {
	reg, err := m.Meter.RegisterCallback(f, insts...)
	if err != nil {
		return reg, err
	}
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	for _, inst := range insts {
		if g, ok := inst.(metric.Int64Observable); ok && slices.Contains(m.p.gauges, g) {
			m.p.callbacks = append(m.p.callbacks, f)
			break
		}
	}
	return reg, nil
}

// Int64Counter counts the send-failed counters' items as drops too.
func (m *probeMeter) Int64Counter(name string, opts ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	c, err := m.Meter.Int64Counter(name, opts...)
	if sig, ok := sendFailedMetrics[name]; ok && err == nil {
		return &failedCounter{Int64Counter: c, sig: sig, p: m.p}, nil
	}
	if sentMetrics[name] && err == nil && m.p.send != nil {
		return &sentCounter{Int64Counter: c, s: m.p.send}, nil
	}
	return c, err
}

// sentCounter tells a sending of each request sent with items in it.
type sentCounter struct {
	metric.Int64Counter
	s *sending
}

func (c *sentCounter) Add(ctx context.Context, n int64, opts ...metric.AddOption) {
	c.Int64Counter.Add(ctx, n, opts...)
	if n > 0 {
		c.s.sent()
	}
}

type failedCounter struct {
	metric.Int64Counter
	sig dataplane.Signal
	p   *probe
}

func (c *failedCounter) Add(ctx context.Context, n int64, opts ...metric.AddOption) {
	c.Int64Counter.Add(ctx, n, opts...)
	c.p.failed(c.sig, n, metric.NewAddConfig(opts).Attributes())
}

// persistentQueue reports whether cfg keeps an exporter's queue in a
// storage extension (sending_queue.storage).
func persistentQueue(cfg component.Config) bool {
	v := reflect.Indirect(reflect.ValueOf(cfg))
	if v.Kind() != reflect.Struct {
		return false
	}
	want := reflect.TypeFor[configoptional.Optional[exporterhelper.QueueBatchConfig]]()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Type() == want && f.CanInterface() {
			q := f.Interface().(configoptional.Optional[exporterhelper.QueueBatchConfig])
			return q.HasValue() && q.Get().StorageID != nil
		}
	}
	return false
}

// drain waits until inst's queues are empty or deadline() has passed
// (deadline is read again at every poll: a stop may bring it forward). It
// logs the start, the end and what was left.
func (a *adapter) drain(inst *instance, why string, deadline func() time.Time) {
	left := inst.probe.queued()
	if left == 0 {
		return
	}
	start := time.Now()
	a.opts.Logger.Info("draining the queue", "why", why, "queued", left, "bound", max(0, time.Until(deadline())).Round(time.Millisecond))
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for {
		left = inst.probe.queued()
		switch {
		case left == 0:
			a.opts.Logger.Info("drained", "took", time.Since(start).Round(time.Millisecond))
			return
		case !time.Now().Before(deadline()):
			a.opts.Logger.Warn("drain bound reached: what is still queued is dropped and counted",
				"queued", left, "took", time.Since(start).Round(time.Millisecond), "persistent", inst.probe.persistent)
			return
		}
		<-t.C
	}
}

// drainUntil returns the deadline of a drain that starts now: the drain
// timeout from now, brought forward to the stop's deadline once Run is
// stopping.
func (a *adapter) drainUntil() func() time.Time {
	own := time.Now().Add(a.opts.DrainTimeout)
	return func() time.Time {
		if stop := a.stopBy.Load(); stop != nil && stop.Before(own) {
			return *stop
		}
		return own
	}
}
