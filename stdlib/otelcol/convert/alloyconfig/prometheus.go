package alloyconfig

import (
	"fmt"
	"strings"

	"github.com/grafana/alloy/syntax/ast"
	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// Alloy's shapes of Prometheus's HTTP client settings.
var promClient = map[string]rule{
	"tls_config.ca_pem":   {to: "ca"},
	"tls_config.cert_pem": {to: "cert"},
	"tls_config.key_pem":  {to: "key"},
	"bearer_token":        {to: "authorization.credentials"},
	"bearer_token_file":   {to: "authorization.credentials_file"},
}

var scrapeSpec = spec{rules: merge(promClient, map[string]rule{
	"targets":                     {skip: true},
	"forward_to":                  {skip: true},
	"clustering":                  {drop: "flowlua spreads targets over a cluster with cluster.shard"},
	"extra_metrics":               {drop: "no equivalent in the prometheus receiver"},
	"enable_protobuf_negotiation": {drop: "use scrape_protocols"},
	"scrape_classic_histograms":   {to: "always_scrape_classic_histograms"},
})}

// sdConfigs are the discovery.* components whose arguments are the keys
// of the Prometheus SD config of that name (<name>_sd_configs).
var sdConfigs = map[string]bool{
	"azure": true, "consul": true, "consulagent": false, "digitalocean": true, "dns": true, "docker": true,
	"dockerswarm": true, "ec2": true, "eureka": true, "file": true, "gce": true, "hetzner": true,
	"http": true, "ionos": true, "kubernetes": true, "kuma": true, "lightsail": true, "linode": true,
	"marathon": true, "nerve": true, "nomad": true, "openstack": true, "ovhcloud": true, "puppetdb": true,
	"scaleway": true, "serverset": true, "triton": true, "uyuni": true, "vultr": true,
}

// scrape converts prometheus.scrape to the prometheus receiver with one
// scrape config.
func (c *converter) scrape(k *comp) []convert.Decl {
	at, _ := attrs(k.block.Body)
	sc := c.generic(k.block.Body, k.what(), scrapeSpec)
	if get(sc, "job_name") == nil {
		// Alloy names the job after the component.
		sc.Content = append([]*yaml.Node{scalar("!!str", "job_name", k.line), convert.Str(k.id(), k.line)}, sc.Content...)
	}
	if t := at["targets"]; t == nil {
		c.problem(k.line, "%s: targets: missing", k.what())
	} else if err := c.targets(sc, t.Value); err != nil {
		c.problem(line(t), "%s: targets: not converted: %v", k.what(), err)
	}
	var dest []string
	if fw := at["forward_to"]; fw != nil {
		var metricRelabels []*yaml.Node
		var err error
		dest, metricRelabels, err = c.metricsDest(fw.Value)
		if err != nil {
			c.problem(line(fw), "%s: forward_to: not converted: %v", k.what(), err)
		}
		if len(metricRelabels) > 0 {
			s := sequence(line(fw))
			s.Content = metricRelabels
			put(sc, "metric_relabel_configs", s)
		}
	}
	list := sequence(k.line)
	list.Content = []*yaml.Node{sc}
	cfg := mapping(k.line)
	put(cfg, "scrape_configs", list)
	body := mapping(k.line)
	put(body, "config", cfg)
	put(body, "output", outputNode("metrics", dest, k.line))
	fc, ok := c.cat.Lookup("receiver", "prometheus")
	if !ok {
		c.problem(k.line, "%s: the prometheus receiver is not here: it is the native plugin prometheus (make plugins puts it in bin/plugins/; or plugins/ beside the config)", k.what())
		fc = convert.Component{Name: "otelcol.receiver.prometheus"}
	}
	return []convert.Decl{{Name: fc.Name, Label: c.label(fc.Name, k.label), Comp: fc, What: k.what(), Body: body}}
}

func outputNode(signal string, refs []string, l int) *yaml.Node {
	s := sequence(l)
	for _, r := range refs {
		s.Content = append(s.Content, convert.ExprNode(r, l))
	}
	out := mapping(l)
	put(out, signal, s)
	return out
}

// targets fills a scrape config's service discovery and relabel_configs
// from the expression of prometheus.scrape's targets.
func (c *converter) targets(sc *yaml.Node, e ast.Expr) error {
	if c.depth++; c.depth > maxDepth {
		c.depth--
		return errCycle
	}
	defer func() { c.depth-- }()
	if call, ok := e.(*ast.CallExpr); ok && strings.Join(path(call.Value), ".") == "array.concat" {
		for _, a := range call.Args {
			if err := c.targets(sc, a); err != nil {
				return err
			}
		}
		return nil
	}
	if arr, ok := e.(*ast.ArrayExpr); ok {
		static := sequence(line(e))
		for _, el := range arr.Elements {
			obj, ok := el.(*ast.ObjectExpr)
			if !ok {
				return fmt.Errorf("a target is an object of labels ({__address__ = \"host:port\"})")
			}
			one := mapping(line(el))
			labels := mapping(line(el))
			for _, f := range obj.Fields {
				v, err := c.value(f.Value)
				if err != nil {
					return err
				}
				if f.Name.Name == "__address__" {
					s := sequence(line(f.Value))
					s.Content = []*yaml.Node{v}
					put(one, "targets", s)
					continue
				}
				put(labels, f.Name.Name, v)
			}
			if get(one, "targets") == nil {
				return fmt.Errorf("a target without __address__")
			}
			if len(labels.Content) > 0 {
				put(one, "labels", labels)
			}
			static.Content = append(static.Content, one)
		}
		return c.appendList(sc, "static_configs", static.Content...)
	}
	parts := path(e)
	k, export := c.resolve(parts)
	if k == nil {
		return fmt.Errorf("targets from a computed expression (only a list of objects, or a discovery component's targets, does)")
	}
	at, blocks := attrs(k.block.Body)
	switch {
	case k.name == "discovery.relabel" && export == "output":
		// Its rules apply to the targets it takes, after any rules those
		// came through.
		t := at["targets"]
		if t == nil {
			return fmt.Errorf("%s: no targets", k.id())
		}
		if err := c.targets(sc, t.Value); err != nil {
			return err
		}
		return c.appendList(sc, "relabel_configs", c.rules(k, blocks)...)
	case k.name == "discovery.kubernetes" && export == "targets":
		sd := c.generic(k.block.Body, k.what(), spec{rules: merge(promClient, map[string]rule{"selectors": {list: true}})})
		return c.appendList(sc, "kubernetes_sd_configs", sd)
	case strings.HasPrefix(k.name, "discovery.") && sdConfigs[strings.TrimPrefix(k.name, "discovery.")] && export == "targets":
		// Alloy's discovery arguments are Prometheus's SD config keys.
		sd := c.generic(k.block.Body, k.what(), spec{rules: promClient})
		return c.appendList(sc, strings.TrimPrefix(k.name, "discovery.")+"_sd_configs", sd)
	}
	return fmt.Errorf("targets from %s.%s: no equivalent in a scrape config (static targets, discovery.kubernetes, discovery.file and discovery.relabel convert)", k.id(), export)
}

func (c *converter) appendList(m *yaml.Node, key string, vs ...*yaml.Node) error {
	if len(vs) == 0 {
		return nil
	}
	have := get(m, key)
	if have == nil {
		have = sequence(vs[0].Line)
		put(m, key, have)
	}
	have.Content = append(have.Content, vs...)
	return nil
}

// rules converts the rule blocks of a relabelling to Prometheus's
// relabel configs (the same keys).
func (c *converter) rules(k *comp, blocks []*ast.BlockStmt) []*yaml.Node {
	var out []*yaml.Node
	for _, b := range blocks {
		if strings.Join(b.Name, ".") != "rule" {
			continue
		}
		out = append(out, c.generic(b.Body, k.what()+" rule", spec{}))
	}
	return out
}

// metricsDest returns what a forward_to of Prometheus samples stands for:
// the flowlua inputs, and the metric relabel configs of the
// prometheus.relabel components on the way.
func (c *converter) metricsDest(e ast.Expr) ([]string, []*yaml.Node, error) {
	return c.destThrough(e, "prometheus.relabel", "a scrape config's metric_relabel_configs hold for all it sends to", c.metricsDest, func(k *comp) []*yaml.Node {
		_, blocks := attrs(k.block.Body)
		return c.rules(k, blocks)
	})
}

// endpointRefs returns the inputs of the exporters a prometheus.remote_write
// or loki.write converts to: one per endpoint block.
func (c *converter) endpointRefs(k *comp) ([]string, error) {
	if ref, ok := c.externalLabels(k); ok {
		return []string{ref}, nil
	}
	labels := c.endpointLabels(k)
	typ := "prometheusremotewrite"
	if k.name == "loki.write" {
		typ = "otlphttp"
	}
	fc, ok := c.cat.Lookup("exporter", typ)
	if !ok {
		return nil, fmt.Errorf("no flowlua component for the collector's exporter %s", typ)
	}
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = fc.Name + "." + l + ".input"
	}
	return out, nil
}

