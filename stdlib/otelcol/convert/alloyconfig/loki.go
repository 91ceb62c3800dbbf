package alloyconfig

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/grafana/alloy/syntax/ast"
	"github.com/grafana/alloy/syntax/token"
	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// sourceFile converts loki.source.file to the filelog receiver: one per
// set of target labels (the labels become resource attributes), with the
// stages of the loki.process components on the way as its operators.
func (c *converter) sourceFile(k *comp) []convert.Decl {
	at, _ := attrs(k.block.Body)
	fc, ok := c.cat.Lookup("receiver", "filelog")
	if !ok {
		return []convert.Decl{c.leftOut(k.line, "%s: no flowlua component for the collector's receiver filelog", k.what())}
	}
	var out []convert.Decl
	for _, st := range k.block.Body {
		name := ""
		switch st := st.(type) {
		case *ast.AttributeStmt:
			name = st.Name.Name
		case *ast.BlockStmt:
			name = strings.Join(st.Name, ".")
		}
		switch name {
		case "targets", "forward_to", "tail_from_end", "encoding":
		case "file_match":
			// The filelog receiver finds the files of its include globs
			// itself (poll_interval).
		default:
			out = append(out, c.leftOut(line(st), "%s: %s: not converted: no equivalent in the filelog receiver", k.what(), name))
		}
	}
	t := at["targets"]
	if t == nil {
		return append(out, c.leftOut(k.line, "%s: targets: missing", k.what()))
	}
	groups, err := c.fileTargets(t.Value)
	if err != nil {
		return append(out, c.leftOut(line(t), "%s: targets: not converted: %v", k.what(), err))
	}
	var dest []string
	var ops []*yaml.Node
	if fw := at["forward_to"]; fw != nil {
		dest, ops, err = c.logsDest(fw.Value)
		if err != nil {
			c.problem(line(fw), "%s: forward_to: not converted: %v", k.what(), err)
		}
	}
	// Alloy keeps the read positions in its data directory: the
	// receiver keeps its offsets in a file_storage (under
	// --storage.path), which a restart reads on from.
	var storage string
	if ext, ok := c.cat.Lookup("extension", "file_storage"); ok {
		el := c.label(ext.Name, k.label)
		storage = ext.Name + "." + el + ".id"
		out = append(out, convert.Decl{Name: ext.Name, Label: el, Comp: ext, What: k.what() + " positions", Body: mapping(k.line),
			Note: "The read positions of " + k.what() + ", which Alloy keeps in its data directory."})
	}
	for _, g := range groups {
		body := mapping(k.line)
		inc := sequence(k.line)
		inc.Content = g.paths
		put(body, "include", inc)
		start := "beginning"
		if tf := at["tail_from_end"]; tf != nil {
			if l, ok := tf.Value.(*ast.LiteralExpr); ok && l.Value == "true" {
				start = "end"
			}
		}
		put(body, "start_at", convert.Str(start, k.line))
		if storage != "" {
			put(body, "storage", convert.ExprNode(storage, k.line))
		}
		if e := at["encoding"]; e != nil {
			if v, err := c.value(e.Value); err == nil && v != nil {
				put(body, "encoding", v)
			}
		}
		all := sequence(k.line)
		for _, name := range sortedKeys(g.labels) {
			op := mapping(k.line)
			put(op, "type", convert.Str("add", k.line))
			put(op, "field", convert.Str("resource."+name, k.line))
			put(op, "value", g.labels[name])
			all.Content = append(all.Content, op)
		}
		all.Content = append(all.Content, ops...)
		if len(all.Content) > 0 {
			put(body, "operators", all)
		}
		put(body, "output", outputNode("logs", dest, k.line))
		out = append(out, convert.Decl{Name: fc.Name, Label: c.label(fc.Name, k.label), Comp: fc, What: k.what(), Body: body})
	}
	return out
}

// fileGroup is the paths of targets with the same labels.
type fileGroup struct {
	key    string
	paths  []*yaml.Node
	labels map[string]*yaml.Node
}

