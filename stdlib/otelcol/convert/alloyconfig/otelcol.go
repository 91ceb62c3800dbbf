package alloyconfig

import (
	"errors"
	"fmt"
	"strings"

	"github.com/grafana/alloy/syntax/ast"
	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// upstream is the collector's class and type an otelcol.* name of Alloy
// stands for, when its last part is not the type.
var upstream = map[string][2]string{
	"otelcol.auth.basic":                       {"extension", "basicauth"},
	"otelcol.auth.bearer":                      {"extension", "bearertokenauth"},
	"otelcol.auth.headers":                     {"extension", "headers_setter"},
	"otelcol.auth.oauth2":                      {"extension", "oauth2client"},
	"otelcol.auth.sigv4":                       {"extension", "sigv4auth"},
	"otelcol.storage.file":                     {"extension", "file_storage"},
	"otelcol.extension.jaeger_remote_sampling": {"extension", "jaegerremotesampling"},
}

// Alloy's shapes of the collector's client and server settings.
var (
	grpcServer = map[string]rule{
		"max_recv_msg_size": {to: "max_recv_msg_size_mib", mib: true},
		"read_buffer_size":  {bytes: true},
		"write_buffer_size": {bytes: true},
		"auth":              {to: "auth.authenticator"},
	}
	httpServer = map[string]rule{
		"max_request_body_size": {bytes: true},
		"idle_timeout":          {zeroOK: true, drop: "the collector's OTLP/HTTP server at flowlua's release has no idle_timeout"},
		"write_timeout":         {zeroOK: true, drop: "the collector's OTLP/HTTP server at flowlua's release has no write_timeout"},
		"read_header_timeout":   {zeroOK: true, drop: "the collector's OTLP/HTTP server at flowlua's release has no read_header_timeout"},
		"auth":                  {to: "auth.authenticator"},
	}
	client = map[string]rule{
		"client":                                 {flat: true},
		"client.auth":                            {to: "auth.authenticator"},
		"client.read_buffer_size":                {bytes: true},
		"client.write_buffer_size":               {bytes: true},
		"client.keepalive.ping_wait":             {to: "time"},
		"client.keepalive.ping_response_timeout": {to: "timeout"},
		"client.keepalive.ping_without_stream":   {to: "permit_without_stream"},
	}
	matchRules = func(p string) map[string]rule {
		return map[string]rule{
			p + ".attribute": {to: "attributes", list: true},
			p + ".resource":  {to: "resources", list: true},
			p + ".library":   {to: "libraries", list: true},
		}
	}
)

// specs map the arguments of otelcol.* components whose shapes differ
// from the collector's (Alloy's internal/converter/internal/otelcolconvert
// in reverse).
var specs = map[string]spec{
	"otelcol.receiver.otlp": {rules: merge(
		prefixed("grpc", grpcServer), prefixed("http", httpServer),
		map[string]rule{"grpc": {to: "protocols.grpc"}, "http": {to: "protocols.http"}})},
	"otelcol.exporter.otlp":     {rules: client},
	"otelcol.exporter.otlphttp": {rules: client},
	"otelcol.processor.memory_limiter": {rules: map[string]rule{
		"limit":       {to: "limit_mib", mib: true},
		"spike_limit": {to: "spike_limit_mib", mib: true},
	}},
	"otelcol.processor.attributes": {rules: merge(matchRules("include"), matchRules("exclude"),
		map[string]rule{"action": {to: "actions", list: true}})},
	"otelcol.processor.resource": {rules: map[string]rule{"attribute": {to: "attributes", list: true}}},
	"otelcol.processor.transform": {rules: map[string]rule{
		"trace_statements":  {list: true},
		"metric_statements": {list: true},
		"log_statements":    {list: true},
	}},
	"otelcol.processor.filter": {rules: map[string]rule{
		"trace_conditions":  {list: true},
		"metric_conditions": {list: true},
		"log_conditions":    {list: true},
	}},
	"otelcol.processor.k8sattributes": {rules: map[string]rule{
		"extract.annotation":     {to: "annotations", list: true},
		"extract.label":          {to: "labels", list: true},
		"pod_association":        {list: true},
		"pod_association.source": {to: "sources", list: true},
		"filter.field":           {to: "fields", list: true},
		"filter.label":           {to: "labels", list: true},
		"exclude.pod":            {to: "pods", list: true},
	}},
	"otelcol.processor.tail_sampling": {rules: map[string]rule{
		"policy":                                {to: "policies", list: true},
		"policy.composite.composite_sub_policy": {list: true},
		"policy.and.and_sub_policy":             {list: true},
	}},
	"otelcol.receiver.filelog": {rules: map[string]rule{
		"fingerprint_size":          {bytes: true},
		"max_log_size":              {bytes: true},
		"ordering_criteria.sort_by": {list: true},
	}},
	"otelcol.connector.spanmetrics": {rules: map[string]rule{
		"dimension":        {to: "dimensions", list: true},
		"events.dimension": {to: "dimensions", list: true},
		"exemplars":        {},
	}},
	"otelcol.auth.basic": {rules: map[string]rule{
		"username": {to: "client_auth.username"},
		"password": {to: "client_auth.password"},
	}},
	"otelcol.auth.headers":        {rules: map[string]rule{"header": {to: "headers", list: true}}},
	"otelcol.exporter.prometheus": {},
}

func merge(ms ...map[string]rule) map[string]rule {
	out := map[string]rule{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func prefixed(p string, m map[string]rule) map[string]rule {
	out := map[string]rule{}
	for k, v := range m {
		out[p+"."+k] = v
	}
	return out
}

// alloyDefaults write Alloy's defaults where they differ from the
// collector's: Alloy's OTLP receiver listens on all interfaces.
var alloyDefaults = map[string]func(body *yaml.Node, line int){
	"otelcol.receiver.otlp": func(body *yaml.Node, l int) {
		p := get(body, "protocols")
		if p == nil {
			return
		}
		for proto, addr := range map[string]string{"grpc": "0.0.0.0:4317", "http": "0.0.0.0:4318"} {
			if m := get(p, proto); m != nil && m.Kind == yaml.MappingNode && get(m, "endpoint") == nil {
				m.Content = append([]*yaml.Node{scalar("!!str", "endpoint", m.Line), convert.Str(addr, m.Line)}, m.Content...)
			}
		}
	},
}

// classType returns the collector's class and type of an otelcol.* name.
func classType(name string) (string, string, bool) {
	if ct, ok := upstream[name]; ok {
		return ct[0], ct[1], true
	}
	parts := strings.Split(name, ".")
	if len(parts) != 3 {
		return "", "", false
	}
	switch parts[1] {
	case "receiver", "processor", "exporter", "connector", "extension":
		return parts[1], parts[2], true
	}
	return "", "", false
}

// lookup finds the flowlua component of an otelcol.* name.
func (c *converter) lookup(name string) (convert.Component, bool) {
	class, typ, ok := classType(name)
	if !ok {
		return convert.Component{}, false
	}
	return c.cat.Lookup(class, typ)
}

// otelcol converts an otelcol.* component.
func (c *converter) otelcol(k *comp) []convert.Decl {
	switch k.name {
	case "otelcol.receiver.prometheus", "otelcol.exporter.prometheus", "otelcol.receiver.loki", "otelcol.exporter.loki":
		// They carry data between Alloy's Prometheus or Loki components
		// and otelcol's: those referencing them reference what they send
		// to (exportRefs). Only their wiring converts.
		var out []convert.Decl
		for _, st := range k.block.Body {
			name := ""
			switch st := st.(type) {
			case *ast.AttributeStmt:
				name = st.Name.Name
			case *ast.BlockStmt:
				name = strings.Join(st.Name, ".")
			}
			if name != "forward_to" && name != "output" {
				out = append(out, c.leftOut(line(st), "%s: %s: not converted: flowlua carries OTLP to the exporter itself; set what the exporter takes on it", k.what(), name))
			}
		}
		return append(out, c.consumed(k)...)
	}
	fc, ok := c.lookup(k.name)
	if !ok {
		class, typ, _ := classType(k.name)
		return []convert.Decl{c.leftOut(k.line, "%s: no flowlua component for the collector's %s %s: see flowlua components", k.what(), class, typ)}
	}
	body := c.generic(k.block.Body, k.what(), specs[k.name])
	if fix := alloyDefaults[k.name]; fix != nil {
		fix(body, k.line)
	}
	// The label was reserved (reserve): references name it as it is.
	return []convert.Decl{{Name: fc.Name, Label: k.label, Comp: fc, What: k.what(), Body: body}}
}

// errLeftOut is a reference to a component that does not convert: its
// own problem says why; a list leaves the reference out.
var errLeftOut = errors.New("a reference to a component that does not convert")

// exportRefs returns the Lua references an export of a component stands
// for: one, or several (a remote_write's endpoints), or none.
func (c *converter) exportRefs(k *comp, export string) ([]string, error) {
	if c.depth++; c.depth > maxDepth {
		c.depth--
		return nil, errCycle
	}
	defer func() { c.depth-- }()
	if m := c.moduleOf(k.name); m != nil {
		if m.exports != nil && !m.exports[export] {
			return nil, fmt.Errorf("%s has no export %q", k.id(), export)
		}
		return []string{m.name + "." + k.label + "." + export}, nil
	}
	switch k.name {
	case "otelcol.exporter.prometheus", "otelcol.exporter.loki":
		if export != "input" {
			break
		}
		return c.forwardTo(k)
	case "otelcol.receiver.prometheus", "otelcol.receiver.loki":
		if export != "receiver" {
			break
		}
		sig := "metrics"
		if k.name == "otelcol.receiver.loki" {
			sig = "logs"
		}
		return c.outputOf(k, sig)
	case "local.file":
		if export == "content" {
			return []string{"file.read." + k.label + ".content"}, nil
		}
	case "prometheus.remote_write", "loki.write":
		if export == "receiver" {
			return c.endpointRefs(k)
		}
	}
	if strings.HasPrefix(k.name, "otelcol.") {
		fc, ok := c.lookup(k.name)
		if !ok {
			return nil, errLeftOut
		}
		switch export {
		case "handler":
			export = "id"
		case "input":
		default:
			return nil, fmt.Errorf("%s.%s: no such export in flowlua (input, handler)", k.id(), export)
		}
		return []string{fc.Name + "." + k.label + "." + export}, nil
	}
	return nil, fmt.Errorf("%s.%s: a reference to it does not convert", k.id(), export)
}

// forwardTo returns the references forward_to of k lists.
func (c *converter) forwardTo(k *comp) ([]string, error) {
	a, _ := attrs(k.block.Body)
	fw := a["forward_to"]
	if fw == nil {
		return nil, nil
	}
	v, err := c.value(fw.Value)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range v.Content {
		out = append(out, e.Value)
	}
	return out, nil
}

// outputOf returns the references of the output block of k for a signal.
func (c *converter) outputOf(k *comp, signal string) ([]string, error) {
	_, blocks := attrs(k.block.Body)
	for _, b := range blocks {
		if strings.Join(b.Name, ".") != "output" {
			continue
		}
		a, _ := attrs(b.Body)
		if s := a[signal]; s != nil {
			v, err := c.value(s.Value)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, e := range v.Content {
				out = append(out, e.Value)
			}
			return out, nil
		}
	}
	return nil, nil
}