// endpointLabels gives the exporters of k's endpoint blocks their labels,
// once: k's label, then k's label with _2, _3, ...
func (c *converter) endpointLabels(k *comp) []string {
	if l, ok := c.endpoints[k]; ok {
		return l
	}
	typ := "prometheusremotewrite"
	if k.name == "loki.write" {
		typ = "otlphttp"
	}
	name := typ
	if fc, ok := c.cat.Lookup("exporter", typ); ok {
		name = fc.Name
	}
	var out []string
	_, blocks := attrs(k.block.Body)
	for _, b := range blocks {
		if strings.Join(b.Name, ".") == "endpoint" {
			out = append(out, c.label(name, k.label))
		}
	}
	c.endpoints[k] = out
	return out
}

var remoteWriteEndpoint = spec{rules: map[string]rule{
	// The exporter's HTTP client takes the environment's proxy unless
	// proxy_url is set.
	"proxy_from_environment":               {skip: true},
	"url":                                  {to: "endpoint"},
	"remote_timeout":                       {to: "timeout"},
	"name":                                 {skip: true},
	"tls_config":                           {to: "tls"},
	"tls_config.server_name":               {to: "server_name_override"},
	"basic_auth":                           {skip: true},
	"bearer_token":                         {skip: true},
	"queue_config.capacity":                {to: "queue_size"},
	"queue_config.max_shards":              {to: "num_consumers"},
	"queue_config":                         {to: "remote_write_queue"},
	"queue_config.min_shards":              {drop: "the exporter's queue has a fixed number of consumers (num_consumers: max_shards)"},
	"queue_config.max_samples_per_send":    {drop: "the exporter batches by max_batch_size_bytes"},
	"queue_config.batch_send_deadline":     {drop: "no equivalent in the exporter"},
	"queue_config.min_backoff":             {drop: "the exporter retries by retry_on_failure"},
	"queue_config.max_backoff":             {drop: "the exporter retries by retry_on_failure"},
	"queue_config.retry_on_http_429":       {drop: "no equivalent in the exporter"},
	"queue_config.sample_age_limit":        {drop: "no equivalent in the exporter"},
	"metadata_config":                      {flat: true},
	"metadata_config.send":                 {to: "send_metadata"},
	"metadata_config.send_interval":        {drop: "the exporter sends metadata with the samples"},
	"metadata_config.max_samples_per_send": {drop: "the exporter sends metadata with the samples"},
	"write_relabel_config":                 {drop: "no relabelling in the exporter: relabel at the scrape (prometheus.relabel)"},
	"send_exemplars":                       {drop: "the exporter sends the exemplars it gets"},
	"send_native_histograms":               {drop: "the exporter sends the native histograms it gets"},
	"sigv4":                                {drop: "no sigv4 authenticator in flowlua"},
	"oauth2":                               {drop: "no oauth2 client authenticator in flowlua"},
	"azuread":                              {drop: "no Azure AD authenticator in flowlua"},
	"authorization":                        {drop: "no authorization block in the exporter"},
}}

