// Package gcsmooth keeps one garbage collection's spike from setting the
// heap's size. Go sizes the heap before the next collection from the heap
// the last one found live (twice it, with GOGC=100). Under a steady load
// that live heap is steady, except when a collection happens to start
// while several batches are in flight: then it finds one and a half or
// twice the usual, and the next goal, and with it the pages the process
// touches and keeps until the scavenger returns them, is as much larger.
//
// After every collection, Smoother compares the live heap with the median
// of the last Window collections. When the goal Go would set is more than
// Margin above the goal of that median, it lowers GOGC for the next cycle
// to what brings the goal down to that bound (never below MinPercent), and
// puts it back at the first collection that is not an outlier. Under a
// load that really grew, the median follows within half a window (a few
// tens of milliseconds at full load), so the heap is held back for a few
// cycles, not kept small. A process whose GOGC the environment sets is
// left alone.
package gcsmooth

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Policy is how far a goal may be from the usual one.
type Policy struct {
	// Window is how many collections the median live heap is taken over.
	Window int
	// Margin is how far above the goal of the median live heap a goal may
	// be: 1.2 allows 20% more.
	Margin float64
	// MinPercent is the least GOGC set: the goal stays at least
	// 1+MinPercent/100 times the live heap, so that a real step up in the
	// load costs a few more collections, never a collection per request.
	MinPercent int
	// Percent is the GOGC the process runs with otherwise (Go's default,
	// 100).
	Percent int
}

// DefaultPolicy is what flowlua run uses.
var DefaultPolicy = Policy{Window: 16, Margin: 1.2, MinPercent: 25, Percent: 100}

// PercentFor returns the GOGC for the cycle after a collection that found
// live bytes live, given the live heaps of the last collections (live
// among them); p.Percent unless live is an outlier.
func (p Policy) PercentFor(recent []uint64, live uint64) int {
	if len(recent) < p.Window/2 || live == 0 {
		return p.Percent
	}
	sorted := slices.Clone(recent)
	slices.Sort(sorted)
	median := float64(sorted[len(sorted)/2])
	growth := 1 + float64(p.Percent)/100
	bound := median * growth * p.Margin
	if float64(live)*growth <= bound {
		return p.Percent
	}
	return max(p.MinPercent, int(100*(bound/float64(live)-1)))
}

// Smoother applies a Policy after every garbage collection.
type Smoother struct {
	policy Policy
	done   <-chan struct{}

	mu      sync.Mutex
	recent  []uint64
	current int
	sample  []metrics.Sample

	clipped prometheus.Counter
	percent prometheus.Gauge
}

// New returns a Smoother of p that counts in reg (nil: nowhere).
func New(p Policy, reg prometheus.Registerer) *Smoother {
	s := &Smoother{
		policy:  p,
		current: p.Percent,
		sample:  []metrics.Sample{{Name: "/gc/heap/live:bytes"}},
		clipped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "flowlua_gc_goal_clipped_total",
			Help: "Garbage collections after which the heap's next goal was lowered because their live heap was an outlier (--gc.smooth).",
		}),
		percent: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flowlua_gc_percent",
			Help: "The GOGC the next garbage collection runs with (--gc.smooth lowers it for a cycle after an outlier).",
		}),
	}
	s.percent.Set(float64(p.Percent))
	if reg != nil {
		reg.MustRegister(s.clipped, s.percent)
	}
	return s
}

// Start applies the policy after every collection until ctx ends, and
// then puts GOGC back at the policy's Percent.
func (s *Smoother) Start(ctx context.Context) {
	s.done = ctx.Done()
	s.arm()
}

// sentinel is allocated to die: its cleanup runs once the collection after
// its allocation has swept it. It holds a pointer so that it is never
// put in a tiny block, whose cleanups may never run.
type sentinel struct {
	_ *int
	_ [8]byte
}

func (s *Smoother) arm() {
	runtime.AddCleanup(&sentinel{}, (*Smoother).afterGC, s)
}

func (s *Smoother) afterGC() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		s.set(s.policy.Percent)
		return
	default:
	}
	s.arm()
	metrics.Read(s.sample)
	if s.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := s.sample[0].Value.Uint64()
	if len(s.recent) == s.policy.Window {
		s.recent = append(s.recent[:0], s.recent[1:]...)
	}
	s.recent = append(s.recent, live)
	want := s.policy.PercentFor(s.recent, live)
	if want < s.policy.Percent {
		s.clipped.Inc()
	}
	s.set(want)
}

func (s *Smoother) set(percent int) {
	if percent != s.current {
		debug.SetGCPercent(percent)
		s.current = percent
		s.percent.Set(float64(percent))
	}
}