// fileTargets groups the targets of loki.source.file by their labels.
func (c *converter) fileTargets(e ast.Expr) ([]*fileGroup, error) {
	arr, ok := e.(*ast.ArrayExpr)
	if !ok {
		k, export := c.resolve(path(e))
		if k == nil || k.name != "local.file_match" || export != "targets" {
			return nil, fmt.Errorf("targets are a list of objects with __path__, or local.file_match's targets")
		}
		at, _ := attrs(k.block.Body)
		pt := at["path_targets"]
		if pt == nil {
			return nil, fmt.Errorf("%s: no path_targets", k.id())
		}
		if arr, ok = pt.Value.(*ast.ArrayExpr); !ok {
			return nil, fmt.Errorf("%s: path_targets is a list of objects with __path__", k.id())
		}
	}
	var groups []*fileGroup
	byKey := map[string]*fileGroup{}
	for _, el := range arr.Elements {
		obj, ok := el.(*ast.ObjectExpr)
		if !ok {
			return nil, fmt.Errorf("a target is an object of labels with __path__")
		}
		var p *yaml.Node
		labels := map[string]*yaml.Node{}
		var key []string
		for _, f := range obj.Fields {
			v, err := c.value(f.Value)
			if err != nil {
				return nil, err
			}
			if v == nil {
				continue
			}
			if f.Name.Name == "__path__" {
				p = v
				continue
			}
			if strings.HasPrefix(f.Name.Name, "__") {
				continue
			}
			labels[f.Name.Name] = v
			key = append(key, f.Name.Name+"="+v.Value)
		}
		if p == nil {
			return nil, fmt.Errorf("a target without __path__")
		}
		sort.Strings(key)
		k := strings.Join(key, ",")
		g := byKey[k]
		if g == nil {
			g = &fileGroup{key: k, labels: labels}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.paths = append(g.paths, p)
	}
	return groups, nil
}

// logsDest returns what a forward_to of Loki entries stands for: the
// flowlua inputs, and the operators of the loki.process stages on the way.
func (c *converter) logsDest(e ast.Expr) ([]string, []*yaml.Node, error) {
	return c.destThrough(e, "loki.process", "its stages would become the receiver's operators, which hold for all it sends to", c.logsDest, c.stages)
}

// destThrough returns what a forward_to list stands for: the flowlua inputs
// it reaches, and the nodes that the component named inline (loki.process,
// prometheus.relabel), when it is the list's only receiver, contributes
// (nodes) before what its own forward_to stands for (next).
func (c *converter) destThrough(e ast.Expr, inline, alone string, next func(ast.Expr) ([]string, []*yaml.Node, error), nodes func(*comp) []*yaml.Node) ([]string, []*yaml.Node, error) {
	if c.depth++; c.depth > maxDepth {
		c.depth--
		return nil, nil, errCycle
	}
	defer func() { c.depth-- }()
	arr, ok := e.(*ast.ArrayExpr)
	if !ok {
		return nil, nil, fmt.Errorf("forward_to is a list of receivers")
	}
	var refs []string
	for _, el := range arr.Elements {
		k, export := c.resolve(path(el))
		if k == nil {
			return nil, nil, fmt.Errorf("forward_to: not a reference to a component of this file")
		}
		if k.name == inline && export == "receiver" {
			if len(arr.Elements) > 1 {
				return nil, nil, fmt.Errorf("%s beside other receivers: %s", k.id(), alone)
			}
			ns := nodes(k)
			if at, _ := attrs(k.block.Body); at["forward_to"] != nil {
				r, more, err := next(at["forward_to"].Value)
				return r, append(ns, more...), err
			}
			return nil, ns, nil
		}
		r, err := c.exportRefs(k, export)
		if err != nil {
			return nil, nil, err
		}
		refs = append(refs, r...)
	}
	return refs, nil, nil
}

// timeLayouts are Loki's named timestamp formats, as the collector's
// time parser takes them (layout_type, layout).
var timeLayouts = map[string][2]string{
	"RFC3339":     {"gotime", "2006-01-02T15:04:05Z07:00"},
	"RFC3339Nano": {"gotime", "2006-01-02T15:04:05.999999999Z07:00"},
	"RFC1123":     {"gotime", "Mon, 02 Jan 2006 15:04:05 MST"},
	"RFC1123Z":    {"gotime", "Mon, 02 Jan 2006 15:04:05 -0700"},
	"RFC822":      {"gotime", "02 Jan 06 15:04 MST"},
	"RFC822Z":     {"gotime", "02 Jan 06 15:04 -0700"},
	"ANSIC":       {"gotime", "Mon Jan _2 15:04:05 2006"},
	"UnixDate":    {"gotime", "Mon Jan _2 15:04:05 MST 2006"},
	"Unix":        {"epoch", "s"},
	"UnixMs":      {"epoch", "ms"},
	"UnixUs":      {"epoch", "us"},
	"UnixNs":      {"epoch", "ns"},
}

// stages converts the stages of a loki.process to the filelog receiver's
// operators. Extracted values are the entry's attributes.
func (c *converter) stages(k *comp) []*yaml.Node {
	var ops []*yaml.Node
	for _, st := range k.block.Body {
		b, ok := st.(*ast.BlockStmt)
		if !ok {
			continue
		}
		name := strings.Join(b.Name, ".")
		l := posLine(b.NamePos)
		if !strings.HasPrefix(name, "stage.") {
			continue
		}
		at, _ := attrs(b.Body)
		lit := func(key string) (string, bool) {
			a := at[key]
			if a == nil {
				return "", false
			}
			if le, ok := a.Value.(*ast.LiteralExpr); ok && le.Kind == token.STRING {
				s, err := strconv.Unquote(le.Value)
				return s, err == nil
			}
			return "", false
		}
		op := func(kv ...string) *yaml.Node {
			m := mapping(l)
			for i := 0; i+1 < len(kv); i += 2 {
				put(m, kv[i], convert.Str(kv[i+1], l))
			}
			return m
		}
		from := func(m *yaml.Node) *yaml.Node {
			if s, ok := lit("source"); ok {
				put(m, "parse_from", convert.Str("attributes."+s, l))
			}
			return m
		}
		fail := func(format string, args ...any) {
			c.problem(l, "%s: %s: not converted: %s", k.what(), name, fmt.Sprintf(format, args...))
		}
		switch name {
		case "stage.json":
			ops = append(ops, from(op("type", "json_parser")))
			if ex := at["expressions"]; ex != nil {
				obj, ok := ex.Value.(*ast.ObjectExpr)
				if !ok {
					fail("expressions is an object")
					continue
				}
				for _, f := range obj.Fields {
					s := ""
					if le, ok := f.Value.(*ast.LiteralExpr); ok && le.Kind == token.STRING {
						s, _ = strconv.Unquote(le.Value)
					}
					switch {
					case s == "" || s == f.Name.Name:
					case isFieldPath(s):
						ops = append(ops, op("type", "copy", "from", "attributes."+s, "to", "attributes."+f.Name.Name))
					default:
						fail("the JMESPath expression %q: only a key or a dotted path of keys converts", s)
					}
				}
			}
		case "stage.logfmt":
			ops = append(ops, from(op("type", "key_value_parser")))
		case "stage.regex":
			re, ok := lit("expression")
			if !ok {
				fail("expression is a literal")
				continue
			}
			ops = append(ops, from(op("type", "regex_parser", "regex", re)))
		case "stage.cri":
			ops = append(ops, op("type", "container", "format", "containerd"))
		case "stage.docker":
			ops = append(ops, op("type", "container", "format", "docker"))
		case "stage.timestamp":
			src, ok := lit("source")
			format, ok2 := lit("format")
			if !ok || !ok2 {
				fail("source and format are literals")
				continue
			}
			layout, known := timeLayouts[format]
			if !known {
				layout = [2]string{"gotime", format}
			}
			m := op("type", "time_parser", "parse_from", "attributes."+src, "layout_type", layout[0], "layout", layout[1])
			if loc, ok := lit("location"); ok {
				put(m, "location", convert.Str(loc, l))
			}
			ops = append(ops, m)
		case "stage.labels", "stage.structured_metadata":
			// Labels are the resource's attributes; structured metadata,
			// the record's (where extracted values already are).
			vals, ok := at["values"]
			obj, isObj := (*ast.ObjectExpr)(nil), false
			if ok {
				obj, isObj = vals.Value.(*ast.ObjectExpr)
			}
			if !isObj {
				fail("values is an object")
				continue
			}
			for _, f := range obj.Fields {
				src := f.Name.Name
				if le, ok := f.Value.(*ast.LiteralExpr); ok && le.Kind == token.STRING {
					if s, _ := strconv.Unquote(le.Value); s != "" {
						src = s
					}
				}
				if name == "stage.labels" {
					ops = append(ops, op("type", "copy", "from", "attributes."+src, "to", "resource."+f.Name.Name))
				} else if src != f.Name.Name {
					ops = append(ops, op("type", "copy", "from", "attributes."+src, "to", "attributes."+f.Name.Name))
				}
			}
		case "stage.static_labels":
			obj, ok := (*ast.ObjectExpr)(nil), false
			if v := at["values"]; v != nil {
				obj, ok = v.Value.(*ast.ObjectExpr)
			}
			if !ok {
				fail("values is an object")
				continue
			}
			for _, f := range obj.Fields {
				v, err := c.value(f.Value)
				if err != nil || v == nil {
					fail("%s: a literal value", f.Name.Name)
					continue
				}
				m := op("type", "add", "field", "resource."+f.Name.Name)
				put(m, "value", v)
				ops = append(ops, m)
			}
		case "stage.label_drop":
			v := at["values"]
			arr, ok := (*ast.ArrayExpr)(nil), false
			if v != nil {
				arr, ok = v.Value.(*ast.ArrayExpr)
			}
			if !ok {
				fail("values is a list")
				continue
			}
			for _, e := range arr.Elements {
				if le, ok := e.(*ast.LiteralExpr); ok && le.Kind == token.STRING {
					s, _ := strconv.Unquote(le.Value)
					ops = append(ops, op("type", "remove", "field", "resource."+s))
				}
			}
		case "stage.output":
			src, ok := lit("source")
			if !ok {
				fail("source is a literal")
				continue
			}
			ops = append(ops, op("type", "move", "from", "attributes."+src, "to", "body"))
		case "stage.drop":
			var expr string
			src, hasSrc := lit("source")
			re, hasRe := lit("expression")
			val, hasVal := lit("value")
			field := "body"
			if hasSrc {
				field = "attributes[" + strconv.Quote(src) + "]"
			}
			switch {
			case at["older_than"] != nil || at["longer_than"] != nil:
				fail("older_than and longer_than have no equivalent operator")
				continue
			case hasRe && !hasVal:
				expr = field + " matches " + strconv.Quote(re)
			case hasVal && hasSrc && !hasRe:
				expr = field + " == " + strconv.Quote(val)
			default:
				fail("only source with value, or expression (with or without source), converts")
				continue
			}
			ops = append(ops, op("type", "filter", "expr", expr))
		default:
			fail("no equivalent operator of the filelog receiver")
		}
	}
	return ops
}

// isFieldPath reports whether a JMESPath expression is a plain key path.
func isFieldPath(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if p == "" {
			return false
		}
		for _, r := range p {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

var lokiEndpoint = spec{rules: map[string]rule{
	"url":                    {skip: true},
	"name":                   {skip: true},
	"tenant_id":              {skip: true},
	"basic_auth":             {skip: true},
	"bearer_token":           {skip: true},
	"remote_timeout":         {to: "timeout"},
	"tls_config":             {to: "tls"},
	"tls_config.server_name": {to: "server_name_override"},
	"batch_wait":             {to: "sending_queue.batch.flush_timeout"},
	"batch_size":             {to: "sending_queue.batch.min_size", bytes: true},
	"min_backoff_period":     {to: "retry_on_failure.initial_interval"},
	"max_backoff_period":     {to: "retry_on_failure.max_interval"},
	"max_backoff_retries":    {drop: "the exporter retries by retry_on_failure"},
	"retry_on_http_429":      {drop: "no equivalent in the exporter"},
	"oauth2":                 {drop: "no oauth2 client authenticator in flowlua"},
	"authorization":          {drop: "no authorization block in the exporter"},
}}

// lokiWrite converts loki.write to one OTLP/HTTP exporter per endpoint,
// to Loki's OTLP endpoint.
func (c *converter) lokiWrite(k *comp) []convert.Decl {
	var out []convert.Decl
	if ref, ok := c.externalLabels(k); ok {
		// The external labels are resource attributes, upserted by a
		// resource processor in front of the exporters.
		at, _ := attrs(k.block.Body)
		el := at["external_labels"]
		fc, _ := c.cat.Lookup("processor", "resource")
		body := mapping(line(el))
		list := sequence(line(el))
		if obj, ok := el.Value.(*ast.ObjectExpr); ok {
			for _, f := range obj.Fields {
				v, err := c.value(f.Value)
				if err != nil || v == nil {
					c.problem(line(f.Value), "%s: external_labels: %s: not converted: %v", k.what(), f.Name.Name, err)
					continue
				}
				a := mapping(line(f.Value))
				put(a, "key", convert.Str(f.Name.Name, line(f.Value)))
				put(a, "value", v)
				put(a, "action", convert.Str("upsert", line(f.Value)))
				list.Content = append(list.Content, a)
			}
		}
		put(body, "attributes", list)
		var exps []string
		if ex, ok := c.cat.Lookup("exporter", "otlphttp"); ok {
			for _, l := range c.endpointLabels(k) {
				exps = append(exps, ex.Name+"."+l+".input")
			}
		}
		put(body, "output", outputNode("logs", exps, line(el)))
		label := strings.TrimSuffix(strings.TrimPrefix(ref, fc.Name+"."), ".input")
		out = append(out, convert.Decl{Name: fc.Name, Label: label, Comp: fc, What: k.what() + " external_labels", Body: body})
	}
	return append(out, c.writers(k, "otlphttp", lokiEndpoint, func(*yaml.Node, map[string]*ast.AttributeStmt) {},
		map[string]string{"external_labels": "", "max_streams": "", "wal": "flowlua's exporter queues in memory (sending_queue)"})...)
}

// externalLabels returns the input of the resource processor that adds a
// loki.write's external labels, once a label is given to it; false when
// it has none.
func (c *converter) externalLabels(k *comp) (string, bool) {
	if k.name != "loki.write" {
		return "", false
	}
	if ref, ok := c.resources[k]; ok {
		return ref, ref != ""
	}
	at, _ := attrs(k.block.Body)
	fc, ok := c.cat.Lookup("processor", "resource")
	if at["external_labels"] == nil || !ok {
		c.resources[k] = ""
		return "", false
	}
	ref := fc.Name + "." + c.label(fc.Name, k.label) + ".input"
	c.resources[k] = ref
	return ref, true
}

// lokiEndpoint sets the exporter's endpoint from a loki.write endpoint:
// Loki's push URL (<loki>/loki/api/v1/push) made its OTLP one
// (<loki>/otlp); tenant_id is the X-Scope-OrgID header.
func (c *converter) lokiEndpoint(k *comp, b *ast.BlockStmt, body *yaml.Node) {
	at, _ := attrs(b.Body)
	u := at["url"]
	if u == nil {
		c.problem(posLine(b.NamePos), "%s: endpoint: url: missing", k.what())
		return
	}
	s, err := c.lua(u.Value)
	if err != nil {
		c.problem(line(u), "%s: endpoint: url: not converted: %v", k.what(), err)
		return
	}
	const push = `/loki/api/v1/push"`
	switch {
	case strings.HasSuffix(s, push):
		s = strings.TrimSuffix(s, push) + `/otlp"`
	default:
		c.problem(line(u), "%s: endpoint: url: not converted: Loki's push URL ends in /loki/api/v1/push, whose base + /otlp is its OTLP endpoint", k.what())
		return
	}
	put(body, "endpoint", convert.ExprNode(s, line(u)))
	// batch_size is in bytes.
	if q := get(body, "sending_queue"); q != nil {
		if b := get(q, "batch"); b != nil && get(b, "min_size") != nil {
			put(b, "sizer", convert.Str("bytes", b.Line))
		}
	}
	if t := at["tenant_id"]; t != nil {
		v, err := c.value(t.Value)
		if err != nil || v == nil {
			c.problem(line(t), "%s: endpoint: tenant_id: not converted", k.what())
			return
		}
		h := get(body, "headers")
		if h == nil {
			h = mapping(line(t))
			put(body, "headers", h)
		}
		put(h, "X-Scope-OrgID", v)
	}
}
