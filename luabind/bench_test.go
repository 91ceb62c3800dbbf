package luabind_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/luabind"
)

// benchComponents are the names BenchmarkLoad1000 registers: real ones and
// fakes of several depths.
var benchComponents = []string{
	"file.read",
	"otelcol.processor.batch",
	"fake.alpha",
	"fake.beta.gamma",
	"fake.delta.epsilon.zeta",
}

// benchScript generates n components with 3 references each, spread over
// the component names, every one of them a forward or backward reference.
func benchScript(n int) string {
	var b strings.Builder
	id := func(i int) string {
		i = (i + n) % n
		return fmt.Sprintf("%s.c%d", benchComponents[i%len(benchComponents)], i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s \"c%d\" {\n", benchComponents[i%len(benchComponents)], i)
		fmt.Fprintf(&b, "  timeout = \"%dms\",\n  size = %d,\n  enabled = true,\n", 100+i, i*10)
		fmt.Fprintf(&b, "  tls = { insecure = false, server_name = \"host%d.example\" },\n", i)
		fmt.Fprintf(&b, "  output = {\n    traces = { %s.input, %s.input },\n  },\n", id(i+1), id(i-1))
		fmt.Fprintf(&b, "  header = \"Bearer \" .. %s.content,\n", id(i+7))
		b.WriteString("}\n")
	}
	return b.String()
}

func BenchmarkLoad1000(b *testing.B) {
	src := []byte(benchScript(1000))
	opts := luabind.LoadOptions{Components: benchComponents, Services: []string{"http"}}
	s, err := luabind.LoadSource("main.lua", src, opts)
	if err != nil {
		b.Fatal(err)
	}
	refs := 0
	for _, blk := range s.Blocks {
		refs += len(blk.Refs())
	}
	if len(s.Blocks) != 1000 || refs != 3000 {
		b.Fatalf("%d blocks, %d references", len(s.Blocks), refs)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	// On a busy machine ns/op counts time spent waiting for a CPU:
	// cpu-ns/op is the CPU time the process used (GC included).
	cpu0, ok := cpuTime()
	n := 0
	for b.Loop() {
		if _, err := luabind.LoadSource("main.lua", src, opts); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if cpu1, _ := cpuTime(); ok && n > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(n), "cpu-ns/op")
	}
}
