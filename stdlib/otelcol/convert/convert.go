// Package convert translates an OpenTelemetry Collector configuration
// (YAML) into a flowlua script: `flowlua convert config.yaml`.
//
// What converts, and how:
//
//  1. Each receiver, processor, exporter, connector and extension becomes
//     the otelcol.<class>.<type> component the Catalog names for its type
//     (the registry's components, with the upstream type names and
//     deprecated aliases each answers to), labelled by the label rule
//     (labels.go). Its config keys are written as they are: mappings
//     become tables, lists become lists, scalars keep their YAML types,
//     text of several lines becomes a long string, and `key:` with no
//     value becomes `{}` where the key holds a table (the collector turns
//     such a section on with its defaults).
//  2. Pipelines become `output` wiring, as the collector builds them: a
//     receiver is one instance shared by every pipeline that lists it,
//     its output of a signal going to each of those pipelines' first
//     processor (or their exporters); a processor is one instance per
//     pipeline that lists it (the collector clones processors per
//     pipeline), each sending to the next processor of its pipeline or
//     to the pipeline's exporters; an exporter is one instance whose
//     input every pipeline that lists it sends to; a connector is an
//     exporter in some pipelines and a receiver in others: one instance
//     whose input the first send to and whose output goes to the second.
//  3. A string where the config takes an extension (a component.ID:
//     sending_queue.storage, auth.authenticator, ...) becomes a
//     reference to the extension's id export,
//     `otelcol.extension.file_storage.queue.id`; the extensions declared
//     are those service::extensions lists, and those referenced.
//  4. ${env:VAR}, ${VAR} and either with `:-default` become
//     env("VAR"[, "default"]), concatenated with the rest of a string;
//     `$$` is a `$`.
//  5. Components that no pipeline uses are left out (the collector does
//     not run them either), named in a comment at the end.
//
// What does not convert is a Problem at its line: a type no component
// answers to, service::telemetry (flowlua's own logs and metrics are set
// by its command line), other config providers (${file:...}), profiles
// pipelines, and mistakes the collector would reject (a pipeline naming
// a component that is not configured). The script is written all the
// same, with a comment where each part was left out.
package convert

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/luabind/format"
)

// Options configure a conversion.
type Options struct {
	// Filename is the config's path, for messages and comments.
	Filename string
	// Catalog finds components; nil means the default registry's.
	Catalog Catalog
	// KeepUnused declares the components no pipeline uses too, and takes
	// a config without a service section: for the files of components'
	// configs that upstream tests read.
	KeepUnused bool
	// Unformatted leaves the script as written, not formatted by
	// flowlua fmt, so that Result.Lines holds for it: for running a
	// config, where nobody reads the script.
	Unformatted bool
}

// Problem is a part of the config that did not convert.
type Problem struct {
	Line int
	Msg  string
}

// Result is a converted config.
type Result struct {
	// Script is the flowlua script, formatted; what did not convert is
	// left out with a comment in its place.
	Script []byte
	// Problems are what did not convert, by line.
	Problems []Problem
	// Filename is Options.Filename.
	Filename string
	// Lines, with Options.Unformatted, maps the script's lines to the
	// config's: Lines[i] is the config's line that the script's line
	// i+1 comes from (0: none, such as the script's head comment).
	Lines []int
	// Telemetry is what service::telemetry asks of flowlua's own logs and
	// metrics, which its command line sets.
	Telemetry Telemetry
}

// Error writes the problems, one `file:line: message` a line.
func (r *Result) Error() string {
	lines := make([]string, len(r.Problems))
	for i, p := range r.Problems {
		lines[i] = fmt.Sprintf("%s:%d: %s", r.Filename, p.Line, p.Msg)
	}
	return strings.Join(lines, "\n")
}

// Collector classes, in the order the script declares them.
var classes = []struct{ class, section string }{
	{"receiver", "receivers"},
	{"processor", "processors"},
	{"connector", "connectors"},
	{"exporter", "exporters"},
	{"extension", "extensions"},
}

var signals = []string{"traces", "metrics", "logs"}

// decl is one component of the config.
type decl struct {
	class, section string
	id             string // as written: "otlp/2"
	typ, name      string
	line           int
	body           *yaml.Node
	comp           Component
	known          bool
	used           bool    // in a pipeline, or (extensions) listed or referenced
	listed         bool    // extensions: in service::extensions
	builtin        bool    // an extension whose work flowlua does itself (servedByFlowlua)
	nodes          []*node // its instances: one, or a processor's one per pipeline
}

