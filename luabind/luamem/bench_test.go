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

func BenchmarkAfterFuncStop(b *testing.B) {
	for b.Loop() {
		t := time.AfterFunc(time.Second, func() {})
		t.Stop()
	}
}
