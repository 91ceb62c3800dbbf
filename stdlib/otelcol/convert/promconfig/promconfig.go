// Package promconfig translates a Prometheus server config
// (prometheus.yml) into a flowlua script: `flowlua convert
// prometheus.yml`.
//
// What converts, and how:
//
//  1. global (but external_labels), scrape_configs and
//     scrape_config_files go, as they are, into the `config` of one
//     otelcol.receiver.prometheus "default", the collector's Prometheus
//     receiver, which scrapes with Prometheus's own code.
//  2. Each remote_write entry becomes an
//     otelcol.exporter.prometheus_remote_write, labelled by its name
//     (the label rule of package convert; "default" without one), that
//     the receiver sends to: url, headers, remote_timeout (30s when
//     unset, Prometheus's default), proxy_url, tls_config, basic_auth
//     (an otelcol.extension.basicauth),
//     authorization and bearer_token[_file] (an
//     otelcol.extension.bearertokenauth), queue_config's max_shards,
//     min_backoff and max_backoff, metadata_config.send and
//     protobuf_message where the exporter has their equivalent;
//     global.external_labels go to each exporter, where Prometheus
//     adds them: to what it sends.
//  3. The receiver and the exporters set the options that make the
//     series remote-written the ones Prometheus's own scrape and remote
//     write make (see receiverComment): no otel_scope_name and
//     otel_scope_version labels, no target_info series, metric names as
//     scraped. The script says so in a comment.
//
// What options cannot make alike, and so stays different from Prometheus:
//
//   - relative paths (file_sd_configs files, tls files, credentials
//     files, scrape_config_files) are flowlua's working directory's, not
//     the config file's directory's as in Prometheus;
//   - the prometheus plugin feeds static targets through files, so a
//     relabel rule that maps every __meta_ label (labelmap on
//     __meta_(.+)) gets a `filepath` label Prometheus would not make;
//   - the exporter queues in memory (its wal setting is not set), where
//     Prometheus reads what it sends from its WAL; its workers are a
//     fixed number (max_shards), where Prometheus reshards as it goes;
//   - no exemplars are sent, and the metadata goes with each request
//     rather than once a minute.
//
// What has no equivalent is a Problem at its line, with the reason, and a
// comment where it was left out: rule_files and alerting (flowlua
// evaluates no rules), remote_read, storage, tracing, otlp and runtime
// (flowlua keeps no TSDB; its own settings are its command line's),
// write_relabel_configs, and each remote-write setting the exporter
// lacks. Like package convert, it never imports Prometheus: the YAML is
// read as YAML, and the receiver (a native plugin) checks the scrape
// configs when the script runs.
package promconfig

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"go.yaml.in/yaml/v3"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// Options configure a conversion.
type Options struct {
	// Filename is the config's path, for messages and comments.
	Filename string
	// Catalog finds the components; nil means the default registry's.
	Catalog convert.Catalog
}

// prometheusKeys are the top-level keys of a Prometheus server config.
var prometheusKeys = []string{
	"global", "scrape_configs", "scrape_config_files", "remote_write", "remote_read",
	"rule_files", "alerting", "storage", "tracing", "otlp", "runtime",
}

// collectorKeys are the top-level keys of a collector config.
var collectorKeys = []string{"receivers", "processors", "exporters", "connectors", "extensions", "service"}

// Is reports whether src reads as a Prometheus server config: a mapping
// with at least one of Prometheus's top-level keys and none of the
// collector's. A config that does not parse is not one (package convert
// reports why it does not parse).
func Is(src []byte) bool {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil {
		return false
	}
	root := convert.Resolve(&doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	prom := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		if slices.Contains(collectorKeys, k) {
			return false
		}
		prom = prom || slices.Contains(prometheusKeys, k)
	}
	return prom
}

// receiverComment and exporterComment say, in the script, what the
// options set beside them do: make a scrape → remote-write pipeline
// write the series Prometheus writes (TestPrometheusParity in
// cmd/flowlua compares them with a real Prometheus's). The translator of the pinned exporter
// (pkg/translator/prometheusremotewrite) otherwise adds otel_scope_name
// and otel_scope_version to every series (the receiver's scope), sends a
// target_info series per target with its resource attributes
// (server.address, server.port, url.scheme, ...), and builds names
// from OTel's (adding unit and `_total` suffixes, folding underscores);
// the receiver, with trim_metric_suffixes, would cut `_total` and unit
// suffixes first.
const (
	receiverComment = "trim_metric_suffixes = false (the default, set to say so): metric names stay as scraped."
	exporterComment = `Series as Prometheus writes them: disable_scope_info leaves out the
otel_scope_name and otel_scope_version labels, target_info.enabled =
false the target_info series, and translation_strategy
UnderscoreEscapingWithoutSuffixes keeps metric names as scraped (no
unit or _total suffix added). job and instance come from the target,
as Prometheus's.`
)

// Convert converts a Prometheus server config. The error is only for
// YAML that does not parse (or expands past package convert's bounds);
// what does not convert is in Result.Problems.
func Convert(src []byte, o Options) (*convert.Result, error) {
	if o.Filename == "" {
		o.Filename = "prometheus.yml"
	}
	if o.Catalog == nil {
		o.Catalog = convert.Registry(flowcomp.DefaultRegistry)
	}
	root, err := convert.ParseYAML(src, o.Filename)
	if err != nil {
		return nil, err
	}
	c := &converter{file: o.Filename, base: filepath.Base(o.Filename), cat: o.Catalog, labels: convert.Labels{}}
	c.read(root)
	out, err := c.emit()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(c.problems, func(i, j int) bool { return c.problems[i].Line < c.problems[j].Line })
	return &convert.Result{Script: out, Problems: c.problems, Filename: o.Filename}, nil
}

