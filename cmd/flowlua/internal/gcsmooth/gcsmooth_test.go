package gcsmooth

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

const mb = 1 << 20

func steady(n int, live uint64) []uint64 {
	r := make([]uint64, n)
	for i := range r {
		r[i] = live
	}
	return r
}

func TestPercentFor(t *testing.T) {
	p := DefaultPolicy
	for _, tc := range []struct {
		name   string
		recent []uint64
		live   uint64
		want   int
	}{
		{"too few collections to judge", steady(7, 4*mb), 8 * mb, 100},
		{"as usual", steady(16, 4*mb), 4 * mb, 100},
		{"within the margin", steady(16, 4*mb), 48 * mb / 10, 100},
		// median 4 MB: bound 4*2*1.2 = 9.6 MB, so 7 MB live gets
		// 100*(9.6/7-1) = 37.
		{"an outlier", append(steady(15, 4*mb), 7*mb), 7 * mb, 37},
		{"a spike never goes below MinPercent", append(steady(15, 4*mb), 20*mb), 20 * mb, 25},
		// Half the window at the new level moves the median: the load grew.
		{"a load that grew", append(steady(8, 4*mb), steady(9, 7*mb)...)[1:], 7 * mb, 100},
		{"nothing live", steady(16, 4*mb), 0, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.PercentFor(tc.recent, tc.live); got != tc.want {
				t.Fatalf("PercentFor(%d collections, %d MB) = %d, want %d", len(tc.recent), tc.live/mb, got, tc.want)
			}
		})
	}
}

// TestSmootherFollowsCollections runs the smoother in this process: it must
// be called after every collection, lower GOGC after an outlier, count it,
// put GOGC back after an ordinary one, and put it back when stopped.
func TestSmootherFollowsCollections(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	reg := prometheus.NewRegistry()
	s := New(DefaultPolicy, reg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.Start(ctx)

	collections := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.recent)
	}
	// Collect until the smoother has seen a full window of a small heap.
	deadline := time.Now().Add(20 * time.Second)
	for collections() < DefaultPolicy.Window {
		if time.Now().After(deadline) {
			t.Fatalf("the smoother saw %d collections", collections())
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // let the cleanup goroutine run
	}
	if got := testutil.ToFloat64(s.percent); got != 100 {
		t.Fatalf("flowlua_gc_percent = %v under a steady heap, want 100", got)
	}

	// A spike: far more live than the window's median.
	spike := make([][]byte, 0, 64)
	for range 64 {
		spike = append(spike, make([]byte, 1<<20))
	}
	waitFor(t, "the goal to be clipped", func() bool {
		runtime.GC()
		time.Sleep(time.Millisecond)
		return testutil.ToFloat64(s.clipped) > 0
	})
	if got := testutil.ToFloat64(s.percent); got >= 100 || got < float64(DefaultPolicy.MinPercent) {
		t.Fatalf("flowlua_gc_percent = %v after a spike, want in [%d, 100)", got, DefaultPolicy.MinPercent)
	}
	if got := debug.SetGCPercent(-1); got >= 100 {
		t.Fatalf("GOGC = %d after a spike, want < 100", got)
	} else {
		debug.SetGCPercent(got)
	}
	runtime.KeepAlive(spike)
	spike = nil

	// Stopped: GOGC goes back to 100 at the next collection.
	cancel()
	waitFor(t, "GOGC back at 100", func() bool {
		runtime.GC()
		time.Sleep(time.Millisecond)
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.current == 100
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC = %d after stop, want 100", got)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
