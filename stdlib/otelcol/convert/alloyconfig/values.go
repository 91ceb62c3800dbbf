package alloyconfig

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/grafana/alloy/syntax/ast"
	"github.com/grafana/alloy/syntax/token"
	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

// rule says where an argument of an Alloy component goes in the
// collector's config, by its Alloy path ("client.keepalive.ping_wait").
type rule struct {
	// to is the key path under the parent's place ("protocols.grpc");
	// "" keeps the Alloy name.
	to string
	// flat merges a block's arguments into its parent's place (the
	// exporters' client block).
	flat bool
	// list makes a block that repeats an element of the list at to.
	list bool
	// mib writes a size ("512MiB") as whole MiB, bytes as bytes.
	mib, bytes bool
	// skip leaves it out silently: it configures what flowlua does its
	// own way (debug_metrics: flowlua's metrics of components).
	skip bool
	// drop leaves it out with this reason.
	drop string
	// zeroOK leaves it out silently when it is "0s" (what the collector
	// does without it), with the reason of drop otherwise.
	zeroOK bool
	// trueOK leaves it out silently when it is true (what the collector
	// does without it), with the reason of drop otherwise.
	trueOK bool
}

// spec maps an Alloy component's arguments onto the collector's keys.
type spec struct {
	rules map[string]rule
}

// common holds at every component.
var common = map[string]rule{
	"debug_metrics": {skip: true},
}

// generic converts a body by its spec into a mapping at the body's line.
func (c *converter) generic(body ast.Body, what string, sp spec) *yaml.Node {
	m := mapping(0)
	if len(body) > 0 {
		m.Line = line(body[0])
	}
	c.into(m, body, "", what, sp)
	return m
}

// into converts the statements of body, at the Alloy path prefix, into
// the mapping m.
func (c *converter) into(m *yaml.Node, body ast.Body, prefix, what string, sp spec) {
	seen := map[string]bool{}
	for _, st := range body {
		var name string
		var l int
		switch st := st.(type) {
		case *ast.AttributeStmt:
			name, l = st.Name.Name, line(st)
		case *ast.BlockStmt:
			name, l = strings.Join(st.Name, "."), posLine(st.NamePos)
		}
		p := name
		if prefix != "" {
			p = prefix + "." + name
		}
		r, ok := sp.rules[p]
		if !ok && prefix == "" {
			r = common[name]
		}
		switch {
		case r.skip:
			continue
		case r.zeroOK && isZero(st), r.trueOK && isTrue(st):
			continue
		case r.drop != "":
			c.problem(l, "%s: %s: not converted: %s", what, p, r.drop)
			continue
		}
		to := r.to
		if to == "" {
			to = name
		}
		switch st := st.(type) {
		case *ast.AttributeStmt:
			v, err := c.value(st.Value)
			if err == nil && (r.mib || r.bytes) {
				v, err = size(v, r.mib)
			}
			if err != nil {
				c.problem(l, "%s: %s: not converted: %v", what, p, err)
				continue
			}
			if v == nil {
				continue // null: the default
			}
			c.set(m, to, v, false, what, p, l)
		case *ast.BlockStmt:
			if st.Label != "" {
				c.problem(l, "%s: %s %q: not converted: a block with a label", what, p, st.Label)
				continue
			}
			if r.flat {
				c.into(m, st.Body, p, what, sp)
				continue
			}
			if seen[p] && !r.list {
				c.problem(l, "%s: %s: not converted: the block is repeated", what, p)
				continue
			}
			seen[p] = true
			sub := mapping(l)
			c.into(sub, st.Body, p, what, sp)
			c.set(m, to, sub, r.list, what, p, l)
		}
	}
}

// set puts v at the dotted path to under m, appending to a list there
// when list.
func (c *converter) set(m *yaml.Node, to string, v *yaml.Node, list bool, what, p string, l int) {
	keys := strings.Split(to, ".")
	for _, k := range keys[:len(keys)-1] {
		next := get(m, k)
		if next == nil {
			next = mapping(l)
			put(m, k, next)
		}
		if next.Kind != yaml.MappingNode {
			c.problem(l, "%s: %s: not converted: %s is set twice", what, p, to)
			return
		}
		m = next
	}
	last := keys[len(keys)-1]
	have := get(m, last)
	switch {
	case list && have == nil:
		s := sequence(l)
		s.Content = []*yaml.Node{v}
		put(m, last, s)
	case list && have.Kind == yaml.SequenceNode:
		have.Content = append(have.Content, v)
	case have != nil && have.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
		have.Content = append(have.Content, v.Content...)
	case have != nil:
		c.problem(l, "%s: %s: not converted: %s is set twice", what, p, to)
	default:
		put(m, last, v)
	}
}