type converter struct {
	file, base string
	cat        convert.Catalog
	problems   []convert.Problem
	notes      []string // what was left out outside any component, for the script's head
	labels     convert.Labels

	receiver     *convert.Table // the receiver's config
	external     convert.Value  // global.external_labels
	writes       []*remoteWrite
	scrapes      bool // scrape_configs or scrape_config_files
	receiverLine int  // the line of scrape_configs, for a missing receiver
}

// remoteWrite is one remote_write entry, converted.
type remoteWrite struct {
	line  int
	label string
	args  *convert.Table
	http  *convert.Table
	exts  []extension
}

// extension is an authenticator a remote_write entry uses.
type extension struct {
	name, label string
	args        *convert.Table
}

func (c *converter) problem(line int, format string, args ...any) {
	c.problems = append(c.problems, convert.Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// leaveOut records a problem and notes it at the head of the script.
func (c *converter) leaveOut(line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.problem(line, "%s", msg)
	c.notes = append(c.notes, fmt.Sprintf("left out (%s:%d): %s", c.base, line, msg))
}

// noteIn records a problem and notes it in t, at its place.
func (c *converter) noteIn(t *convert.Table, line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.problem(line, "%s", msg)
	t.Note(fmt.Sprintf("left out (%s:%d): %s", c.base, line, msg))
}

// literal converts a value as it is, its problems recorded.
func (c *converter) literal(n *yaml.Node, what string) convert.Value {
	v, probs := convert.YAMLValue(n, c.file, what)
	c.problems = append(c.problems, probs...)
	return v
}

// take hands out a label unique within a component name.
func (c *converter) take(name, want string) string { return c.labels.Take(name, want) }

// noEquivalent says why each top-level key that does not convert does not.
var noEquivalent = map[string]string{
	"rule_files":  "flowlua evaluates no recording or alerting rules: run them where the samples are written (Prometheus, Mimir, Thanos ruler)",
	"alerting":    "flowlua evaluates no alerting rules, so it sends no alerts",
	"remote_read": "flowlua keeps no samples to query, so it reads nothing back",
	"storage":     "flowlua keeps no TSDB: the samples go to remote_write",
	"tracing":     "flowlua's own telemetry is set by its command line",
	"otlp":        "it configures Prometheus's OTLP receiver: flowlua's is otelcol.receiver.otlp",
	"runtime":     "flowlua's Go runtime is set by its environment (GOGC, GOMEMLIMIT)",
}

// read reads the config's sections.
func (c *converter) read(root *yaml.Node) {
	switch {
	case root == nil || root.Kind == 0 || root.Kind == yaml.DocumentNode || convert.IsNull(root):
		c.problem(1, "the config is empty")
		return
	case root.Kind != yaml.MappingNode:
		c.problem(root.Line, "expected a mapping of global, scrape_configs, remote_write, ..., got %s", convert.KindName(root))
		return
	}
	c.receiver = &convert.Table{}
	for _, p := range convert.Pairs(root) {
		k, v := p[0], p[1]
		switch k.Value {
		case "global":
			c.global(v)
		case "scrape_configs", "scrape_config_files":
			if !convert.IsNull(v) {
				c.receiver.Set(k.Value, c.literal(v, k.Value))
				c.scrapes = true
				if c.receiverLine == 0 {
					c.receiverLine = k.Line
				}
			}
		case "remote_write":
			c.remoteWrites(v)
		default:
			if why, ok := noEquivalent[k.Value]; ok {
				c.leaveOut(k.Line, "%s: not converted: %s", k.Value, why)
			} else {
				c.leaveOut(k.Line, "%s: not a section of a Prometheus config", k.Value)
			}
		}
	}
	if !c.scrapes {
		c.problem(root.Line, "scrape_configs: missing: the receiver has nothing to scrape")
		c.receiverLine = root.Line
	}
	if len(c.writes) == 0 {
		c.leaveOut(root.Line, "remote_write: none: flowlua keeps no samples of its own, so what it scrapes goes nowhere")
	}
}

// global reads global: all but external_labels goes to the receiver.
func (c *converter) global(n *yaml.Node) {
	if convert.IsNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		c.leaveOut(n.Line, "global: expected a mapping, got %s", convert.KindName(n))
		return
	}
	g := &convert.Table{}
	for _, p := range convert.Pairs(n) {
		k, v := p[0], p[1]
		if k.Value == "external_labels" {
			if !convert.IsNull(v) {
				c.external = c.literal(v, "global.external_labels")
			}
			continue
		}
		if convert.IsNull(v) {
			continue
		}
		g.Set(k.Value, c.literal(v, "global."+k.Value))
	}
	if g.Len() > 0 {
		c.receiver.Set("global", g)
	}
}

// remoteWrites reads remote_write.
func (c *converter) remoteWrites(n *yaml.Node) {
	if convert.IsNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		c.leaveOut(n.Line, "remote_write: expected a list, got %s", convert.KindName(n))
		return
	}
	exporter := c.name("exporter", exporterType)
	for i, e := range n.Content {
		e = convert.Resolve(e)
		what := fmt.Sprintf("remote_write[%d]", i)
		if e.Kind != yaml.MappingNode {
			c.leaveOut(e.Line, "%s: expected a mapping, got %s", what, convert.KindName(e))
			continue
		}
		c.writes = append(c.writes, c.remoteWrite(e, what, exporter))
	}
}

// name returns the flowlua name of the component the first of the
// collector's type names that one answers to selects; "" when none does.
func (c *converter) name(class string, types []string) string {
	for _, t := range types {
		if comp, ok := c.cat.Lookup(class, t); ok {
			return comp.Name
		}
	}
	return ""
}
