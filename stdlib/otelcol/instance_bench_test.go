package otelcol

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumertest"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// BenchmarkInputDispatch measures what the adapter adds in front of an
// upstream consumer: the exported Indirect and the instance's in-flight
// accounting, from parallel callers as receivers make them.
func BenchmarkInputDispatch(b *testing.B) {
	in := dataplane.NewIndirect()
	inst := &instance{traces: consumertest.NewNop(), redirect: in}
	in.Set(inst)
	td := spans(10)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := in.ConsumeTraces(ctx, td); err != nil {
				b.Fatal(err)
			}
		}
	})
}
