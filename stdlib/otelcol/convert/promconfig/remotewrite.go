package promconfig

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// The collector's type names of the components a script uses, the
// current one first (prometheusremotewrite is a deprecated alias of
// prometheus_remote_write); the catalog gives the flowlua names.
var (
	exporterType    = []string{"prometheus_remote_write", "prometheusremotewrite"}
	receiverType    = []string{"prometheus"}
	basicAuthType   = []string{"basicauth", "basic_auth"}
	bearerTokenType = []string{"bearertokenauth", "bearer_token_auth"}
)

// remoteWriteLacks says why each remote_write key the exporter has no
// equivalent of does not convert.
var remoteWriteLacks = map[string]string{
	"write_relabel_configs":  "the exporter relabels nothing: relabel in the scrape config's metric_relabel_configs (for every remote_write), or in an otelcol.processor.transform or filter before this exporter",
	"send_exemplars":         "the receiver and exporter carry no exemplars to remote write",
	"oauth2":                 "there is no OAuth2 client authenticator in flowlua (see flowlua components)",
	"sigv4":                  "there is no SigV4 authenticator in flowlua (see flowlua components)",
	"azuread":                "there is no Azure AD authenticator in flowlua (see flowlua components)",
	"google_iam":             "there is no Google IAM authenticator in flowlua (see flowlua components)",
	"no_proxy":               "the exporter's HTTP client has proxy_url only",
	"proxy_from_environment": "the exporter's HTTP client has proxy_url only",
	"proxy_connect_header":   "the exporter's HTTP client has proxy_url only",
	"http_headers":           "the exporter takes headers as values (headers), not from files or secrets",
	"round_robin_dns":        "the exporter's HTTP client has no such setting",
	"enable_http2":           "the exporter's HTTP client negotiates HTTP/2 itself (http.force_attempt_http2 forces it)",
}

// queueKeys maps queue_config's keys to the exporter's, by path.
var queueKeys = map[string][2]string{
	"max_shards":  {"remote_write_queue", "num_consumers"},
	"min_backoff": {"retry_on_failure", "initial_interval"},
	"max_backoff": {"retry_on_failure", "max_interval"},
}

var queueLacks = map[string]string{
	"capacity":             "the exporter's queue counts requests (remote_write_queue.queue_size), not samples",
	"min_shards":           "the exporter's workers are a fixed number (remote_write_queue.num_consumers, from max_shards)",
	"max_samples_per_send": "the exporter cuts requests by size (max_batch_size_bytes), not by samples",
	"batch_send_deadline":  "the exporter sends each scrape's samples as they come",
	"retry_on_http_429":    "the exporter retries a 429 only behind the feature gate exporter.prometheusremotewritexporter.RetryOn429",
	"sample_age_limit":     "the exporter has no age limit on what it retries",
}

// tlsKeys maps tls_config's keys to confighttp's tls keys.
var tlsKeys = map[string]string{
	"ca_file":              "ca_file",
	"cert_file":            "cert_file",
	"key_file":             "key_file",
	"ca":                   "ca_pem",
	"cert":                 "cert_pem",
	"key":                  "key_pem",
	"server_name":          "server_name_override",
	"insecure_skip_verify": "insecure_skip_verify",
	"min_version":          "min_version",
	"max_version":          "max_version",
}

// tlsVersions are Prometheus's TLS versions in the collector's words.
var tlsVersions = map[string]string{"TLS10": "1.0", "TLS11": "1.1", "TLS12": "1.2", "TLS13": "1.3"}

// prometheusTimeout is Prometheus's default remote_timeout.
const prometheusTimeout = "30s"

