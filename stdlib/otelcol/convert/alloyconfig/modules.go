package alloyconfig

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/grafana/alloy/syntax/ast"
	"github.com/grafana/alloy/syntax/parser"
	"github.com/grafana/alloy/syntax/token"
	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// module is a declare block, or a module an import.file brings.
type module struct {
	name  string
	block *ast.BlockStmt // nil for an imported one
	line  int
	// exports are its export names; nil for an imported module whose
	// file was not read (any export is taken).
	exports map[string]bool
}

// argument is an argument block of a declare.
type argument struct {
	name  string
	block *ast.BlockStmt
	line  int
}

// moduleOf returns the module a component name instantiates: a declare
// of this scope or an enclosing one, or NAMESPACE.NAME of an import.file.
func (c *converter) moduleOf(name string) *module {
	for s := c; s != nil; s = s.parent {
		if m := s.modules[name]; m != nil {
			if m.exports == nil && m.block != nil {
				m.exports = exportNames(m.block.Body)
			}
			return m
		}
		for _, l := range s.importLabels {
			if rest, ok := strings.CutPrefix(name, l+"."); ok && !strings.Contains(rest, ".") {
				return &module{name: rest}
			}
		}
	}
	return nil
}

func exportNames(body ast.Body) map[string]bool {
	out := map[string]bool{}
	for _, st := range body {
		if b, ok := st.(*ast.BlockStmt); ok && strings.Join(b.Name, ".") == "export" {
			out[b.Label] = true
		}
	}
	return out
}

// module converts a declare to a flowlua module: its arguments are the
// module's args, its exports the table its body returns.
func (c *converter) module(m *module) []convert.Decl {
	inner := newConverter(c.o, c.problems, c.notes, c)
	decls := inner.file(m.block.Body)
	lua, probs := convert.WriteBody(decls, c.o)
	*c.problems = append(*c.problems, probs...)
	what := "declare " + strconv.Quote(m.name)
	body := mapping(m.line)
	args := mapping(m.line)
	for _, name := range sortedKeys(inner.args) {
		a := inner.args[name]
		at, _ := attrs(a.block.Body)
		spec := mapping(a.line)
		typ := "any"
		required := true
		if o := at["optional"]; o != nil {
			if l, ok := o.Value.(*ast.LiteralExpr); ok && l.Kind == token.BOOL {
				required = l.Value != "true"
			}
		}
		var def, doc *yaml.Node
		if d := at["default"]; d != nil {
			if l, ok := d.Value.(*ast.LiteralExpr); ok {
				typ = map[token.Token]string{token.STRING: "string", token.NUMBER: "number", token.FLOAT: "number", token.BOOL: "boolean"}[l.Kind]
			}
			v, err := c.value(d.Value)
			if err != nil || typ == "" {
				c.problem(line(d), "%s: argument %q: default: not converted: a default is a literal", what, name)
				typ = "any"
			} else {
				def = v
			}
			required = false
		}
		if d := at["comment"]; d != nil {
			if v, err := c.value(d.Value); err == nil {
				doc = v
			}
		}
		put(spec, "type", convert.Str(typ, a.line))
		if required {
			put(spec, "required", scalar("!!bool", "true", a.line))
		}
		if def != nil {
			put(spec, "default", def)
		}
		if doc != nil {
			put(spec, "doc", doc)
		}
		for _, k := range sortedKeys(at) {
			if k != "optional" && k != "default" && k != "comment" {
				c.problem(line(at[k]), "%s: argument %q: %s: not an argument's attribute", what, name, k)
			}
		}
		put(args, name, spec)
	}
	exports := mapping(m.line)
	var ret []string
	for _, st := range m.block.Body {
		b, ok := st.(*ast.BlockStmt)
		if !ok || strings.Join(b.Name, ".") != "export" {
			continue
		}
		at, _ := attrs(b.Body)
		v := at["value"]
		if v == nil {
			c.problem(posLine(b.NamePos), "%s: export %q: no value", what, b.Label)
			continue
		}
		typ := "any"
		if p := path(v.Value); len(p) > 0 && p[len(p)-1] == "input" {
			typ = "consumer"
		}
		s, err := inner.lua(v.Value)
		if err != nil {
			c.problem(line(v), "%s: export %q: not converted: %v", what, b.Label, err)
			continue
		}
		put(exports, b.Label, convert.Str(typ, line(v)))
		ret = append(ret, b.Label+" = "+s)
	}
	put(body, "args", args)
	put(body, "exports", exports)
	fn := "function(args)\n" + strings.TrimLeft(lua, "\n") + "\nreturn { " + strings.Join(ret, ", ") + " }\nend"
	put(body, "body", convert.ExprNode(fn, m.line))
	return []convert.Decl{{Name: "module", Label: m.name, What: what, Body: body}}
}

