package convert

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Telemetry is what a config's service::telemetry asks of the process's
// own logs and metrics. flowlua's command line sets them (--log.level,
// --log.format; its metrics are at /metrics on --http.listen-addr):
// `flowlua run config.yaml` takes them from here unless its flags say
// otherwise, and a converted script notes them in its head.
type Telemetry struct {
	// LogLevel is logs::level in flowlua's words: debug, info, warn or
	// error; "" when unset.
	LogLevel string
	// LogFormat is logs::encoding: logfmt (console) or json; "" when unset.
	LogFormat string
	// MetricsAddr is where the collector would serve its own metrics for
	// Prometheus to pull (metrics::readers pull prometheus host:port, or
	// metrics::address): flowlua serves /metrics there too.
	MetricsAddr string
}

// telemetry reads service::telemetry. Nothing in it is a problem: what
// flowlua has no counterpart for is noted at the script's head.
func (c *converter) telemetry(n *yaml.Node) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		c.leaveOut(n.Line, "service::telemetry: expected a mapping, got %s", kindName(n))
		return
	}
	note := func(line int, format string, args ...any) {
		c.notes = append(c.notes, fmt.Sprintf("%s:%d: service::telemetry::", c.base, line)+fmt.Sprintf(format, args...))
	}
	for _, p := range pairs(n) {
		switch p.key.Value {
		case "logs":
			c.telemetryLogs(p.val, note)
		case "metrics":
			c.telemetryMetrics(p.val, note)
		case "traces", "resource":
			note(p.key.Line, "%s: flowlua has no counterpart; left out", p.key.Value)
		default:
			// The collector refuses it too: 'service.telemetry' has
			// invalid keys.
			c.problem(p.key.Line, "service::telemetry::%s: not a key of the collector's telemetry (logs, metrics, traces, resource)", p.key.Value)
		}
	}
}

func (c *converter) telemetryLogs(n *yaml.Node, note func(int, string, ...any)) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return
	}
	for _, p := range pairs(n) {
		v := resolve(p.val)
		switch p.key.Value {
		case "level":
			lvl := strings.ToLower(v.Value)
			switch lvl {
			case "debug", "info", "warn", "error":
				c.tel.LogLevel = lvl
				note(p.key.Line, "logs::level: run flowlua with --log.level=%s", lvl)
			default:
				note(p.key.Line, "logs::level: %q is not a level flowlua logs at (debug, info, warn, error)", v.Value)
			}
		case "encoding":
			switch v.Value {
			case "json":
				c.tel.LogFormat = "json"
				note(p.key.Line, "logs::encoding: run flowlua with --log.format=json")
			case "console":
				c.tel.LogFormat = "logfmt"
				note(p.key.Line, "logs::encoding: console is flowlua's --log.format=logfmt, its default")
			default:
				note(p.key.Line, "logs::encoding: %q is neither json nor console", v.Value)
			}
		default:
			note(p.key.Line, "logs::%s: flowlua has no counterpart; left out", p.key.Value)
		}
	}
}

func (c *converter) telemetryMetrics(n *yaml.Node, note func(int, string, ...any)) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return
	}
	for _, p := range pairs(n) {
		switch p.key.Value {
		case "address": // before the collector's readers
			c.tel.MetricsAddr = expandEnv(resolve(p.val).Value)
			note(p.key.Line, "metrics::address: flowlua serves its own metrics at /metrics on %s as well as on --http.listen-addr", c.tel.MetricsAddr)
		case "readers":
			for _, r := range resolve(p.val).Content {
				if addr, ok := pullPrometheus(r); ok {
					c.tel.MetricsAddr = addr
					note(r.Line, "metrics::readers: flowlua serves its own metrics at /metrics on %s as well as on --http.listen-addr", addr)
				} else {
					note(r.Line, "metrics::readers: only a pull reader with a prometheus exporter has a counterpart (/metrics); left out")
				}
			}
		case "level":
			note(p.key.Line, "metrics::level: flowlua's own metrics have no levels; all are at /metrics")
		default:
			note(p.key.Line, "metrics::%s: flowlua has no counterpart; left out", p.key.Value)
		}
	}
}

// pullPrometheus finds host:port in a reader `pull: {exporter:
// {prometheus: {host, port}}}`.
func pullPrometheus(r *yaml.Node) (string, bool) {
	prom := lookup(r, "pull", "exporter", "prometheus")
	if prom == nil {
		return "", false
	}
	host, port := "localhost", ""
	if h := lookup(prom, "host"); h != nil && h.Value != "" {
		host = expandEnv(h.Value)
	}
	if p := lookup(prom, "port"); p != nil {
		port = expandEnv(p.Value)
	}
	if _, err := strconv.Atoi(port); err != nil {
		return "", false
	}
	return net.JoinHostPort(host, port), true
}

// expandEnv expands the ${env:VAR} references of s from the environment,
// as the collector does when it reads its config; s as it is when it
// does not parse.
func expandEnv(s string) string {
	segs, err := expand(s)
	if err != nil {
		return s
	}
	var b strings.Builder
	for _, seg := range segs {
		if seg.env != "" {
			v, ok := os.LookupEnv(seg.env)
			if !ok && seg.def != nil {
				v = *seg.def
			}
			b.WriteString(v)
		} else {
			b.WriteString(seg.lit)
		}
	}
	return b.String()
}

// lookup follows keys through mappings; nil when one is missing.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		n = resolve(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for _, p := range pairs(n) {
			if p.key.Value == k {
				next = p.val
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return resolve(n)
}
