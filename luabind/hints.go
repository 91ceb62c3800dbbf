package luabind

import (
	"slices"
	"strings"
)

// alloyNames are components of Grafana Alloy with no component of that
// name in flowlua, and what does their work here. Longest prefix wins.
var alloyNames = map[string]string{
	"prometheus.scrape":        "otelcol.receiver.prometheus (the native plugin prometheus) with config.scrape_configs",
	"prometheus.remote_write":  "otelcol.exporter.prometheusremotewrite",
	"prometheus.relabel":       "metric_relabel_configs in otelcol.receiver.prometheus's scrape config",
	"prometheus.exporter.unix": "otelcol.receiver.hostmetrics",
	"prometheus.exporter.self": "integrations.self",
	"prometheus.exporter":      "otelcol.receiver.prometheus scraping the exporter",
	"discovery.relabel":        "relabel_configs in otelcol.receiver.prometheus's scrape config",
	"discovery":                "the *_sd_configs of otelcol.receiver.prometheus's scrape config",
	"loki.source.file":         "otelcol.receiver.filelog",
	"loki.source.journal":      "otelcol.receiver.journald",
	"loki.process":             "the operators of otelcol.receiver.filelog, or otelcol.processor.transform",
	"loki.write":               "otelcol.exporter.otlphttp to Loki's OTLP endpoint (<loki>/otlp)",
	"loki.relabel":             "otelcol.processor.attributes or otelcol.processor.transform",
	"local.file_match":         "the include paths of otelcol.receiver.filelog",
	"local.file":               "file.read",
	"otelcol.auth.basic":       "otelcol.extension.basicauth",
	"otelcol.auth.bearer":      "otelcol.extension.bearertokenauth",
	"otelcol.storage.file":     "otelcol.extension.file_storage",
	"otelcol.exporter.loki":    "otelcol.exporter.otlphttp to Loki's OTLP endpoint (<loki>/otlp)",
	"import.file":              `require "lib.name"`,
	"declare":                  `module "name" { ... }`,
}

// collectorAliases are collector type names whose flowlua component is
// not the type without underscores.
var collectorAliases = map[string]string{
	"otelcol.exporter.otlp_grpc": "otelcol.exporter.otlp",
}

// hintRoots are the first names of alloyNames and the collector's
// sections: an unknown global of these is reported with its whole name.
var hintRoots = func() map[string]bool {
	m := map[string]bool{"receivers": true, "processors": true, "exporters": true, "connectors": true, "extensions": true,
		"receiver": true, "processor": true, "exporter": true, "connector": true, "extension": true}
	for k := range alloyNames {
		first, _, _ := strings.Cut(k, ".")
		m[first] = true
	}
	return m
}()

// nameHint returns a hint for an unknown component name that is Grafana
// Alloy's or a collector config's: the flowlua equivalent, and flowlua
// convert. comps are the registered names.
func nameHint(name string, comps []string) string {
	for p := name; p != ""; {
		if eq, ok := alloyNames[p]; ok {
			return " (" + p + " is Grafana Alloy's; in flowlua: " + eq + "; flowlua convert config.alloy translates a whole Alloy config)"
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	parts := strings.Split(name, ".")
	if len(parts) < 2 {
		return ""
	}
	class := strings.TrimSuffix(parts[0], "s")
	typ := parts[1]
	if parts[0] == "otelcol" && len(parts) >= 3 {
		class, typ = parts[1], parts[2]
	}
	switch class {
	case "receiver", "processor", "exporter", "connector", "extension":
	default:
		return ""
	}
	want := "otelcol." + class + "." + typ
	if eq, ok := collectorAliases[want]; ok && slices.Contains(comps, eq) {
		return " (" + typ + " is the collector's type of " + eq + "; flowlua convert config.yaml translates a whole collector config)"
	}
	squash := func(s string) string { return strings.ReplaceAll(s, "_", "") }
	for _, c := range comps {
		if c != want && squash(c) == squash(want) || c == want && parts[0] != "otelcol" {
			return " (" + typ + " is the collector's " + class + " " + typ + ": in flowlua, " + c + "; flowlua convert config.yaml translates a whole collector config)"
		}
	}
	return ""
}