// instance converts an instance of a module: its arguments as they are.
func (c *converter) instance(k *comp) []convert.Decl {
	m := c.moduleOf(k.name)
	body := mapping(k.line)
	for _, st := range k.block.Body {
		switch st := st.(type) {
		case *ast.AttributeStmt:
			v, err := c.value(st.Value)
			if err != nil {
				c.problem(line(st), "%s: %s: not converted: %v", k.what(), st.Name.Name, err)
				continue
			}
			if v != nil {
				put(body, st.Name.Name, v)
			}
		case *ast.BlockStmt:
			c.problem(posLine(st.NamePos), "%s: %s: not converted: a module instance takes attributes", k.what(), strings.Join(st.Name, "."))
		}
	}
	return []convert.Decl{{Name: m.name, Label: k.label, What: k.what(), Body: body}}
}

// importFile converts import.file to a require of the module that the
// imported file converts to (flowlua convert lib.alloy -o lib.lua).
func (c *converter) importFile(k *comp) []convert.Decl {
	at, _ := attrs(k.block.Body)
	f := at["filename"]
	var name string
	if f != nil {
		if l, ok := f.Value.(*ast.LiteralExpr); ok && l.Kind == token.STRING {
			name, _ = strconv.Unquote(l.Value)
		}
	}
	switch {
	case name == "":
		return []convert.Decl{c.leftOut(k.line, "%s: filename: not converted: a require names its module by a literal", k.what())}
	case filepath.IsAbs(name) || strings.HasPrefix(name, ".."):
		return []convert.Decl{c.leftOut(k.line, "%s: %s: not converted: a required module is under the script's directory", k.what(), name)}
	case !strings.HasSuffix(name, ".alloy"):
		return []convert.Decl{c.leftOut(k.line, "%s: %s: not converted: importing a directory does not convert; import each file", k.what(), name)}
	}
	mod := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(filepath.Clean(name)), ".alloy"), "/", ".")
	// The imported file's declares are the modules it makes; read it to
	// know their exports when it is there.
	var src []byte
	if c.o.Filename != "" {
		src, _ = os.ReadFile(filepath.Join(filepath.Dir(c.o.Filename), name))
	}
	found := false
	if f, err := parser.ParseFile(name, src); src != nil && err == nil {
		for _, st := range f.Body {
			if b, ok := st.(*ast.BlockStmt); ok && strings.Join(b.Name, ".") == "declare" {
				c.modules[k.label+"."+b.Label] = &module{name: b.Label, exports: exportNames(b.Body)}
				found = true
			}
		}
	}
	if !found {
		c.importLabels = append(c.importLabels, k.label)
	}
	return []convert.Decl{{
		Note: "import.file " + strconv.Quote(k.label) + ": " + name + " converts to the module " + mod + ".lua: flowlua convert " + name + " -o " + strings.ReplaceAll(mod, ".", "/") + ".lua",
		Raw:  "require " + convert.LuaString(mod),
	}}
}

// localFile converts local.file to file.read.
func (c *converter) localFile(k *comp) []convert.Decl {
	body := c.generic(k.block.Body, k.what(), spec{rules: map[string]rule{
		"detector": {drop: "file.read notices changes by itself (and polls at poll_frequency)"},
	}})
	return []convert.Decl{{Name: "file.read", Label: k.label, What: k.what(), Body: body}}
}
