package luamem

import (
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

func BenchmarkHeapAllocs(b *testing.B) {
	for b.Loop() {
		heapAllocs()
	}
}

func BenchmarkStartStop(b *testing.B) {
	L := lua.NewState()
	for b.Loop() {
		g := Start(L, time.Second, DefaultLimit, false)
		g.Stop()
	}
}

func BenchmarkSizeFreshState(b *testing.B) {
	L := lua.NewState()
	b.ReportMetric(float64(Size(L, 0)), "bytes")
	for b.Loop() {
		Size(L, 0)
	}
}

// oldDeadline is what a call cost before the guard: a timer for the time
// limit and a small struct.
type oldDeadline struct {
	at    time.Time
	timer *time.Timer
}

func BenchmarkOldDeadline(b *testing.B) {
	for b.Loop() {
		d := &oldDeadline{at: time.Now().Add(time.Second)}
		d.timer = time.AfterFunc(time.Second, func() {})
		d.timer.Stop()
	}
}
