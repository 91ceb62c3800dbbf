package convert

import (
	"fmt"
	"path/filepath"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/luabind/format"
)

// ExprTag tags a YAML scalar that holds a Lua expression to write as it
// is (a reference, an env() call, a string literal): a config of another
// shape than the collector's (Alloy's) mapped onto its keys carries its
// expressions in the tree Write takes. ExprNode and Str make such nodes.
const ExprTag = "!flowlua.expr"

// ExprNode is a node holding the Lua expression lua, at line.
func ExprNode(lua string, line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: ExprTag, Value: lua, Line: line}
}

// Str is a node holding the string s, written as a Lua string literal
// (never expanded as a ${...} reference), at line.
func Str(s string, line int) *yaml.Node { return ExprNode(stringLit(s), line) }

// LuaString writes s as a Lua string literal.
func LuaString(s string) string { return stringLit(s) }

// Decl is one component for Write: a component of a config that is not
// shaped as the collector's (Alloy's), its arguments already mapped onto
// the flowlua component's keys.
type Decl struct {
	// Name and Label declare it: `Name "Label" { Body }`. An empty Name
	// writes only Note: a comment where something was left out.
	Name, Label string
	// Comp says what the keys hold (Registry's Component); its zero value
	// knows nothing.
	Comp Component
	// What names it in messages: `otelcol.receiver.otlp "default"`.
	What string
	// Body is a mapping of its arguments, with line numbers of the source
	// (problems are reported at them); nil is `{}`. Scalars tagged
	// ExprTag are written as they are, others as Convert writes the
	// collector's values.
	Body *yaml.Node
	// Note is a comment written above it.
	Note string
	// Raw is Lua written as it is instead of a declaration (a require).
	Raw string
}

// Write writes decls as a script, in their order, after a comment naming
// the source and the notes; problems are those of the caller (reported
// at the source's lines) and those found writing the bodies.
func Write(decls []Decl, notes []string, problems []Problem, o Options) (*Result, error) {
	script, probs := WriteBody(decls, o)
	p := &printer{}
	p.comment(fmt.Sprintf("Converted from %s by flowlua convert.", filepath.Base(o.Filename)))
	for _, n := range notes {
		p.comment(n)
	}
	p.b.WriteString(script)
	out, err := format.Source([]byte(p.b.String()))
	if err != nil {
		return nil, fmt.Errorf("formatting the script: %w\n%s", err, p.b.String())
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	problems = append(problems, probs...)
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
	return &Result{Script: out, Problems: problems, Filename: o.Filename}, nil
}

// WriteBody writes decls as Lua, unformatted (the body of a module's
// function, say), with the problems of their bodies.
func WriteBody(decls []Decl, o Options) (string, []Problem) {
	c := &converter{file: o.Filename, base: filepath.Base(o.Filename)}
	p := &printer{}
	for _, d := range decls {
		p.line(0, "")
		if d.Note != "" {
			p.comment(d.Note)
		}
		if d.Raw != "" {
			p.line(0, d.Raw)
		}
		if d.Name == "" {
			continue
		}
		v := &valueConv{c: c, comp: d.Comp, what: d.What}
		t := v.body(d.Body)
		for _, l := range v.errs {
			c.problem(l.line, "%s", l.msg)
		}
		p.block(d.Name, d.Label, t)
	}
	return p.b.String(), c.problems
}