// what names the component as the collector's messages do.
func (d *decl) what() string { return d.section + "::" + d.id }

// node is one flowlua component made from a decl.
type node struct {
	d     *decl
	label string
	pipe  *pipeline // a processor's pipeline
	out   [3][]string
}

func (n *node) ref(export string) string { return n.d.comp.Name + "." + n.label + "." + export }

// pipeline is one of service::pipelines.
type pipeline struct {
	id, label  string
	signal     int // index in signals; -1 when unknown
	line       int
	receivers  []*decl
	processors []*decl
	exporters  []*decl
}

type converter struct {
	file     string // in messages
	base     string // in the script's comments: the file's name
	cat      Catalog
	problems []Problem
	decls    map[string][]*decl // by class, in config order
	byID     map[string]map[string]*decl
	pipes    []*pipeline
	labels   Labels
	notes    []string // what was left out outside any component, for the script's head
	tel      Telemetry
	files    []fileRead // the file.read components of ${file:...} references, in order
}

// fileRead is a file.read component made for ${file:PATH} references.
type fileRead struct {
	path, label string
	line        int
}

// fileRead returns the reference to the content of the file at path, as
// ${file:PATH} reads it: trimmed, and secret (such files hold tokens).
func (c *converter) fileRead(path string, line int) string {
	for _, f := range c.files {
		if f.path == path {
			return "file.read." + f.label + ".content"
		}
	}
	label := c.labels.Take("file.read", labelOf(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))))
	c.files = append(c.files, fileRead{path: path, label: label, line: line})
	return "file.read." + label + ".content"
}

func (c *converter) problem(line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// leaveOut records a problem that no component's place can note, and notes
// it at the head of the script.
func (c *converter) leaveOut(line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.problem(line, "%s", msg)
	c.notes = append(c.notes, fmt.Sprintf("left out (%s:%d): %s", c.base, line, msg))
}

// Convert converts a collector config. The error is only for YAML that
// does not parse, or that expands past maxExpandedNodes or
// maxExpandedDepth through its aliases; what does not convert is in
// Result.Problems.
func Convert(src []byte, o Options) (*Result, error) {
	if o.Filename == "" {
		o.Filename = "config.yaml"
	}
	doc, err := parseConfig(src, o.Filename)
	if err != nil {
		return nil, err
	}
	return convertDoc(doc, o)
}

// parseConfig parses a config, bounded in what its aliases expand to.
func parseConfig(src []byte, filename string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", filename, err)
	}
	if err := checkAliases(&doc); err != nil {
		var ae *aliasError
		if errors.As(err, &ae) {
			return nil, fmt.Errorf("%s:%d: %s", filename, ae.line, ae.msg)
		}
		return nil, fmt.Errorf("%s: %w", filename, err)
	}
	return &doc, nil
}

// convertDoc converts a parsed config (Convert).
func convertDoc(doc *yaml.Node, o Options) (*Result, error) {
	if o.Filename == "" {
		o.Filename = "config.yaml"
	}
	if o.Catalog == nil {
		o.Catalog = defaultCatalog()
	}
	c := &converter{file: o.Filename, base: filepath.Base(o.Filename), cat: o.Catalog, decls: map[string][]*decl{}, byID: map[string]map[string]*decl{}, labels: Labels{}}
	root := resolve(doc)
	var service *yaml.Node
	switch {
	case root == nil || isNull(root):
		c.problem(1, "the config is empty")
	case root.Kind != yaml.MappingNode:
		c.problem(root.Line, "expected a mapping of receivers, processors, exporters, connectors, extensions and service, got %s", kindName(root))
	default:
		for _, p := range pairs(root) {
			switch k := p.key.Value; k {
			case "receivers", "processors", "exporters", "connectors", "extensions":
				c.section(strings.TrimSuffix(k, "s"), k, p.val)
			case "service":
				service = p.val
			default:
				c.leaveOut(p.key.Line, "%s: not a section of a collector config", k)
			}
		}
		if service == nil && !o.KeepUnused {
			c.leaveOut(root.Line, "service: missing: no pipeline runs")
		}
	}
	if service != nil {
		c.service(service)
	}
	if o.KeepUnused {
		for _, ds := range c.decls {
			for _, d := range ds {
				d.used = true
			}
		}
	}
	c.assignLabels()
	c.wire()
	script, lines := c.emit()
	sort.SliceStable(c.problems, func(i, j int) bool { return c.problems[i].Line < c.problems[j].Line })
	if o.Unformatted {
		return &Result{Script: script, Problems: c.problems, Filename: o.Filename, Lines: lines, Telemetry: c.tel}, nil
	}
	out, err := format.Source(script)
	if err != nil {
		return nil, fmt.Errorf("formatting the script: %w\n%s", err, script)
	}
	return &Result{Script: out, Problems: c.problems, Filename: o.Filename, Telemetry: c.tel}, nil
}

