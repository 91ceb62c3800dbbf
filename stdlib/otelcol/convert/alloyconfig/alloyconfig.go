// Package alloyconfig translates a Grafana Alloy configuration into a
// flowlua script: `flowlua convert config.alloy`. It parses Alloy's
// syntax with Alloy's own parser (github.com/grafana/alloy/syntax) and
// writes the script with the collector converter's writer (convert.Write)
// and catalog, so that a component converts to what the same component
// of a collector config converts to.
//
// What converts, and how:
//
//  1. otelcol.* components become the flowlua component the catalog names
//     for the collector's class and type (otelcol.auth.basic is the
//     basicauth extension, otelcol.storage.file file_storage), with
//     Alloy's argument shapes mapped back onto the collector's keys
//     (otelcol.go): `grpc { ... }` is protocols.grpc, `client { ... }`
//     the exporter's own keys, repeated blocks (`action`, `attribute`)
//     lists, sizes ("4MiB") the collector's numbers. `output` stays as
//     it is, its references renamed; a handler reference
//     (`otelcol.auth.basic.creds.handler`) is the extension's `id`.
//     Where Alloy's default differs from the collector's it is written
//     out (the OTLP receiver's endpoints on 0.0.0.0).
//  2. prometheus.scrape becomes the prometheus receiver (a native
//     plugin's) with one scrape config: its targets as static configs,
//     or the service discovery (discovery.kubernetes, discovery.file)
//     they come from, discovery.relabel's rules as relabel_configs and
//     prometheus.relabel's as metric_relabel_configs; prometheus.
//     remote_write becomes one prometheusremotewrite exporter per
//     endpoint; otelcol.receiver.prometheus and otelcol.exporter.
//     prometheus, which only carry samples between the two worlds, go
//     away: what references them references what they send to
//     (prometheus.go).
//  3. loki.source.file becomes the filelog receiver, the stages of the
//     loki.process components it sends through become its operators, and
//     loki.write an OTLP/HTTP exporter to Loki's OTLP endpoint
//     (<url>/otlp), behind a resource processor for its external_labels;
//     local.file_match's targets are its include paths, and a
//     file_storage extension keeps the read positions (loki.go).
//  4. local.file becomes file.read; declare becomes a module (argument:
//     its args, export: its exports, argument.NAME.value: args.NAME);
//     import.file a require of the module the imported file converts to
//     (modules.go).
//  5. Expressions become Lua: sys.env(NAME) is env(NAME), `+` of strings
//     `..`; references to components are renamed as the components are.
//
// What does not convert is a convert.Problem at its line (Alloy's
// config.alloy:LINE), with the reason: a component with no equivalent,
// an argument with no collector key, a function of Alloy's standard
// library other than sys.env. The script is written all the same, with a
// comment where each part was left out.
package alloyconfig

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/grafana/alloy/syntax/ast"
	"github.com/grafana/alloy/syntax/parser"
	"github.com/grafana/alloy/syntax/token"
	"go.yaml.in/yaml/v3"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// comp is one component block of the config.
type comp struct {
	name, label string
	block       *ast.BlockStmt
	line        int
	done        bool // converted (once)
}

func (c *comp) id() string { return c.name + "." + c.label }

func (c *comp) what() string { return fmt.Sprintf("%s %q", c.name, c.label) }

// converter converts one file, or the body of one declare.
type converter struct {
	o        convert.Options
	cat      convert.Catalog
	base     string
	problems *[]convert.Problem
	notes    *[]string
	comps    map[string]*comp // by id
	order    []*comp
	modules  map[string]*module // declare blocks, by name
	args     map[string]*argument
	labels   convert.Labels // flowlua name → labels taken
	// endpoints are the labels of the exporters of a remote_write's or
	// a loki.write's endpoints (endpointLabels).
	endpoints map[*comp][]string
	// resources are the inputs of the resource processors of loki.write's
	// external labels ("" for one without).
	resources map[*comp]string
	// importLabels are the import.file labels whose file was not read:
	// LABEL.NAME is an instance of a module NAME with any exports.
	importLabels []string
	// depth bounds the following of references between components
	// (maxDepth): a cycle of them is an error, not a stack overflow.
	depth int
	// parent is the converter of the enclosing scope (declare).
	parent *converter
}