// value converts an expression: literals, arrays and objects to YAML
// nodes, anything else to a Lua expression (ExprTag); nil for null.
func (c *converter) value(e ast.Expr) (*yaml.Node, error) {
	l := line(e)
	switch e := e.(type) {
	case *ast.LiteralExpr:
		switch e.Kind {
		case token.NULL:
			return nil, nil
		case token.STRING:
			s, err := strconv.Unquote(e.Value)
			if err != nil {
				return nil, err
			}
			return convert.Str(s, l), nil
		case token.NUMBER:
			return scalar("!!int", e.Value, l), nil
		case token.FLOAT:
			return scalar("!!float", e.Value, l), nil
		case token.BOOL:
			return scalar("!!bool", e.Value, l), nil
		}
	case *ast.ArrayExpr:
		s := sequence(l)
		for _, x := range e.Elements {
			if refs, ok, err := c.refList(x); ok {
				if errors.Is(err, errLeftOut) {
					continue // the component's own problem says it is left out
				}
				if err != nil {
					return nil, err
				}
				for _, r := range refs {
					s.Content = append(s.Content, convert.ExprNode(r, line(x)))
				}
				continue
			}
			v, err := c.value(x)
			if err != nil {
				return nil, err
			}
			if v == nil {
				v = convert.ExprNode("nil", line(x))
			}
			s.Content = append(s.Content, v)
		}
		return s, nil
	case *ast.ObjectExpr:
		m := mapping(l)
		for _, f := range e.Fields {
			v, err := c.value(f.Value)
			if err != nil {
				return nil, err
			}
			if v != nil {
				put(m, f.Name.Name, v)
			}
		}
		return m, nil
	}
	lua, err := c.lua(e)
	if err != nil {
		return nil, err
	}
	return convert.ExprNode(lua, l), nil
}

// refList returns what a reference to a component's export in a list
// (output, forward_to) stands for: several components' inputs, one, or
// none (a component left out). ok is false for what is not a reference.
func (c *converter) refList(e ast.Expr) (refs []string, ok bool, err error) {
	parts := path(e)
	if parts == nil {
		return nil, false, nil
	}
	k, export := c.resolve(parts)
	if k == nil {
		return nil, false, nil
	}
	refs, err = c.exportRefs(k, export)
	return refs, true, err
}

// resolve finds the component a reference names, in this module's scope,
// and the export it reads.
func (c *converter) resolve(parts []string) (*comp, string) {
	for i := len(parts) - 1; i >= 2; i-- {
		if k := c.comps[strings.Join(parts[:i], ".")]; k != nil {
			if i != len(parts)-1 {
				return k, strings.Join(parts[i:], ".")
			}
			return k, parts[i]
		}
	}
	return nil, ""
}