// servedByFlowlua are the extensions whose work flowlua does itself, so
// that a config listing them runs: each is noted at the script's head
// with where flowlua does it, not reported as a problem.
var servedByFlowlua = map[string]string{
	"zpages": "flowlua's component list, health and live debugging are on its HTTP address (--http.listen-addr): its page, /api/v0/components and /api/v0/livedebugging; it keeps no zPages",
}

var typePattern = regexp.MustCompile(`^[a-zA-Z][0-9a-zA-Z_]{0,62}$`)

// section reads the components of one class.
func (c *converter) section(class, section string, n *yaml.Node) {
	if isNull(n) {
		return
	}
	if resolve(n).Kind != yaml.MappingNode {
		c.leaveOut(n.Line, "%s: expected a mapping of component ids, got %s", section, kindName(n))
		return
	}
	c.byID[class] = map[string]*decl{}
	for _, p := range pairs(n) {
		id := p.key.Value
		typ, name, _ := strings.Cut(id, "/")
		d := &decl{class: class, section: section, id: id, typ: typ, name: name, line: p.key.Line, body: p.val}
		if !typePattern.MatchString(typ) || strings.Contains(id, "/") && name == "" {
			c.leaveOut(d.line, "%s: not a component id (type[/name])", d.what())
			continue
		}
		if !isNull(p.val) && resolve(p.val).Kind != yaml.MappingNode {
			c.leaveOut(p.val.Line, "%s: expected a mapping of its config keys, got %s", d.what(), kindName(p.val))
			continue
		}
		d.comp, d.known = c.cat.Lookup(class, typ)
		if why, ok := servedByFlowlua[typ]; ok && class == "extension" && !d.known {
			// Not a problem: flowlua itself does what it did.
			c.notes = append(c.notes, fmt.Sprintf("%s:%d: %s: %s", c.base, d.line, d.what(), why))
			d.used, d.listed, d.builtin = false, true, true
			c.byID[class][id] = d
			continue
		}
		c.decls[class] = append(c.decls[class], d)
		c.byID[class][id] = d
	}
}

// service reads service::extensions and service::pipelines.
func (c *converter) service(n *yaml.Node) {
	if resolve(n).Kind != yaml.MappingNode {
		c.leaveOut(n.Line, "service: expected a mapping, got %s", kindName(n))
		return
	}
	for _, p := range pairs(n) {
		switch p.key.Value {
		case "extensions":
			for _, e := range c.ids(p.val, "service::extensions") {
				d := c.byID["extension"][e.Value]
				if d != nil && d.builtin {
					continue
				}
				if d == nil {
					c.leaveOut(e.Line, "service::extensions: extension %s is not configured", e.Value)
					continue
				}
				d.used, d.listed = true, true
			}
		case "pipelines":
			c.pipelines(p.val)
		case "telemetry":
			c.telemetry(p.val)
		default:
			c.leaveOut(p.key.Line, "service::%s: not converted: not a key flowlua knows", p.key.Value)
		}
	}
}

// ids returns the scalars of a list of component ids.
func (c *converter) ids(n *yaml.Node, what string) []*yaml.Node {
	if isNull(n) {
		return nil
	}
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		c.leaveOut(n.Line, "%s: expected a list of component ids, got %s", what, kindName(n))
		return nil
	}
	var out []*yaml.Node
	for _, e := range n.Content {
		e = resolve(e)
		if e.Kind != yaml.ScalarNode {
			c.leaveOut(e.Line, "%s: expected a component id, got %s", what, kindName(e))
			continue
		}
		out = append(out, e)
	}
	return out
}

