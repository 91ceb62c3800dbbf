package native

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// realisticTraces is a batch shaped like the bench's realistic payload:
// n spans with a dozen attributes each.
func realisticTraces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "checkout")
	rs.Resource().Attributes().PutStr("host.name", "node-17")
	ss := rs.ScopeSpans().AppendEmpty()
	for i := range n {
		s := ss.Spans().AppendEmpty()
		s.SetName(fmt.Sprintf("GET /api/items/%d", i))
		s.SetTraceID([16]byte{1, byte(i)})
		s.SetSpanID([8]byte{2, byte(i)})
		s.SetStartTimestamp(1)
		s.SetEndTimestamp(2)
		a := s.Attributes()
		for j := range 12 {
			a.PutStr(fmt.Sprintf("attr.%d", j), strings.Repeat("v", 16))
		}
	}
	return td
}

// processCPU returns a process's user+system CPU time, from /proc.
func processCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ
}

// BenchmarkPluginProcessor sends 100-span batches through the example
// plugin's tag processor; plugin-cpu-ns/op is the plugin process's CPU
// per batch, which ns/op (the host's wall time) does not include;
// host-cpu-ns/op is this process's (the proxy's encoding and decoding and
// its side of gRPC).
func BenchmarkPluginProcessor(b *testing.B) {
	m := NewManager(Options{})
	defer m.Close()
	p, err := m.Open(examplePlugin, "")
	if err != nil {
		b.Fatal(err)
	}
	var c = p.Description().Components[0]
	reg := p.Registration(c, c.Name, "plugin example")
	out := &sink{}
	args, err := reg.DecodeArgs(map[string]any{"key": "team", "value": "a", "output": map[string]any{"traces": []any{dataplane.Consumer(out)}}})
	if err != nil {
		b.Fatal(err)
	}
	var in dataplane.Consumer
	comp, err := reg.Build(componentOptions(&in), args)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- comp.Run(ctx) }()
	defer func() { cancel(); <-done }()
	td := realisticTraces(100)
	for range 100 { // the process is started, the paths warm
		if err := in.ConsumeTraces(context.Background(), td); err != nil {
			b.Fatal(err)
		}
	}
	pid := p.pid()
	before, hostBefore := processCPU(b, pid), processCPU(b, os.Getpid())
	b.ResetTimer()
	for range b.N {
		if err := in.ConsumeTraces(context.Background(), td); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU(b, pid)-before)/float64(b.N), "plugin-cpu-ns/op")
	b.ReportMetric(float64(processCPU(b, os.Getpid())-hostBefore)/float64(b.N), "host-cpu-ns/op")
}

// BenchmarkInProcessTag is the same work in process, for the ratio.
func BenchmarkInProcessTag(b *testing.B) {
	td := realisticTraces(100)
	out := &sink{}
	for range b.N {
		for _, rs := range td.ResourceSpans().All() {
			rs.Resource().Attributes().PutStr("team", "a")
		}
		if err := out.ConsumeTraces(context.Background(), td); err != nil {
			b.Fatal(err)
		}
	}
}