// lua converts an expression to Lua.
func (c *converter) lua(e ast.Expr) (string, error) {
	switch e := e.(type) {
	case *ast.LiteralExpr:
		switch e.Kind {
		case token.NULL:
			return "nil", nil
		case token.STRING:
			s, err := strconv.Unquote(e.Value)
			if err != nil {
				return "", err
			}
			return convert.LuaString(s), nil
		default:
			return e.Value, nil
		}
	case *ast.IdentifierExpr, *ast.AccessExpr:
		parts := path(e)
		if parts == nil {
			break
		}
		if len(parts) == 3 && parts[0] == "argument" && parts[2] == "value" && c.parent != nil {
			if c.args[parts[1]] == nil {
				return "", fmt.Errorf("argument %q is not declared", parts[1])
			}
			return "args." + parts[1], nil
		}
		k, export := c.resolve(parts)
		if k == nil {
			name := strings.Join(parts, ".")
			if strings.HasPrefix(name, "constants.") || strings.HasPrefix(name, "sys.") {
				return "", fmt.Errorf("%s: Alloy's standard library does not convert", name)
			}
			return "", fmt.Errorf("%s: not a component declared in this file", name)
		}
		refs, err := c.exportRefs(k, export)
		if errors.Is(err, errLeftOut) {
			return "", fmt.Errorf("%s does not convert", k.id())
		}
		if err != nil {
			return "", err
		}
		if len(refs) != 1 {
			return "", fmt.Errorf("%s.%s stands for %d values here, where one is taken", k.id(), export, len(refs))
		}
		return refs[0], nil
	case *ast.CallExpr:
		fn := strings.Join(path(e.Value), ".")
		switch fn {
		case "sys.env", "env":
			if len(e.Args) != 1 {
				return "", fmt.Errorf("%s takes one argument", fn)
			}
			a, err := c.lua(e.Args[0])
			if err != nil {
				return "", err
			}
			return "env(" + a + ")", nil
		}
		if fn == "coalesce" && len(e.Args) == 2 {
			// coalesce(sys.env(NAME), DEFAULT) is env's default.
			if call, ok := e.Args[0].(*ast.CallExpr); ok {
				if f := strings.Join(path(call.Value), "."); (f == "sys.env" || f == "env") && len(call.Args) == 1 {
					name, err1 := c.lua(call.Args[0])
					def, err2 := c.lua(e.Args[1])
					if err1 == nil && err2 == nil {
						return "env(" + name + ", " + def + ")", nil
					}
				}
			}
		}
		if fn == "" {
			fn = "a computed function"
		}
		return "", fmt.Errorf("%s(...): Alloy's standard library does not convert, but sys.env", fn)
	case *ast.ParenExpr:
		s, err := c.lua(e.Inner)
		return "(" + s + ")", err
	case *ast.UnaryExpr:
		if e.Kind == token.SUB {
			s, err := c.lua(e.Value)
			return "-" + s, err
		}
	case *ast.BinaryExpr:
		op, ok := map[token.Token]string{token.SUB: "-", token.MUL: "*", token.DIV: "/", token.MOD: "%", token.POW: "^", token.ADD: "+"}[e.Kind]
		if !ok {
			break
		}
		a, err := c.lua(e.Left)
		if err != nil {
			return "", err
		}
		b, err := c.lua(e.Right)
		if err != nil {
			return "", err
		}
		if e.Kind == token.ADD && (stringy(e.Left) || stringy(e.Right)) {
			op = ".."
		}
		return a + " " + op + " " + b, nil
	}
	return "", fmt.Errorf("the expression does not convert: only literals, references, sys.env and arithmetic do")
}

// stringy reports whether an operand of + is a string: a string literal,
// sys.env, a concatenation, or a file's content.
func stringy(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.LiteralExpr:
		return e.Kind == token.STRING
	case *ast.CallExpr:
		fn := strings.Join(path(e.Value), ".")
		return fn == "sys.env" || fn == "env"
	case *ast.BinaryExpr:
		return e.Kind == token.ADD && (stringy(e.Left) || stringy(e.Right))
	case *ast.ParenExpr:
		return stringy(e.Inner)
	case *ast.AccessExpr:
		return e.Name.Name == "content" || e.Name.Name == "value"
	}
	return false
}

// size converts a size written with a unit ("512MiB", "4MB") to bytes, or
// whole MiB when mib.
func size(v *yaml.Node, mib bool) (*yaml.Node, error) {
	var n int64
	switch {
	case v.Tag == "!!int":
		i, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil {
			return nil, err
		}
		n = i
	case v.Tag == convert.ExprTag && strings.HasPrefix(v.Value, `"`):
		s, err := strconv.Unquote(v.Value)
		if err != nil {
			return nil, fmt.Errorf("a size must be a literal, got %s", v.Value)
		}
		n, err = parseBytes(s)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("a size must be a literal (\"4MiB\"), got %s", v.Value)
	}
	if mib {
		if n%(1<<20) != 0 {
			return nil, fmt.Errorf("%d bytes is not a whole number of MiB, which the collector's key takes", n)
		}
		n >>= 20
	}
	return scalar("!!int", strconv.FormatInt(n, 10), v.Line), nil
}

// parseBytes parses sizes as Alloy's units.Base2Bytes does: KB and KiB
// are both 1024.
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	mult := map[string]float64{"": 1, "B": 1, "KB": 1 << 10, "KiB": 1 << 10, "MB": 1 << 20, "MiB": 1 << 20,
		"GB": 1 << 30, "GiB": 1 << 30, "TB": 1 << 40, "TiB": 1 << 40}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%q is not a size (B, KiB, MiB, GiB, TiB)", s)
	}
	return int64(f * mult), nil
}

// isZero reports whether a statement sets "0s".
func isZero(st ast.Stmt) bool {
	a, ok := st.(*ast.AttributeStmt)
	if !ok {
		return false
	}
	l, ok := a.Value.(*ast.LiteralExpr)
	return ok && l.Kind == token.STRING && (l.Value == `"0s"` || l.Value == `"0"`)
}

// isTrue reports whether a statement sets true.
func isTrue(st ast.Stmt) bool {
	a, ok := st.(*ast.AttributeStmt)
	if !ok {
		return false
	}
	l, ok := a.Value.(*ast.LiteralExpr)
	return ok && l.Kind == token.BOOL && l.Value == "true"
}
