package convert

import (
	"fmt"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/luabind/format"
)

// What converters of other config formats (promconfig) write a script
// with: the YAML reading, the value writer and the printer of this
// package, so that every converted script reads alike.

// ParseYAML parses a config, and checks that its aliases expand within
// the bounds Convert keeps (aliases.go). The error says filename:line.
func ParseYAML(src []byte, filename string) (*yaml.Node, error) {
	doc, err := parseConfig(src, filename)
	if err != nil {
		return nil, err
	}
	return resolve(doc), nil
}

// Pairs returns the keys and values of a YAML mapping, aliases followed
// and merge keys (`<<: *base`) expanded; nil for anything else.
func Pairs(n *yaml.Node) [][2]*yaml.Node {
	ps := pairs(n)
	out := make([][2]*yaml.Node, len(ps))
	for i, p := range ps {
		out[i] = [2]*yaml.Node{resolve(p.key), resolve(p.val)}
	}
	return out
}

// Resolve follows YAML aliases to the node they name.
func Resolve(n *yaml.Node) *yaml.Node { return resolve(n) }

// IsNull reports whether a node is YAML's null (`key:` with no value).
func IsNull(n *yaml.Node) bool { return isNull(n) }

// KindName names a YAML node's kind for messages: "a mapping", "a list",
// or the scalar quoted.
func KindName(n *yaml.Node) string { return kindName(n) }

// Label turns a name into a component label by the label rule (labels.go,
// rules 1-2): "" is "default", `eu-west.1` is "eu_west_1".
func Label(name string) string { return labelOf(name) }

// Value is a piece of a script: an expression or a table.
type Value interface{ lua() value }

// Expr is a Lua expression written as it is: a literal, a reference.
type Expr string

func (e Expr) lua() value { return expr(e) }

// String is a Lua string literal of s.
func String(s string) Value { return Expr(stringLit(s)) }

// Table is a Lua table constructor; entries without keys make a list.
type Table struct{ t table }

func (t *Table) lua() value { return &t.t }

// Set adds the field key = v.
func (t *Table) Set(key string, v Value) { t.t.add(key, v.lua()) }

// Append adds v to the list.
func (t *Table) Append(v Value) { t.t.add("", v.lua()) }

// Note adds a whole-line comment in place of a field.
func (t *Table) Note(comment string) { t.t.note(comment) }

// Extend adds the fields and comments of o, in order.
func (t *Table) Extend(o *Table) { t.t.entries = append(t.t.entries, o.t.entries...) }

// Len is how many fields and comments t holds.
func (t *Table) Len() int { return len(t.t.entries) }

// YAMLValues converts a YAML value as it is, the way Convert writes a
// component's config keys (mappings become tables, lists become lists,
// scalars keep their YAML types, text of several lines becomes a long
// string), except that strings are taken literally (there is no ${...}
// in other formats) and a null scalar in a mapping leaves its key out
// (its default applies). what prefixes the messages of what does not
// convert; each is noted in place, with file's base name and line, and
// returned.
func YAMLValue(n *yaml.Node, file, what string) (Value, []Problem) {
	v := &valueConv{c: &converter{base: filepath.Base(file)}, what: what, literal: true}
	holder := &table{}
	val, ok := v.value(holder, nil, n)
	var probs []Problem
	for _, l := range v.errs {
		probs = append(probs, Problem{Line: l.line, Msg: l.msg})
	}
	t := &Table{}
	switch {
	case ok:
		if tv, isTable := val.(*table); isTable {
			t.t = *tv
			return t, probs
		}
		return Expr(val.(expr)), probs
	default:
		t.t = *holder
		return t, probs
	}
}

// Script is a script being written: top-level comments and
// declarations, in order.
type Script struct{ p printer }

// Comment writes whole-line comments.
func (s *Script) Comment(text string) { s.p.comment(text) }

// Blank writes an empty line.
func (s *Script) Blank() { s.p.line(0, "") }

// Block writes a declaration: `name "label" { args }`.
func (s *Script) Block(name, label string, args *Table) {
	if args == nil {
		args = &Table{}
	}
	s.p.block(name, label, &args.t)
}

// Bytes returns the script formatted as flowlua fmt writes it.
func (s *Script) Bytes() ([]byte, error) {
	out, err := format.Source([]byte(s.p.b.String()))
	if err != nil {
		return nil, fmt.Errorf("formatting the script: %w\n%s", err, s.p.b.String())
	}
	return out, nil
}