// pipelines reads service::pipelines.
func (c *converter) pipelines(n *yaml.Node) {
	if resolve(n).Kind != yaml.MappingNode {
		c.leaveOut(n.Line, "service::pipelines: expected a mapping, got %s", kindName(n))
		return
	}
	for _, pp := range pairs(n) {
		id := pp.key.Value
		sig, _, _ := strings.Cut(id, "/")
		p := &pipeline{id: id, label: labelOf(id), signal: slices.Index(signals, sig), line: pp.key.Line}
		what := "service::pipelines::" + id
		switch {
		case sig == "profiles":
			c.leaveOut(p.line, "%s: not converted: flowlua carries traces, metrics and logs, not profiles", what)
			continue
		case p.signal < 0:
			c.leaveOut(p.line, "%s: not a pipeline id: the signal must be traces, metrics or logs", what)
			continue
		}
		for _, f := range pairs(pp.val) {
			var list *[]*decl
			var from []string
			switch f.key.Value {
			case "receivers":
				list, from = &p.receivers, []string{"receiver", "connector"}
			case "processors":
				list, from = &p.processors, []string{"processor"}
			case "exporters":
				list, from = &p.exporters, []string{"exporter", "connector"}
			default:
				c.leaveOut(f.key.Line, "%s::%s: not converted: not a key of a pipeline", what, f.key.Value)
				continue
			}
			for _, e := range c.ids(f.val, what+"::"+f.key.Value) {
				var d *decl
				for _, cl := range from {
					if d = c.byID[cl][e.Value]; d != nil {
						break
					}
				}
				switch {
				case d == nil:
					c.leaveOut(e.Line, "%s: %s %s is not configured", what, strings.Join(from, " or "), e.Value)
				case slices.Contains(*list, d):
					c.leaveOut(e.Line, "%s: %s is listed twice", what, d.what())
				default:
					d.used = true
					*list = append(*list, d)
				}
			}
		}
		if len(p.receivers) == 0 || len(p.exporters) == 0 {
			c.leaveOut(p.line, "%s: a pipeline needs at least one receiver and one exporter", what)
		}
		c.pipes = append(c.pipes, p)
	}
	c.checkConnectors()
}

// checkConnectors refuses, as the collector does, a connector that a
// pipeline lists as a receiver and none as an exporter, or the reverse:
// nothing would ever reach it, or what reaches it would go nowhere.
func (c *converter) checkConnectors() {
	for _, d := range c.decls["connector"] {
		var in, out bool
		for _, p := range c.pipes {
			in = in || slices.Contains(p.exporters, d)
			out = out || slices.Contains(p.receivers, d)
		}
		switch {
		case out && !in:
			c.problem(d.line, "%s: used as a receiver in a pipeline but not as an exporter in any: nothing reaches it", d.what())
		case in && !out:
			c.problem(d.line, "%s: used as an exporter in a pipeline but not as a receiver in any: what reaches it goes nowhere", d.what())
		}
	}
}

// assignLabels makes the nodes: one per decl, a processor's one per
// pipeline that lists it, in config order (see labels.go).
func (c *converter) assignLabels() {
	for _, cl := range classes {
		for _, d := range c.decls[cl.class] {
			if !d.known {
				continue
			}
			if cl.class != "processor" {
				d.nodes = []*node{{d: d, label: c.labels.Take(d.comp.Name, labelOf(d.name))}}
				continue
			}
			var in []*pipeline
			for _, p := range c.pipes {
				if slices.Contains(p.processors, d) {
					in = append(in, p)
				}
			}
			for _, p := range in {
				want := labelOf(d.name)
				if len(in) > 1 {
					want = cloneLabel(d.name, p.id)
				}
				d.nodes = append(d.nodes, &node{d: d, label: c.labels.Take(d.comp.Name, want), pipe: p})
			}
		}
	}
}

// wire fills the outputs from the pipelines (see the package doc, 2).
func (c *converter) wire() {
	for _, p := range c.pipes {
		var next []string
		for _, d := range p.exporters {
			if d.known {
				next = appendNew(next, d.nodes[0].ref("input"))
			}
		}
		for i := len(p.processors) - 1; i >= 0; i-- {
			d := p.processors[i]
			if !d.known {
				continue // left out: the pipeline goes around it
			}
			for _, n := range d.nodes {
				if n.pipe == p {
					n.out[p.signal] = appendNew(n.out[p.signal], next...)
					next = []string{n.ref("input")}
				}
			}
		}
		for _, d := range p.receivers {
			if d.known {
				n := d.nodes[0]
				n.out[p.signal] = appendNew(n.out[p.signal], next...)
			}
		}
	}
}

