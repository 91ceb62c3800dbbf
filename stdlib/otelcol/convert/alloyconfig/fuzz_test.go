package alloyconfig

import (
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/luabind/format"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// FuzzConvert: whatever parses converts without panicking, to a script
// that formats (the writer's output is Lua).
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		`otelcol.receiver.otlp "r" { grpc {} 
 output { traces = [otelcol.exporter.debug.d.input] } }
otelcol.exporter.debug "d" {}`,
		`prometheus.scrape "s" { targets = array.concat([{"__address__" = "a"}], discovery.relabel.r.output)
 forward_to = [prometheus.relabel.x.receiver] }
discovery.relabel "r" { targets = discovery.kubernetes.k.targets 
 rule { action = "keep" } }
discovery.kubernetes "k" { role = "pod" }
prometheus.relabel "x" { forward_to = [prometheus.remote_write.w.receiver] }
prometheus.remote_write "w" { endpoint { url = "u" } }`,
		`loki.source.file "f" { targets = [{"__path__" = "/a"}]
 forward_to = [loki.process.p.receiver] }
loki.process "p" { forward_to = [loki.write.w.receiver]
 stage.json { expressions = { a = "b.c" } } }
loki.write "w" { endpoint { url = "http://l/loki/api/v1/push" } }`,
		`discovery.relabel "r" { targets = discovery.relabel.r.output }
prometheus.scrape "s" { targets = discovery.relabel.r.output 
 forward_to = [otelcol.receiver.prometheus.p.receiver] }
otelcol.receiver.prometheus "p" { output { metrics = [otelcol.exporter.prometheus.e.input] } }
otelcol.exporter.prometheus "e" { forward_to = [otelcol.receiver.prometheus.p.receiver] }`,
		`declare "m" { argument "a" {} 
 export "e" { value = argument.a.value } }
m "x" { a = 1 + 2 * -3 }`,
	} {
		f.Add(s)
	}
	cat := convert.Registry(flowcomp.DefaultRegistry)
	f.Fuzz(func(t *testing.T, src string) {
		res, err := Convert([]byte(src), convert.Options{Filename: "fuzz.alloy", Catalog: cat})
		if err != nil {
			return
		}
		if _, err := format.Source(res.Script); err != nil {
			t.Fatalf("the script does not format: %v\n%s", err, res.Script)
		}
	})
}