// Convert converts an Alloy configuration. The error is only for a file
// that does not parse; what does not convert is in Result.Problems.
func Convert(src []byte, o convert.Options) (*convert.Result, error) {
	if o.Filename == "" {
		o.Filename = "config.alloy"
	}
	if o.Catalog == nil {
		o.Catalog = convert.Registry(flowcomp.DefaultRegistry)
	}
	f, err := parser.ParseFile(o.Filename, src)
	if err != nil {
		return nil, err
	}
	var problems []convert.Problem
	var notes []string
	c := newConverter(o, &problems, &notes, nil)
	decls := c.file(f.Body)
	return convert.Write(decls, notes, problems, o)
}

// Parses reports whether src is Alloy's syntax.
func Parses(src []byte) bool {
	f, err := parser.ParseFile("", src)
	return err == nil && len(f.Body) > 0
}

func newConverter(o convert.Options, problems *[]convert.Problem, notes *[]string, parent *converter) *converter {
	base := o.Filename
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	return &converter{o: o, cat: o.Catalog, base: base, problems: problems, notes: notes,
		comps: map[string]*comp{}, modules: map[string]*module{}, args: map[string]*argument{},
		labels: convert.Labels{}, endpoints: map[*comp][]string{}, resources: map[*comp]string{}, parent: parent}
}

func line(n ast.Node) int {
	p := ast.StartPos(n)
	if !p.Valid() || p.File() == nil {
		return 0
	}
	return p.Position().Line
}

func posLine(p token.Pos) int {
	if !p.Valid() || p.File() == nil {
		return 0
	}
	return p.Position().Line
}