// remoteWrite converts one remote_write entry.
func (c *converter) remoteWrite(n *yaml.Node, what, exporter string) *remoteWrite {
	ps := convert.Pairs(n)
	name := ""
	for _, p := range ps {
		if p[0].Value == "name" && p[1].Kind == yaml.ScalarNode {
			name = p[1].Value
		}
	}
	rw := &remoteWrite{line: n.Line, args: &convert.Table{}, http: &convert.Table{}}
	rw.label = c.take(exporter, convert.Label(name))
	metadata := true // Prometheus sends metadata unless metadata_config.send is false
	timeout := false
	for _, p := range ps {
		k, v := p[0], p[1]
		at := what + "." + k.Value
		if convert.IsNull(v) {
			continue
		}
		switch k.Value {
		case "name":
		case "url":
			rw.http.Set("endpoint", c.literal(v, at))
		case "headers", "proxy_url":
			rw.http.Set(k.Value, c.literal(v, at))
		case "remote_timeout":
			rw.args.Set("timeout", c.literal(v, at))
			timeout = true
		case "follow_redirects":
			if v.Value != "true" {
				c.noteIn(rw.args, k.Line, "%s: not converted: the exporter's HTTP client always follows redirects", at)
			}
		case "tls_config":
			rw.http.Set("tls", c.tls(v, at, rw.args))
		case "basic_auth":
			c.basicAuth(rw, k, v, at)
		case "authorization", "bearer_token", "bearer_token_file":
			c.bearer(rw, k, v, at)
		case "queue_config":
			c.queue(rw, v, at)
		case "metadata_config":
			for _, q := range convert.Pairs(v) {
				if q[0].Value == "send" {
					metadata = q[1].Value == "true"
					continue
				}
				c.noteIn(rw.args, q[0].Line, "%s.%s: not converted: the exporter sends the metadata with the samples, in the same requests", at, q[0].Value)
			}
		case "protobuf_message":
			if v.Value == "prometheus.WriteRequest" {
				rw.args.Set("protobuf_message", convert.String(v.Value))
				continue
			}
			c.noteIn(rw.args, k.Line, "%s: %s: not converted: the exporter sends Remote-Write 2.0 only behind the feature gate exporter.prometheusremotewritexporter.enableSendingRW2", at, v.Value)
		case "write_relabel_configs":
			if len(v.Content) == 0 {
				continue
			}
			c.noteIn(rw.args, k.Line, "%s: not converted: %s", at, remoteWriteLacks[k.Value])
		case "send_native_histograms":
			// The exporter sends the native histograms the receiver
			// makes, which the scrape configs turn on
			// (scrape_native_histograms), as Prometheus needs too.
		case "send_exemplars":
			if v.Value != "true" {
				continue
			}
			c.noteIn(rw.args, k.Line, "%s: not converted: %s", at, remoteWriteLacks[k.Value])
		default:
			why, ok := remoteWriteLacks[k.Value]
			if !ok {
				why = "not a key of a remote_write entry, or one the exporter has no equivalent of"
			}
			c.noteIn(rw.args, k.Line, "%s: not converted: %s", at, why)
		}
	}
	if !timeout {
		// Prometheus's default, where the exporter's is 5s.
		rw.args.Set("timeout", convert.String(prometheusTimeout))
	}
	if !hasURL(ps) {
		c.noteIn(rw.args, n.Line, "%s: url: missing", what)
	}
	rw.args.Set("send_metadata", convert.Expr(fmt.Sprint(metadata)))
	return rw
}

func hasURL(ps [][2]*yaml.Node) bool {
	for _, p := range ps {
		if p[0].Value == "url" && !convert.IsNull(p[1]) {
			return true
		}
	}
	return false
}

// tls converts tls_config into the exporter's http.tls.
func (c *converter) tls(n *yaml.Node, what string, notes *convert.Table) *convert.Table {
	t := &convert.Table{}
	for _, p := range convert.Pairs(n) {
		k, v := p[0], p[1]
		key, ok := tlsKeys[k.Value]
		if !ok {
			c.noteIn(notes, k.Line, "%s.%s: not converted: the exporter's tls has no equivalent", what, k.Value)
			continue
		}
		if key == "min_version" || key == "max_version" {
			ver, ok := tlsVersions[v.Value]
			if !ok {
				c.noteIn(notes, v.Line, "%s.%s: %s: not a TLS version (TLS10, TLS11, TLS12, TLS13)", what, k.Value, convert.KindName(v))
				continue
			}
			t.Set(key, convert.String(ver))
			continue
		}
		t.Set(key, c.literal(v, what+"."+k.Value))
	}
	return t
}

