package dataplane

import (
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// A Tap observes what one component emits, at the fan-outs built from its
// Output (FanOut, OutputTraces, ...). The engine gives each component one
// tap and sets it on every Output of the component's arguments
// (Output.WithTap), so that every component with an output, Go or Lua, is
// observed with no code of its own; a component that sends to a consumer
// it was handed some other way builds its fan-out from an Output with the
// tap of its options (component.Options.Tap), as Lua components do. Its rules:
//
//  1. A fan-out built from an Output without a tap does nothing more than
//     the rules of NewTraces.
//  2. With a tap, each batch adds its item count (spans, data points, log
//     records) to one counter per consumer: an atomic add per consumer.
//     Items reports them; they are the rates on the edges of the graph.
//  3. While no viewer watches, the only other work is one atomic load per
//     batch.
//  4. A viewer (Watch) is offered the batches it samples: at most one per
//     its interval, of the signals it asked for. A sampled batch is copied
//     before any consumer gets it (the fan-out never marshals on the data
//     path and never touches the original: consumers own it once called);
//     the copy, marked read-only and shared by every viewer sampling the
//     batch, goes to each viewer's buffer without waiting. A viewer whose
//     buffer is full is dropped (Done is closed, Err is ErrSlowViewer): a
//     slow viewer never slows the pipeline.
//
// A Tap is safe for concurrent use.
type Tap struct {
	viewers atomic.Pointer[[]*Viewer] // nil while nobody watches

	mu     sync.Mutex
	edges  map[edgeKey]*atomic.Uint64
	closed bool
	// onEnd, if set, is told of each viewer that ends, with why.
	onEnd func(v *Viewer, err error)
}

type edgeKey struct {
	signal Signal
	to     Consumer
}

// Errors a viewer ends with.
var (
	// ErrSlowViewer: the viewer did not take its samples fast enough and
	// its buffer filled up.
	ErrSlowViewer = errors.New("viewer too slow: its buffer filled up")
	// ErrTapClosed: the component was removed from the graph.
	ErrTapClosed = errors.New("component removed")
	// ErrUnwatched: the viewer stopped watching (Unwatch).
	ErrUnwatched = errors.New("stopped watching")
)

// NewTap returns a tap; onEnd, if not nil, is called once for every viewer
// that ends, with why (it must not block).
func NewTap(onEnd func(v *Viewer, err error)) *Tap {
	return &Tap{edges: map[edgeKey]*atomic.Uint64{}, onEnd: onEnd}
}

// counter returns the counter of items sent to c for signal s, creating
// it. A consumer that cannot be a map key gets a counter nobody reads.
func (t *Tap) counter(s Signal, c Consumer) *atomic.Uint64 {
	if !reflect.TypeOf(c).Comparable() {
		return new(atomic.Uint64)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	k := edgeKey{s, c}
	ctr := t.edges[k]
	if ctr == nil {
		ctr = new(atomic.Uint64)
		t.edges[k] = ctr
	}
	return ctr
}

// Items returns the items of signal s sent so far to consumer c through
// the tap's fan-outs.
func (t *Tap) Items(s Signal, c Consumer) uint64 {
	if c == nil || !reflect.TypeOf(c).Comparable() {
		return 0
	}
	t.mu.Lock()
	ctr := t.edges[edgeKey{s, c}]
	t.mu.Unlock()
	if ctr == nil {
		return 0
	}
	return ctr.Load()
}

// Watching reports the number of viewers.
func (t *Tap) Watching() int {
	if vs := t.viewers.Load(); vs != nil {
		return len(*vs)
	}
	return 0
}

// ViewOptions say what a viewer samples.
type ViewOptions struct {
	// Signals to sample; none means every signal.
	Signals []Signal
	// Interval is the least time between two samples (the rate cap); zero
	// samples every batch.
	Interval time.Duration
	// Buffer is how many samples may wait for the viewer before it is
	// dropped; at least 1.
	Buffer int
}

// Sample is a copy of a batch a component emitted.
type Sample struct {
	Signal Signal
	Time   time.Time
	Items  int
	// Data is a read-only ptrace.Traces, pmetric.Metrics or plog.Logs.
	Data any
}

// Viewer receives samples of a tap's batches; see Tap.
type Viewer struct {
	tap      *Tap
	signals  [NumSignals]bool
	interval int64        // nanoseconds
	next     atomic.Int64 // unix nanoseconds before which nothing is sampled
	ch       chan Sample
	done     chan struct{}
	once     sync.Once
	err      error // set before done is closed
}

// Watch adds a viewer. It fails with ErrTapClosed on a closed tap.
func (t *Tap) Watch(opts ViewOptions) (*Viewer, error) {
	if opts.Buffer < 1 {
		opts.Buffer = 1
	}
	v := &Viewer{tap: t, interval: int64(opts.Interval), ch: make(chan Sample, opts.Buffer), done: make(chan struct{})}
	if len(opts.Signals) == 0 {
		v.signals = [NumSignals]bool{true, true, true}
	}
	for _, s := range opts.Signals {
		if s < NumSignals {
			v.signals[s] = true
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, ErrTapClosed
	}
	var vs []*Viewer
	if old := t.viewers.Load(); old != nil {
		vs = append(vs, *old...)
	}
	vs = append(vs, v)
	t.viewers.Store(&vs)
	return v, nil
}

// Samples returns the channel the viewer's samples arrive on.
func (v *Viewer) Samples() <-chan Sample { return v.ch }

// Done is closed once the viewer has ended; Err says why.
func (v *Viewer) Done() <-chan struct{} { return v.done }

// Err returns why the viewer ended, or nil while it watches.
func (v *Viewer) Err() error {
	select {
	case <-v.done:
		return v.err
	default:
		return nil
	}
}

// Unwatch ends the viewer (ErrUnwatched) unless it has ended already.
func (v *Viewer) Unwatch() { v.tap.end(v, ErrUnwatched) }

// end removes v from the tap and closes its Done with err, once.
func (t *Tap) end(v *Viewer, err error) {
	t.mu.Lock()
	if old := t.viewers.Load(); old != nil {
		vs := make([]*Viewer, 0, len(*old))
		for _, o := range *old {
			if o != v {
				vs = append(vs, o)
			}
		}
		if len(vs) == 0 {
			t.viewers.Store(nil)
		} else {
			t.viewers.Store(&vs)
		}
	}
	t.mu.Unlock()
	v.once.Do(func() {
		v.err = err
		close(v.done)
		if t.onEnd != nil {
			t.onEnd(v, err)
		}
	})
}

// Close ends every viewer with ErrTapClosed and refuses new ones: the
// component is gone. Counters stay readable.
func (t *Tap) Close() {
	t.mu.Lock()
	t.closed = true
	old := t.viewers.Load()
	t.mu.Unlock()
	if old != nil {
		for _, v := range *old {
			t.end(v, ErrTapClosed)
		}
	}
}

// offer gives data to the viewers that sample it (rule 4). It is called
// only when the viewers' load found some, before any consumer gets data.
func offer[T batch](vs []*Viewer, s Signal, data T, items int, clone func(T) T) {
	offerSample(vs, s, items, func() (any, bool) {
		c := clone(data)
		c.MarkReadOnly()
		return c, true
	})
}

// offerSample offers a batch of items items to the viewers of s that are
// due a sample; copy makes the read-only batch they share, once, if one
// is (false: it cannot, and nobody gets this batch).
func offerSample(vs []*Viewer, s Signal, items int, copy func() (any, bool)) {
	now := time.Now()
	ns := now.UnixNano()
	var sample Sample
	for _, v := range vs {
		if !v.signals[s] {
			continue
		}
		next := v.next.Load()
		if ns < next || !v.next.CompareAndSwap(next, ns+v.interval) {
			continue
		}
		if sample.Data == nil {
			c, ok := copy()
			if !ok {
				return
			}
			sample = Sample{Signal: s, Time: now, Items: items, Data: c}
		}
		select {
		case v.ch <- sample:
		default:
			v.tap.end(v, ErrSlowViewer)
		}
	}
}

func spanCount(td ptrace.Traces) int    { return td.SpanCount() }
func pointCount(md pmetric.Metrics) int { return md.DataPointCount() }
func recordCount(ld plog.Logs) int      { return ld.LogRecordCount() }