func (c *converter) problem(line int, format string, args ...any) {
	*c.problems = append(*c.problems, convert.Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

// leftOut records a problem and returns the comment that takes the
// left-out part's place in the script.
func (c *converter) leftOut(line int, format string, args ...any) convert.Decl {
	msg := fmt.Sprintf(format, args...)
	c.problem(line, "%s", msg)
	return convert.Decl{Note: fmt.Sprintf("left out (%s:%d): %s", c.base, line, msg)}
}

// file converts the statements of a file or of a declare's body.
func (c *converter) file(body ast.Body) []convert.Decl {
	var decls []convert.Decl
	// Index first: references are order-independent.
	for _, st := range body {
		b, ok := st.(*ast.BlockStmt)
		if !ok {
			continue
		}
		name := strings.Join(b.Name, ".")
		if name == "declare" {
			c.modules[b.Label] = &module{name: b.Label, block: b, line: posLine(b.NamePos)}
			continue
		}
		if name == "argument" && c.parent != nil {
			c.args[b.Label] = &argument{name: b.Label, block: b, line: posLine(b.NamePos)}
			continue
		}
		if b.Label == "" {
			continue
		}
		k := &comp{name: name, label: b.Label, block: b, line: posLine(b.NamePos)}
		if have := c.comps[k.id()]; have != nil {
			c.problem(k.line, "%s: declared twice (also at %s:%d)", k.what(), c.base, have.line)
			continue
		}
		c.comps[k.id()] = k
		c.order = append(c.order, k)
	}
	c.reserve()
	// Imports and modules first: instances of them are components.
	for _, k := range c.order {
		if k.name == "import.file" {
			decls = append(decls, c.convert(k)...)
		}
	}
	for _, st := range body {
		if b, ok := st.(*ast.BlockStmt); ok && strings.Join(b.Name, ".") == "declare" {
			decls = append(decls, c.module(c.modules[b.Label])...)
		}
	}
	for _, st := range body {
		switch st := st.(type) {
		case *ast.AttributeStmt:
			decls = append(decls, c.leftOut(line(st), "%s: an attribute at the top level is not a component", st.Name.Name))
		case *ast.BlockStmt:
			name := strings.Join(st.Name, ".")
			switch {
			case name == "declare", name == "argument" && c.parent != nil:
			case name == "export" && c.parent != nil:
				// The module's exports are written by module.
			case st.Label == "":
				decls = append(decls, c.config(st)...)
			default:
				k := c.comps[name+"."+st.Label]
				if k == nil || k.block != st {
					continue
				}
				decls = append(decls, c.convert(k)...)
			}
		}
	}
	return decls
}

// reserve takes the labels of the components that keep theirs (otelcol.*,
// local.file), before any label is made for another (an extension of a
// remote_write's basic_auth), so that references to them hold.
func (c *converter) reserve() {
	for _, k := range c.order {
		switch k.name {
		case "otelcol.receiver.prometheus", "otelcol.exporter.prometheus", "otelcol.receiver.loki", "otelcol.exporter.loki":
			continue
		case "local.file":
			c.label("file.read", k.label)
			continue
		}
		if fc, ok := c.lookup(k.name); ok && strings.HasPrefix(k.name, "otelcol.") {
			c.label(fc.Name, k.label)
		}
	}
}

// config converts a block without a label: logging, livedebugging, ...
func (c *converter) config(b *ast.BlockStmt) []convert.Decl {
	name := strings.Join(b.Name, ".")
	l := posLine(b.NamePos)
	switch name {
	case "livedebugging":
		body := c.generic(b.Body, name, spec{})
		return []convert.Decl{{Name: "livedebugging", What: name, Body: body}}
	case "logging":
		return []convert.Decl{c.leftOut(l, "logging: not converted: flowlua's own logs are set by its command line (--log.level, --log.format)")}
	case "tracing":
		return []convert.Decl{c.leftOut(l, "tracing: not converted: flowlua does not trace itself")}
	case "http", "remotecfg", "foreach":
		return []convert.Decl{c.leftOut(l, "%s: not converted: no flowlua equivalent", name)}
	}
	return []convert.Decl{c.leftOut(l, "%s: a component needs a label (%s \"NAME\" { ... })", name, name)}
}

// convert converts a component once, and returns what it became (nil
// for one that only feeds others, as prometheus.relabel).
func (c *converter) convert(k *comp) []convert.Decl {
	if k.done {
		return nil
	}
	k.done = true
	before := len(*c.problems)
	out := c.convertComp(k)
	// What of it did not convert is noted above it.
	var notes []string
	written := map[string]bool{}
	for _, d := range out {
		if d.Name == "" {
			written[d.Note] = true
		}
	}
	for _, p := range (*c.problems)[before:] {
		if n := fmt.Sprintf("left out (%s:%d): %s", c.base, p.Line, p.Msg); !written[n] {
			notes = append(notes, n)
		}
	}
	for i := range out {
		if out[i].Name != "" && len(notes) > 0 {
			out[i].Note = strings.Join(append(notes, out[i].Note), "\n")
			out[i].Note = strings.TrimSuffix(out[i].Note, "\n")
			break
		}
	}
	return out
}

func (c *converter) convertComp(k *comp) []convert.Decl {
	var out []convert.Decl
	switch {
	case c.moduleOf(k.name) != nil:
		out = c.instance(k)
	case strings.HasPrefix(k.name, "otelcol."):
		out = c.otelcol(k)
	default:
		fn := families[k.name]
		if fn == nil {
			out = []convert.Decl{c.leftOut(k.line, "%s: no flowlua equivalent of %s", k.what(), k.name)}
			break
		}
		out = fn(c, k)
	}
	return out
}

// maxDepth is how many references deep a conversion follows.
const maxDepth = 64

var errCycle = errors.New("a cycle of references between components")

// families convert the components outside otelcol.*.
var families map[string]func(*converter, *comp) []convert.Decl

func init() {
	families = map[string]func(*converter, *comp) []convert.Decl{
		"local.file":              (*converter).localFile,
		"import.file":             (*converter).importFile,
		"prometheus.scrape":       (*converter).scrape,
		"prometheus.remote_write": (*converter).remoteWrite,
		"prometheus.relabel":      (*converter).consumed,
		"discovery.relabel":       (*converter).consumed,
		"discovery.kubernetes":    (*converter).consumed,
		"discovery.file":          (*converter).consumed,
		"local.file_match":        (*converter).consumed,
		"loki.source.file":        (*converter).sourceFile,
		"loki.process":            (*converter).consumed,
		"loki.write":              (*converter).lokiWrite,
	}
	for sd, ok := range sdConfigs {
		if ok {
			families["discovery."+sd] = (*converter).consumed
		}
	}
}

// consumed is a component that converts into those that use it (a
// relabelling, a discovery, a stage list): it writes nothing itself, and
// says so when nothing uses it.
func (c *converter) consumed(k *comp) []convert.Decl {
	if !c.used(k) {
		return []convert.Decl{{Note: fmt.Sprintf("%s (%s:%d) is used by no component: left out", k.what(), c.base, k.line)}}
	}
	return nil
}

// used reports whether another component's arguments reference k.
func (c *converter) used(k *comp) bool {
	found := false
	for _, o := range c.order {
		if o == k {
			continue
		}
		walkExprs(o.block.Body, func(e ast.Expr) {
			if parts := path(e); len(parts) > 0 && strings.HasPrefix(strings.Join(parts, ".")+".", k.id()+".") {
				found = true
			}
		})
	}
	return found
}

// walkExprs calls fn on every expression under body, outer first.
func walkExprs(body ast.Body, fn func(ast.Expr)) {
	var expr func(e ast.Expr)
	expr = func(e ast.Expr) {
		if e == nil {
			return
		}
		fn(e)
		switch e := e.(type) {
		case *ast.ArrayExpr:
			for _, x := range e.Elements {
				expr(x)
			}
		case *ast.ObjectExpr:
			for _, f := range e.Fields {
				expr(f.Value)
			}
		case *ast.CallExpr:
			expr(e.Value)
			for _, x := range e.Args {
				expr(x)
			}
		case *ast.BinaryExpr:
			expr(e.Left)
			expr(e.Right)
		case *ast.UnaryExpr:
			expr(e.Value)
		case *ast.ParenExpr:
			expr(e.Inner)
		case *ast.IndexExpr:
			expr(e.Value)
			expr(e.Index)
		}
	}
	for _, st := range body {
		switch st := st.(type) {
		case *ast.AttributeStmt:
			expr(st.Value)
		case *ast.BlockStmt:
			walkExprs(st.Body, fn)
		}
	}
}

// path returns the names of an identifier or a chain of accesses
// (otelcol.processor.batch.default.input), or nil.
func path(e ast.Expr) []string {
	switch e := e.(type) {
	case *ast.IdentifierExpr:
		return []string{e.Ident.Name}
	case *ast.AccessExpr:
		p := path(e.Value)
		if p == nil {
			return nil
		}
		return append(p, e.Name.Name)
	}
	return nil
}

// label returns a label for a flowlua component name not taken yet.
func (c *converter) label(name, want string) string { return c.labels.Take(name, want) }

// attrs returns a block body's attributes by name, and its blocks in
// order.
func attrs(body ast.Body) (map[string]*ast.AttributeStmt, []*ast.BlockStmt) {
	m := map[string]*ast.AttributeStmt{}
	var blocks []*ast.BlockStmt
	for _, st := range body {
		switch st := st.(type) {
		case *ast.AttributeStmt:
			m[st.Name.Name] = st
		case *ast.BlockStmt:
			blocks = append(blocks, st)
		}
	}
	return m, blocks
}

// mapping makes an empty YAML mapping at line.
func mapping(line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
}

func sequence(line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: line}
}

func scalar(tag, v string, line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v, Line: line}
}

// get returns the value of key in a mapping, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// put sets key in a mapping, replacing a value it had.
func put(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, scalar("!!str", key, v.Line), v)
}

func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
