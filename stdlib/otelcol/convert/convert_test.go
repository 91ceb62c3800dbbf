package convert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine"
	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/scriptload"

	_ "github.com/flowlua/flowlua/stdlib/all" // the built-in components
)

// fakeCatalog is the registry's catalog plus components written out: a
// connector and an authenticator, which no registration of this branch
// provides.
type fakeCatalog struct {
	Catalog
	extra MapCatalog
}

func (f fakeCatalog) Lookup(class, typ string) (Component, bool) {
	if c, ok := f.extra.Lookup(class, typ); ok {
		return c, true
	}
	return f.Catalog.Lookup(class, typ)
}

// fakes registers the fake components in a copy of the default registry,
// for checking the converted script.
func fakes(t *testing.T) (Catalog, *flowcomp.Registry) {
	t.Helper()
	reg := flowcomp.DefaultRegistry.Clone()
	type connArgs struct {
		Output dataplane.Output `lua:"output"`
	}
	type extExports struct {
		ID string `lua:"id"`
	}
	build := func(flowcomp.Options, flowcomp.Arguments) (flowcomp.Component, error) { return nil, nil }
	for _, r := range []flowcomp.Registration{
		{Name: "otelcol.connector.count", Args: connArgs{}, Exports: dataplane.Exports{}, Build: build},
		{Name: "otelcol.extension.basicauth", Args: struct{}{}, Exports: extExports{}, Build: build},
	} {
		if _, real := reg.Get(r.Name); real {
			continue // registered for real: the test uses the real one
		}
		if err := reg.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return fakeCatalog{
		Catalog: Registry(flowcomp.DefaultRegistry),
		extra: MapCatalog{
			"connector": {"count": {Name: "otelcol.connector.count"}},
			"extension": {"basicauth": {Name: "otelcol.extension.basicauth"}},
		},
	}, reg
}

// check loads and checks a script against reg, as `flowlua check` does.
func check(t *testing.T, reg *flowcomp.Registry, src []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "main.lua")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	s, r, err := scriptload.Load(path, scriptload.Options{Registry: reg})
	if s == nil || r == nil {
		t.Fatalf("loading the script: %v\n%s", err, src)
	}
	loaded := script.AsDiagnostics(err)
	_, diags := (&engine.Loader{Registry: r}).Build(s)
	if all := script.Merge(loaded, diags); len(all) > 0 {
		t.Fatalf("check: %v\n%s", all, src)
	}
}