func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// extensionRef returns the reference to the extension a config names by
// id, or why there is none.
func (c *converter) extensionRef(id string, line int, by string) (string, string) {
	d := c.byID["extension"][id]
	switch {
	case d == nil:
		return "", fmt.Sprintf("extension %s is not configured", id)
	case !d.known:
		return "", fmt.Sprintf("extension %s does not convert (%s)", id, unknownReason(d))
	}
	if !d.listed && !d.used {
		c.problem(line, "%s: extension %s is not in service::extensions, so the collector would not start it (declared all the same)", by, id)
	}
	d.used = true
	return d.nodes[0].ref("id"), ""
}

func unknownReason(d *decl) string {
	return fmt.Sprintf("no flowlua component otelcol.%s.%s: see flowlua components", d.class, d.typ)
}

// emit writes the script, and for each of its lines the config's line
// it comes from.
func (c *converter) emit() ([]byte, []int) {
	p := &printer{}
	p.comment(fmt.Sprintf("Converted from %s by flowlua convert.", c.base))
	for _, n := range c.notes {
		p.comment(n)
	}
	var unused []string
	// Bodies first: extension references mark the extensions they use.
	type block struct {
		d    *decl
		args *table
	}
	var blocks []block
	bodies := map[*decl]*table{}
	for _, cl := range classes {
		if cl.class == "extension" {
			continue
		}
		for _, d := range c.decls[cl.class] {
			if d.known && d.used {
				bodies[d] = c.convertBody(d)
			}
		}
	}
	for _, d := range c.decls["extension"] {
		if d.known && d.used {
			bodies[d] = c.convertBody(d)
		}
	}
	for _, cl := range classes {
		for _, d := range c.decls[cl.class] {
			switch {
			case !d.used:
				unused = append(unused, d.what())
			case !d.known:
				c.problem(d.line, "%s: %s", d.what(), unknownReason(d))
				blocks = append(blocks, block{d: d})
			default:
				blocks = append(blocks, block{d: d, args: bodies[d]})
			}
		}
	}
	for _, f := range c.files {
		p.line(0, "")
		p.cur = f.line
		args := &table{}
		args.add("filename", expr(quote(f.path)))
		args.add("is_secret", expr("true"))
		args.add("trim_space", expr("true"))
		p.block("file.read", f.label, args)
	}
	for _, b := range blocks {
		p.line(0, "")
		d := b.d
		if b.args == nil {
			note := fmt.Sprintf("left out (%s:%d): %s: %s", c.base, d.line, d.what(), unknownReason(d))
			if d.class == "processor" {
				note += "; its pipelines go around it"
			}
			p.comment(note)
			continue
		}
		if len(d.nodes) > 1 {
			var ps []string
			for _, n := range d.nodes {
				ps = append(ps, n.pipe.id)
			}
			p.comment(fmt.Sprintf("%s is in pipelines %s: the collector makes one instance per pipeline, and so does this script.", d.what(), strings.Join(ps, ", ")))
		}
		for i, n := range d.nodes {
			if i > 0 {
				p.line(0, "")
			}
			p.cur = d.line
			args := &table{entries: slices.Clone(b.args.entries)}
			if out := outputTable(n); out != nil {
				args.add("output", out)
			}
			p.block(d.comp.Name, n.label, args)
		}
	}
	if len(unused) > 0 {
		p.cur = 0
		p.line(0, "")
		p.comment(fmt.Sprintf("Left out: in no pipeline, so the collector does not run them either: %s.", strings.Join(unused, ", ")))
	}
	return []byte(p.b.String()), p.src
}

// convertBody converts a component's config keys, recording problems.
func (c *converter) convertBody(d *decl) *table {
	v := &valueConv{c: c, comp: d.comp, what: d.what()}
	t := v.body(d.body)
	for _, l := range v.errs {
		c.problem(l.line, "%s", l.msg)
	}
	return t
}

// outputTable writes a node's output, or nil when it sends nothing.
func outputTable(n *node) *table {
	if n.d.class != "receiver" && n.d.class != "processor" && n.d.class != "connector" {
		return nil
	}
	out := &table{}
	for s, refs := range n.out {
		if len(refs) == 0 {
			continue
		}
		l := &table{}
		for _, r := range refs {
			l.add("", expr(r))
		}
		out.add(signals[s], l)
	}
	if len(out.entries) == 0 {
		return nil
	}
	return out
}