// basicAuth converts basic_auth into an otelcol.extension.basicauth.
func (c *converter) basicAuth(rw *remoteWrite, k, v *yaml.Node, what string) {
	ext := c.name("extension", basicAuthType)
	if ext == "" {
		c.noteIn(rw.args, k.Line, "%s: not converted: no flowlua component otelcol.extension.%s: see flowlua components", what, basicAuthType[0])
		return
	}
	auth := &convert.Table{}
	for _, p := range convert.Pairs(v) {
		switch p[0].Value {
		case "username", "password":
			auth.Set(p[0].Value, c.literal(p[1], what+"."+p[0].Value))
		default:
			c.noteIn(rw.args, p[0].Line, "%s.%s: not converted: the basicauth extension takes the username and password as values (a file.read component's content can be one)", what, p[0].Value)
		}
	}
	args := &convert.Table{}
	args.Set("client_auth", auth)
	c.authenticator(rw, k, what, ext, args)
}

// bearer converts authorization (and Prometheus 2's bearer_token and
// bearer_token_file) into an otelcol.extension.bearertokenauth, which
// sends `Authorization: <scheme> <token>` as Prometheus does.
func (c *converter) bearer(rw *remoteWrite, k, v *yaml.Node, what string) {
	ext := c.name("extension", bearerTokenType)
	if ext == "" {
		c.noteIn(rw.args, k.Line, "%s: not converted: no flowlua component otelcol.extension.%s: see flowlua components", what, bearerTokenType[0])
		return
	}
	args := &convert.Table{}
	switch k.Value {
	case "bearer_token":
		args.Set("token", c.literal(v, what))
	case "bearer_token_file":
		args.Set("filename", c.literal(v, what))
	default:
		for _, p := range convert.Pairs(v) {
			switch p[0].Value {
			case "type":
				args.Set("scheme", c.literal(p[1], what+".type"))
			case "credentials":
				args.Set("token", c.literal(p[1], what+".credentials"))
			case "credentials_file":
				args.Set("filename", c.literal(p[1], what+".credentials_file"))
			default:
				c.noteIn(rw.args, p[0].Line, "%s.%s: not a key of authorization", what, p[0].Value)
			}
		}
	}
	c.authenticator(rw, k, what, ext, args)
}

// authenticator makes the extension the exporter signs its requests with.
func (c *converter) authenticator(rw *remoteWrite, k *yaml.Node, what, ext string, args *convert.Table) {
	if len(rw.exts) > 0 {
		c.noteIn(rw.args, k.Line, "%s: not converted: the entry has an authenticator already (Prometheus takes one too)", what)
		return
	}
	e := extension{name: ext, label: c.take(ext, rw.label), args: args}
	rw.exts = append(rw.exts, e)
	auth := &convert.Table{}
	auth.Set("authenticator", convert.Expr(e.name+"."+e.label+".id"))
	rw.http.Set("auth", auth)
}

// queue converts queue_config.
func (c *converter) queue(rw *remoteWrite, n *yaml.Node, what string) {
	tables := map[string]*convert.Table{}
	var order []string
	for _, p := range convert.Pairs(n) {
		k, v := p[0], p[1]
		to, ok := queueKeys[k.Value]
		if !ok {
			why, known := queueLacks[k.Value]
			if !known {
				why = "not a key of queue_config"
			}
			c.noteIn(rw.args, k.Line, "%s.%s: not converted: %s", what, k.Value, why)
			continue
		}
		t := tables[to[0]]
		if t == nil {
			t = &convert.Table{}
			tables[to[0]] = t
			order = append(order, to[0])
		}
		t.Set(to[1], c.literal(v, what+"."+k.Value))
	}
	for _, key := range order {
		rw.args.Set(key, tables[key])
	}
}