// remoteWrite converts prometheus.remote_write to one prometheusremotewrite
// exporter per endpoint.
func (c *converter) remoteWrite(k *comp) []convert.Decl {
	return c.writers(k, "prometheusremotewrite", remoteWriteEndpoint, func(body *yaml.Node, at map[string]*ast.AttributeStmt) {
		if el := at["external_labels"]; el != nil {
			if v, err := c.value(el.Value); err == nil && v != nil {
				put(body, "external_labels", v)
			} else if err != nil {
				c.problem(line(el), "%s: external_labels: not converted: %v", k.what(), err)
			}
		}
	}, map[string]string{"external_labels": "", "wal": "flowlua's exporter queues in memory (sending_queue), not in a write-ahead log"})
}

// writers converts the endpoint blocks of k to exporters of typ, with an
// authenticator extension for each basic_auth or bearer_token.
func (c *converter) writers(k *comp, typ string, sp spec, top func(body *yaml.Node, at map[string]*ast.AttributeStmt), topKeys map[string]string) []convert.Decl {
	at, blocks := attrs(k.block.Body)
	var out []convert.Decl
	for _, st := range k.block.Body {
		name := ""
		switch st := st.(type) {
		case *ast.AttributeStmt:
			name = st.Name.Name
		case *ast.BlockStmt:
			name = strings.Join(st.Name, ".")
		}
		if name == "endpoint" {
			continue
		}
		reason, ok := topKeys[name]
		switch {
		case !ok:
			out = append(out, c.leftOut(line(st), "%s: %s: not converted: no equivalent in the collector's %s exporter", k.what(), name, typ))
		case reason != "":
			out = append(out, c.leftOut(line(st), "%s: %s: not converted: %s", k.what(), name, reason))
		}
	}
	fc, ok := c.cat.Lookup("exporter", typ)
	if !ok {
		return append(out, c.leftOut(k.line, "%s: no flowlua component for the collector's exporter %s", k.what(), typ))
	}
	labels := c.endpointLabels(k)
	i := 0
	for _, b := range blocks {
		if strings.Join(b.Name, ".") != "endpoint" {
			continue
		}
		label := labels[i]
		i++
		body := c.generic(b.Body, k.what()+" endpoint", sp)
		if typ == "otlphttp" {
			c.lokiEndpoint(k, b, body)
		}
		top(body, at)
		ea, eb := attrs(b.Body)
		for _, sub := range eb {
			if strings.Join(sub.Name, ".") != "basic_auth" {
				continue
			}
			ext, ok := c.cat.Lookup("extension", "basicauth")
			if !ok {
				out = append(out, c.leftOut(posLine(sub.NamePos), "%s: basic_auth: no basicauth extension in flowlua", k.what()))
				continue
			}
			client := c.generic(sub.Body, k.what()+" basic_auth", spec{rules: map[string]rule{"password_file": {drop: "read the file with local.file (file.read) and reference its content"}}})
			eb := mapping(posLine(sub.NamePos))
			put(eb, "client_auth", client)
			el := c.label(ext.Name, label)
			out = append(out, convert.Decl{Name: ext.Name, Label: el, Comp: ext, What: k.what() + " basic_auth", Body: eb})
			put(body, "auth", authNode(ext.Name+"."+el+".id", eb.Line))
		}
		if bt := ea["bearer_token"]; bt != nil {
			ext, ok := c.cat.Lookup("extension", "bearertokenauth")
			v, err := c.value(bt.Value)
			if !ok || err != nil {
				c.problem(line(bt), "%s: bearer_token: not converted", k.what())
			} else {
				tb := mapping(line(bt))
				put(tb, "token", v)
				el := c.label(ext.Name, label)
				out = append(out, convert.Decl{Name: ext.Name, Label: el, Comp: ext, What: k.what() + " bearer_token", Body: tb})
				put(body, "auth", authNode(ext.Name+"."+el+".id", line(bt)))
			}
		}
		out = append(out, convert.Decl{Name: fc.Name, Label: label, Comp: fc, What: k.what(), Body: body})
	}
	if i == 0 {
		out = append(out, c.leftOut(k.line, "%s: no endpoint block", k.what()))
	}
	return out
}

func authNode(ref string, l int) *yaml.Node {
	m := mapping(l)
	put(m, "authenticator", convert.ExprNode(ref, l))
	return m
}
