package promconfig

import (
	"strings"
	"testing"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// catalog answers as the default registry with the prometheus plugin does.
var catalog = convert.MapCatalog{
	"receiver":  {"prometheus": {Name: "otelcol.receiver.prometheus"}},
	"exporter":  {"prometheusremotewrite": {Name: "otelcol.exporter.prometheus_remote_write"}},
	"extension": {"basicauth": {Name: "otelcol.extension.basicauth"}, "bearertokenauth": {Name: "otelcol.extension.bearertokenauth"}},
}

func convertString(t *testing.T, src string, cat convert.Catalog) *convert.Result {
	t.Helper()
	res, err := Convert([]byte(strings.TrimLeft(src, "\n")), Options{Filename: "prometheus.yml", Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"scrape_configs:\n  - job_name: a\n", true},
		{"global:\n  scrape_interval: 15s\n", true},
		{"remote_write: []\n", true},
		{"rule_files: [a.yml]\n", true},
		{"receivers:\n  prometheus:\n    config:\n      scrape_configs: []\n", false},
		{"scrape_configs: []\nservice: {}\n", false}, // a collector config with a stray key
		{"other: 1\n", false},
		{"- a\n", false},
		{"", false},
		{"{", false},
	} {
		if got := Is([]byte(tc.src)); got != tc.want {
			t.Errorf("Is(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

const full = `
global:
  scrape_interval: 15s
  external_labels:
    cluster: eu1
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["localhost:9100"]
    relabel_configs:
      - source_labels: [__address__]
        regex: '(.*):\d+'
        replacement: $1
        target_label: host
remote_write:
  - url: http://mimir:9009/api/v1/push
    name: mimir
    headers: {X-Scope-OrgID: acme}
    basic_auth: {username: u, password: p}
    queue_config: {capacity: 10000, max_shards: 50, min_backoff: 30ms}
    write_relabel_configs:
      - action: drop
        regex: go_.*
        source_labels: [__name__]
  - url: https://thanos/api/v1/receive
    authorization: {credentials_file: /etc/token}
    tls_config: {ca_file: /etc/ca.pem, min_version: TLS12}
rule_files: [rules.yml]
`

func TestConvert(t *testing.T) {
	res := convertString(t, full, catalog)
	script := string(res.Script)
	for _, want := range []string{
		// The scrape configs as they are, strings literal ($1 is not ${...}).
		`regex = "(.*):\\d+",`,
		`replacement = "$1",`,
		`global = { scrape_interval = "15s" },`,
		"trim_metric_suffixes = false,",
		"otelcol.exporter.prometheus_remote_write.mimir.input,\n      otelcol.exporter.prometheus_remote_write.default.input,",
		`otelcol.exporter.prometheus_remote_write "mimir" {`,
		`endpoint = "http://mimir:9009/api/v1/push",`,
		`headers = { ["X-Scope-OrgID"] = "acme" },`,
		"auth = { authenticator = otelcol.extension.basicauth.mimir.id },",
		`external_labels = { cluster = "eu1" },`,
		"remote_write_queue = { num_consumers = 50 },",
		`retry_on_failure = { initial_interval = "30ms" },`,
		"disable_scope_info = true,",
		"target_info = { enabled = false },",
		`translation_strategy = "UnderscoreEscapingWithoutSuffixes",`,
		`client_auth = { username = "u", password = "p" },`,
		`otelcol.extension.bearertokenauth "default" {`,
		`filename = "/etc/token",`,
		`tls = { ca_file = "/etc/ca.pem", min_version = "1.2" },`,
		"-- left out (prometheus.yml:27): rule_files: not converted: flowlua evaluates no recording or alerting rules",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("the script lacks %q:\n%s", want, script)
		}
	}
	// external_labels are the exporters', where Prometheus adds them.
	if strings.Contains(script, "global = { scrape_interval = \"15s\", external_labels") {
		t.Errorf("external_labels stayed in the receiver's global:\n%s", script)
	}
	wantProblems := []string{
		"prometheus.yml:19: remote_write[0].queue_config.capacity: not converted: ",
		"prometheus.yml:20: remote_write[0].write_relabel_configs: not converted: ",
		"prometheus.yml:27: rule_files: not converted: ",
	}
	got := strings.Split(res.Error(), "\n")
	if len(got) != len(wantProblems) {
		t.Fatalf("problems:\n%s\nwant %d", res.Error(), len(wantProblems))
	}
	for i, w := range wantProblems {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("problem %d: %q, want it to start with %q", i, got[i], w)
		}
	}
}

func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // problem prefixes, in order
	}{
		{"no remote_write", "scrape_configs:\n  - job_name: a\n", []string{"prometheus.yml:1: remote_write: none: "}},
		{"no scrape configs", "remote_write:\n  - url: http://a\n", []string{"prometheus.yml:1: scrape_configs: missing: "}},
		{"sections without an equivalent", `
scrape_configs: [{job_name: a}]
remote_write: [{url: "http://a"}]
alerting:
  alertmanagers: []
remote_read: [{url: "http://b"}]
storage: {}
nonsense: 1
`, []string{
			"prometheus.yml:3: alerting: not converted: ",
			"prometheus.yml:5: remote_read: not converted: ",
			"prometheus.yml:6: storage: not converted: ",
			"prometheus.yml:7: nonsense: not a section of a Prometheus config",
		}},
		{"remote_write settings without an equivalent", `
scrape_configs: [{job_name: a}]
remote_write:
  - url: http://a
    send_exemplars: true
    send_native_histograms: true # the scrape configs turn them on
    sigv4: {region: eu-west-1}
    protobuf_message: io.prometheus.write.v2.Request
    queue_config:
      batch_send_deadline: 5s
    metadata_config:
      send: false
      send_interval: 1m
    tls_config:
      min_version: TLS9
  - name: nourl
`, []string{
			"prometheus.yml:4: remote_write[0].send_exemplars: not converted: ",
			"prometheus.yml:6: remote_write[0].sigv4: not converted: there is no SigV4",
			"prometheus.yml:7: remote_write[0].protobuf_message: io.prometheus.write.v2.Request: not converted: ",
			"prometheus.yml:9: remote_write[0].queue_config.batch_send_deadline: not converted: ",
			"prometheus.yml:12: remote_write[0].metadata_config.send_interval: not converted: ",
			`prometheus.yml:14: remote_write[0].tls_config.min_version: "TLS9": not a TLS version`,
			"prometheus.yml:15: remote_write[1]: url: missing",
		}},
		{"two authenticators", `
scrape_configs: [{job_name: a}]
remote_write:
  - url: http://a
    basic_auth: {username: u, password_file: /p}
    bearer_token: t
`, []string{
			"prometheus.yml:4: remote_write[0].basic_auth.password_file: not converted: ",
			"prometheus.yml:5: remote_write[0].bearer_token: not converted: the entry has an authenticator already",
		}},
		{"empty", "", []string{"prometheus.yml:1: the config is empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := convertString(t, tc.src, catalog)
			var got []string
			if len(res.Problems) > 0 {
				got = strings.Split(res.Error(), "\n")
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant:\n%s\nscript:\n%s", res.Error(), strings.Join(tc.want, "\n"), res.Script)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d: %q, want it to start with %q", i, got[i], w)
				}
			}
		})
	}
}