func convertOK(t *testing.T, cat Catalog, config string) string {
	t.Helper()
	res, err := Convert([]byte(config), Options{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("problems:\n%s", res.Error())
	}
	return string(res.Script)
}

// A connector is an exporter in one pipeline and a receiver in another:
// one component whose input the first pipeline sends to and whose output
// feeds the second.
func TestConnector(t *testing.T) {
	cat, reg := fakes(t)
	got := convertOK(t, cat, `
receivers:
  otlp:
    protocols:
      grpc:
processors:
  batch:
connectors:
  count:
exporters:
  debug:
service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [count, debug]
    metrics/counts:
      receivers: [count]
      processors: [batch]
      exporters: [debug]
`)
	want := `-- Converted from config.yaml by flowlua convert.

otelcol.receiver.otlp "default" {
  protocols = {
    grpc = {},
  },
  output = {
    traces = { otelcol.processor.batch.traces.input },
  },
}

-- processors::batch is in pipelines traces, metrics/counts: the collector makes one instance per pipeline, and so does this script.
otelcol.processor.batch "traces" {
  output = {
    traces = {
      otelcol.connector.count.default.input,
      otelcol.exporter.debug.default.input,
    },
  },
}

otelcol.processor.batch "metrics_counts" {
  output = {
    metrics = { otelcol.exporter.debug.default.input },
  },
}

otelcol.connector.count "default" {
  output = {
    metrics = { otelcol.processor.batch.metrics_counts.input },
  },
}

otelcol.exporter.debug "default" {}
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	check(t, reg, []byte(got))
}

// auth.authenticator names an extension (a component.ID field of the
// upstream config): it becomes a reference to the extension's id.
func TestAuthenticatorReference(t *testing.T) {
	cat, reg := fakes(t)
	got := convertOK(t, cat, `
extensions:
  basicauth/client:
receivers:
  otlp:
    protocols:
      grpc:
exporters:
  otlp:
    endpoint: collector.example:4317
    auth:
      authenticator: basicauth/client
service:
  extensions: [basicauth/client]
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [otlp]
`)
	if !strings.Contains(got, "auth = { authenticator = otelcol.extension.basicauth.client.id },") ||
		!strings.Contains(got, `otelcol.extension.basicauth "client" {}`) {
		t.Errorf("no reference to the extension:\n%s", got)
	}
	_ = reg // the fake extension exports a string id, which the real exporter refuses: not checked
}

func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"unconfigured", `
receivers: {otlp: {protocols: {grpc: }}}
exporters: {debug: }
service:
  pipelines:
    traces:
      receivers: [otlp, zipkin]
      processors: [batch]
      exporters: [debug]
`, []string{
			"config.yaml:7: service::pipelines::traces: receiver or connector zipkin is not configured",
			"config.yaml:8: service::pipelines::traces: processor batch is not configured",
		}},
		{"profiles and unknown keys", `
receivers: {otlp: {protocols: {grpc: }}}
exporters: {debug: }
extensions: {file_storage: }
service:
  extensions: [file_storage, zpages]
  pipelines:
    profiles:
      receivers: [otlp]
      exporters: [debug]
    spans:
      receivers: [otlp]
      exporters: [debug]
  telemetry: {metrics: {level: none}}
  frobs: 1
`, []string{
			"config.yaml:6: service::extensions: extension zpages is not configured",
			"config.yaml:8: service::pipelines::profiles: not converted: flowlua carries traces, metrics and logs, not profiles",
			"config.yaml:11: service::pipelines::spans: not a pipeline id: the signal must be traces, metrics or logs",
			"config.yaml:15: service::frobs: not converted: not a key flowlua knows",
		}},
		{"extensions", `
receivers: {otlp: {protocols: {grpc: }}}
exporters:
  otlp:
    endpoint: x:1
    sending_queue: {storage: file_storage/nope}
  otlp/2:
    endpoint: x:1
    sending_queue: {storage: file_storage}
  otlp/3:
    endpoint: x:1
    sending_queue: {storage: "${env:STORAGE}"}
extensions: {file_storage: }
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [otlp, otlp/2, otlp/3]
`, []string{
			"config.yaml:6: exporters::otlp: sending_queue.storage: extension file_storage/nope is not configured",
			"config.yaml:9: exporters::otlp/2: extension file_storage is not in service::extensions, so the collector would not start it (declared all the same)",
			`config.yaml:12: exporters::otlp/3: sending_queue.storage: an extension is named by its id, not computed: "${env:STORAGE}"`,
		}},
		{"providers", `
receivers: {otlp: {protocols: {grpc: {endpoint: "${http://config/endpoint}"}}}}
exporters: {debug: {verbosity: "${yaml:basic}"}, otlp: {endpoint: "${env:A:-${env:B}}"}}
service: {pipelines: {logs: {receivers: [otlp], exporters: [debug, otlp]}}}
`, []string{
			"config.yaml:2: receivers::otlp: protocols.grpc.endpoint: ${http://config/endpoint}: the http provider does not convert, only env and file do",
			"config.yaml:3: exporters::debug: verbosity: ${yaml:basic}: the yaml provider does not convert, only env and file do",
			"config.yaml:3: exporters::otlp: endpoint: ${env:A:-${env:B}}: a default holding another reference does not convert",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Convert([]byte(tc.config), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Error(); got != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s\nscript:\n%s", got, strings.Join(tc.want, "\n"), res.Script)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	for name, want := range map[string]string{
		"": "default", "2": "_2", "eu-west.1": "eu_west_1", "fast": "fast", "end": "end_", "Ünï": "_n_",
	} {
		if got := labelOf(name); got != want {
			t.Errorf("labelOf(%q) = %q, want %q", name, got, want)
		}
	}
	if got := cloneLabel("", "traces/2"); got != "traces_2" {
		t.Errorf("cloneLabel = %q", got)
	}
	if got := cloneLabel("fast", "logs"); got != "fast_logs" {
		t.Errorf("cloneLabel = %q", got)
	}
	// otlp and otlp/default are one flowlua name: labels stay unique, in
	// config order; the new type name otlp_grpc is a name of its own.
	got := convertOK(t, nil, `
receivers: {otlp: {protocols: {grpc: }}}
exporters:
  otlp: {endpoint: "a:1"}
  otlp/default: {endpoint: "b:1"}
  otlp_grpc/default: {endpoint: "c:1"}
service: {pipelines: {logs: {receivers: [otlp], exporters: [otlp, otlp/default, otlp_grpc/default]}}}
`)
	for _, l := range []string{`otelcol.exporter.otlp "default" {`, `otelcol.exporter.otlp "default_2" {`, `otelcol.exporter.otlp_grpc "default" {`} {
		if !strings.Contains(got, l) {
			t.Errorf("no %s in\n%s", l, got)
		}
	}
}

func TestValues(t *testing.T) {
	got := convertOK(t, nil, `
receivers: {otlp: {protocols: {grpc: }}}
processors:
  attributes:
    actions: &acts
      - {key: a, value: 1.5, action: insert}
      - {key: b, value: -7, action: insert}
      - {key: c, value: 0x1F, action: insert}
      - {key: "end", value: "tab\there", action: insert}
      - {key: d, value: "it's \"q\"", action: insert}
  attributes/2:
    actions: *acts
exporters:
  debug: &dbg
    verbosity: basic
  debug/2:
    <<: *dbg
    sampling_initial: 3
service:
  pipelines:
    traces:
      receivers: [otlp]
      processors: [attributes, attributes/2]
      exporters: [debug, debug/2]
`)
	for _, l := range []string{
		`{ key = "a", value = 1.5, action = "insert" },`,
		`{ key = "b", value = -7, action = "insert" },`,
		`{ key = "c", value = 31, action = "insert" },`,
		`{ key = "end", value = "tab\there", action = "insert" },`,
		`{ key = "d", value = "it's \"q\"", action = "insert" },`,
		"otelcol.exporter.debug \"_2\" {\n  sampling_initial = 3,\n  verbosity = \"basic\",\n}",
	} {
		if !strings.Contains(got, l) {
			t.Errorf("no %s in\n%s", l, got)
		}
	}
	check(t, flowcomp.DefaultRegistry, []byte(got))
}

func TestExpand(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                      `"plain"`,
		"${env:A}":                   `env("A")`,
		"${A}":                       `env("A")`,
		"${env:A:-x}":                `env("A", "x")`,
		"${A:-}":                     `env("A", "")`,
		"Bearer ${env:T}":            `"Bearer " .. env("T")`,
		"${H}:${P:-4317}/v1":         `env("H") .. ":" .. env("P", "4317") .. "/v1"`,
		"$$HOME and $${env:X} and $": `"$HOME and ${env:X} and $"`,
	} {
		segs, err := expand(in)
		if err != nil {
			t.Errorf("expand(%q): %v", in, err)
			continue
		}
		if got := strings.Join(luaParts(segs), " .. "); got != want {
			t.Errorf("expand(%q) = %s, want %s", in, got, want)
		}
	}
}
