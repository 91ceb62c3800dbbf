package alloyconfig

import (
	"strings"
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"

	_ "github.com/flowlua/flowlua/stdlib/all"
)

// catalog is the default registry's, with the prometheus receiver a
// native plugin serves.
type catalog struct{ convert.Catalog }

func (c catalog) Lookup(class, typ string) (convert.Component, bool) {
	if class == "receiver" && typ == "prometheus" {
		return convert.Component{Name: "otelcol.receiver.prometheus"}, true
	}
	return c.Catalog.Lookup(class, typ)
}

func conv(t *testing.T, src string) (string, string) {
	t.Helper()
	res, err := Convert([]byte(src), convert.Options{Filename: "config.alloy", Catalog: catalog{convert.Registry(flowcomp.DefaultRegistry)}})
	if err != nil {
		t.Fatal(err)
	}
	return string(res.Script), res.Error()
}

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // in the script
		problems  []string // in the problems; none when empty
	}{{
		name: "otlp receiver (Alloy listens on all interfaces by default)",
		src: `otelcol.receiver.otlp "default" {
  grpc { endpoint = "0.0.0.0:4317" 
    max_recv_msg_size = "16MiB" }
  http { max_request_body_size = "1KiB" }
  output { traces = [otelcol.exporter.debug.d.input] }
}
otelcol.exporter.debug "d" {}`,
		want: []string{
			`protocols = {`,
			`grpc = { endpoint = "0.0.0.0:4317", max_recv_msg_size_mib = 16 },`,
			`http = { endpoint = "0.0.0.0:4318", max_request_body_size = 1024 },`,
			`traces = { otelcol.exporter.debug.d.input },`,
		},
	}, {
		name: "exporter client and handlers",
		src: `otelcol.auth.bearer "t" { token = local.file.tok.content }
local.file "tok" { filename = "/tok" }
otelcol.storage.file "q" {}
otelcol.exporter.otlphttp "out" {
  client {
    endpoint = "https://x:4318"
    auth = otelcol.auth.bearer.t.handler
    keepalive { ping_response_timeout = "5s" }
  }
  sending_queue { storage = otelcol.storage.file.q.handler }
}`,
		want: []string{
			`otelcol.extension.bearertokenauth "t" {`,
			`token = file.read.tok.content,`,
			`otelcol.extension.file_storage "q" {}`,
			`endpoint = "https://x:4318",`,
			`auth = { authenticator = otelcol.extension.bearertokenauth.t.id },`,
			`keepalive = { timeout = "5s" },`,
			`sending_queue = { storage = otelcol.extension.file_storage.q.id },`,
		},
	}, {
		name: "processors",
		src: `otelcol.processor.memory_limiter "m" {
  check_interval = "1s"
  limit = "1GiB"
  spike_limit = "256MiB"
  output { logs = [otelcol.processor.transform.t.input] }
}
otelcol.processor.transform "t" {
  error_mode = "ignore"
  log_statements {
    context = "log"
    statements = ["set(attributes[\"a\"], \"b\")"]
  }
  output { logs = [otelcol.processor.resource.r.input] }
}
otelcol.processor.resource "r" {
  attribute {
    key = "env"
    value = "prod"
    action = "upsert"
  }
  output { logs = [otelcol.exporter.debug.d.input] }
}
otelcol.exporter.debug "d" {}`,
		want: []string{
			`limit_mib = 1024,`,
			`spike_limit_mib = 256,`,
			`log_statements = {`,
			`statements = { 'set(attributes["a"], "b")' },`,
			`attributes = {`,
			`{ key = "env", value = "prod", action = "upsert" },`,
		},
	}, {
		name: "expressions",
		src: `otelcol.exporter.otlp "o" {
  client {
    endpoint = sys.env("HOST") + ":" + "4317"
    headers = { "X-Tenant" = "a" }
  }
  timeout = "5s"
}`,
		want: []string{`endpoint = env("HOST") .. ":" .. "4317",`, `headers = { ["X-Tenant"] = "a" },`},
	}, {
		name: "coalesce of sys.env is env's default",
		src:  `otelcol.receiver.otlp "r" { grpc { endpoint = coalesce(sys.env("ADDR"), "0.0.0.0:4317") } }`,
		want: []string{`grpc = { endpoint = env("ADDR", "0.0.0.0:4317") },`},
	}, {
		name: "a reference to what does not convert is left out of its list",
		src: `otelcol.receiver.otlp "r" {
  grpc {}
  output { traces = [otelcol.processor.span.s.input, otelcol.exporter.debug.d.input] }
}
otelcol.processor.span "s" { output {} }
otelcol.exporter.debug "d" {}`,
		want:     []string{`traces = { otelcol.exporter.debug.d.input },`},
		problems: []string{`config.alloy:5: otelcol.processor.span "s": no flowlua component for the collector's processor span`},
	}, {
		name: "problems",
		src: `otelcol.receiver.zipkin "z" {}
otelcol.exporter.otlp "o" {
  client {
    endpoint = format("%s:4317", constants.hostname)
  }
  sending_queue {}
  sending_queue {}
}
prometheus.exporter.unix "node" {}
logging { level = "info" }`,
		problems: []string{
			`config.alloy:1: otelcol.receiver.zipkin "z": no flowlua component for the collector's receiver zipkin`,
			`config.alloy:4: otelcol.exporter.otlp "o": client.endpoint: not converted: format(...): Alloy's standard library does not convert, but sys.env`,
			`config.alloy:7: otelcol.exporter.otlp "o": sending_queue: not converted: the block is repeated`,
			`config.alloy:9: prometheus.exporter.unix "node": no flowlua equivalent of prometheus.exporter.unix`,
			`config.alloy:10: logging: not converted`,
		},
		want: []string{`-- left out (config.alloy:4): otelcol.exporter.otlp "o": client.endpoint`},
	}, {
		name: "a cycle of references is an error, not a stack overflow",
		src: `discovery.relabel "r" { targets = discovery.relabel.r.output }
prometheus.scrape "s" { targets = discovery.relabel.r.output }`,
		problems: []string{`config.alloy:2: prometheus.scrape "s": targets: not converted: a cycle of references between components`},
	}, {
		name: "prometheus",
		src: `prometheus.scrape "s" {
  targets = [{"__address__" = "a:9100", "team" = "x"}]
  forward_to = [otelcol.receiver.prometheus.p.receiver]
  scrape_interval = "15s"
  bearer_token = "secret"
}
otelcol.receiver.prometheus "p" {
  output { metrics = [otelcol.exporter.prometheus.e.input] }
}
otelcol.exporter.prometheus "e" {
  forward_to = [prometheus.remote_write.rw.receiver]
  add_metric_suffixes = false
}
prometheus.remote_write "rw" {
  endpoint { url = "http://a/push" }
  endpoint {
    url = "http://b/push"
    bearer_token = "t"
  }
}`,
		want: []string{
			`otelcol.receiver.prometheus "s" {`,
			`job_name = "prometheus.scrape.s",`,
			`authorization = { credentials = "secret" },`,
			`labels = { team = "x" },`,
			"metrics = {\n      otelcol.exporter.prometheusremotewrite.rw.input,\n      otelcol.exporter.prometheusremotewrite.rw_2.input,",
			`otelcol.exporter.prometheusremotewrite "rw_2" {`,
			`otelcol.extension.bearertokenauth "rw_2" {`,
			`auth = { authenticator = otelcol.extension.bearertokenauth.rw_2.id },`,
		},
		problems: []string{`config.alloy:12: otelcol.exporter.prometheus "e": add_metric_suffixes: not converted: flowlua carries OTLP to the exporter itself`},
	}, {
		name: "loki",
		src: `loki.source.file "f" {
  targets = [{"__path__" = "/a.log", "job" = "a"}, {"__path__" = "/b.log", "job" = "b"}]
  forward_to = [loki.process.p.receiver]
  tail_from_end = true
}
loki.process "p" {
  forward_to = [loki.write.w.receiver]
  stage.cri {}
  stage.static_labels { values = { env = "prod" } }
  stage.drop { expression = ".*health.*" }
  stage.timestamp {
    source = "t"
    format = "UnixMs"
  }
}
loki.write "w" {
  endpoint { url = sys.env("LOKI") + "/loki/api/v1/push" }
}`,
		want: []string{
			`otelcol.receiver.filelog "f" {`,
			`otelcol.receiver.filelog "f_2" {`,
			`include = { "/b.log" },`,
			`start_at = "end",`,
			`{ type = "container", format = "containerd" },`,
			`{ type = "add", field = "resource.env", value = "prod" },`,
			`{ type = "filter", expr = 'body matches ".*health.*"' },`,
			`layout_type = "epoch",`,
			`endpoint = env("LOKI") .. "/otlp",`,
		},
	}, {
		name: "modules",
		src: `declare "m" {
  argument "n" { optional = true
    default = 3 }
  otelcol.processor.batch "b" {
    send_batch_size = argument.n.value
    output {}
  }
  export "input" { value = otelcol.processor.batch.b.input }
}
m "one" {}
otelcol.receiver.otlp "r" {
  grpc {}
  output { traces = [m.one.input] }
}`,
		want: []string{
			`module "m" {`,
			`n = { type = "number", default = 3 },`,
			`send_batch_size = args.n,`,
			`return { input = otelcol.processor.batch.b.input }`,
			`m "one" {}`,
			`traces = { m.one.input },`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			script, problems := conv(t, tc.src)
			for _, w := range tc.want {
				if !strings.Contains(script, w) {
					t.Errorf("the script lacks %q:\n%s", w, script)
				}
			}
			if len(tc.problems) == 0 && problems != "" {
				t.Errorf("problems:\n%s", problems)
			}
			for _, p := range tc.problems {
				if !strings.Contains(problems, p) {
					t.Errorf("the problems lack %q:\n%s", p, problems)
				}
			}
		})
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"512": 512, "4MiB": 4 << 20, "1KB": 1024, "2GiB": 2 << 30, "0.5MiB": 1 << 19} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseBytes("4 parsecs"); err == nil {
		t.Error("parseBytes took a unit that is not one")
	}
}

func TestParses(t *testing.T) {
	if !Parses([]byte(`otelcol.exporter.debug "d" {}`)) {
		t.Error("Alloy's syntax does not parse")
	}
	if Parses([]byte("receivers:\n  otlp:\n")) {
		t.Error("YAML parses as Alloy")
	}
}