// TestLiteral: Prometheus's strings are taken as they are: ${1} in a
// relabel replacement is not an environment variable, and `$$` stays two.
func TestLiteral(t *testing.T) {
	res := convertString(t, `
scrape_configs:
  - job_name: a
    relabel_configs:
      - {target_label: x, replacement: "${1}:$$"}
    metric_relabel_configs:
      - regex:
        action: labeldrop
remote_write: [{url: "http://a"}]
`, catalog)
	if len(res.Problems) > 0 {
		t.Fatalf("problems:\n%s", res.Error())
	}
	script := string(res.Script)
	if !strings.Contains(script, `replacement = "${1}:$$"`) {
		t.Errorf("the replacement is not as written:\n%s", script)
	}
	// A null leaves its key out: Prometheus's default applies.
	if strings.Contains(script, "regex") {
		t.Errorf("a null regex is written:\n%s", script)
	}
}

// TestMetadataOff: metadata_config.send = false turns the exporter's off;
// Prometheus's default sends it.
func TestMetadataOff(t *testing.T) {
	res := convertString(t, "scrape_configs: [{job_name: a}]\nremote_write:\n  - url: http://a\n    metadata_config: {send: false}\n", catalog)
	if !strings.Contains(string(res.Script), "send_metadata = false,") {
		t.Errorf("send_metadata is not false:\n%s", res.Script)
	}
}

// TestWithoutPlugin: without the prometheus plugin nothing answers to the
// receiver: a problem that says where the plugin goes, and the exporters
// written all the same.
func TestWithoutPlugin(t *testing.T) {
	cat := convert.MapCatalog{"exporter": catalog["exporter"]}
	res := convertString(t, "scrape_configs: [{job_name: a}]\nremote_write: [{url: 'http://a'}]\n", cat)
	if want := "prometheus.yml:1: scrape_configs: no flowlua component otelcol.receiver.prometheus: the prometheus plugin serves it"; !strings.HasPrefix(res.Error(), want) {
		t.Errorf("problems:\n%s\nwant %q", res.Error(), want)
	}
	if !strings.Contains(string(res.Script), `otelcol.exporter.prometheus_remote_write "default" {`) {
		t.Errorf("the exporter is not written:\n%s", res.Script)
	}
}

// TestAliases: the alias bounds of package convert hold here too.
func TestAliases(t *testing.T) {
	src := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := range 8 {
		name := string(rune('b' + i))
		src += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	src += "scrape_configs: *" + prev + "\n"
	if _, err := Convert([]byte(src), Options{Catalog: catalog}); err == nil {
		t.Fatal("a billion laughs converted")
	}
}
