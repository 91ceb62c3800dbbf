package convert

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowlua/flowlua/stdlib/otelcol"
)

// resolve follows YAML aliases (`*anchor`) to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return resolve(n.Content[0])
	}
	return n
}

// pair is one key and value of a YAML mapping.
type pair struct {
	key *yaml.Node
	val *yaml.Node
}

// pairs returns the keys and values of a mapping, merge keys (`<<:
// *base`) expanded: explicit keys in order, then merged ones not
// overridden.
func pairs(n *yaml.Node) []pair {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out, merged []pair
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			v = resolve(v)
			srcs := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				srcs = v.Content
			}
			for _, s := range srcs {
				merged = append(merged, pairs(s)...)
			}
			continue
		}
		seen[k.Value] = true
		out = append(out, pair{k, v})
	}
	for _, p := range merged {
		if !seen[p.key.Value] {
			seen[p.key.Value] = true
			out = append(out, p)
		}
	}
	return out
}

// isNull reports whether a node is YAML's null (`key:` with no value).
func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// leftOut is a part of a config that does not convert.
type leftOut struct {
	line int
	msg  string
}

func (l *leftOut) Error() string { return l.msg }

// valueConv converts the config of one component.
type valueConv struct {
	c    *converter
	comp Component
	what string // "receivers::otlp", for messages
	errs []*leftOut
	// literal takes strings as they are (no ${...}, no extensions) and
	// leaves out a null scalar: for formats other than the collector's.
	literal bool
}

// body converts a component's config mapping into the arguments table.
func (v *valueConv) body(n *yaml.Node) *table {
	t := &table{}
	if isNull(n) {
		return t
	}
	if resolve(n).Kind != yaml.MappingNode {
		v.fail(t, n, "", "expected a mapping of the component's config keys, got %s", kindName(n))
		return t
	}
	v.mapping(t, nil, n)
	return t
}

// fail records what is left out and notes it in t, at its place.
func (v *valueConv) fail(t *table, n *yaml.Node, path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	l := &leftOut{line: n.Line, msg: v.what + ": " + msg}
	v.errs = append(v.errs, l)
	t.note(fmt.Sprintf("left out (%s:%d): %s", v.c.base, n.Line, msg))
}

// mapping converts the pairs of n into t, under path.
func (v *valueConv) mapping(t *table, path []string, n *yaml.Node) {
	for _, p := range pairs(n) {
		k := resolve(p.key)
		if k.Kind != yaml.ScalarNode {
			v.fail(t, k, joinPath(path), "a key must be a string, got %s", kindName(k))
			continue
		}
		sub := append(path[:len(path):len(path)], k.Value)
		if val, ok := v.value(t, sub, p.val); ok {
			t.addAt(k.Value, val, k.Line)
		}
	}
}

// value converts the value at path; false when it is left out (noted in
// parent) or has no Lua form (a null scalar: the default applies).
func (v *valueConv) value(parent *table, path []string, n *yaml.Node) (value, bool) {
	n = resolve(n)
	field := v.comp.field(path)
	switch n.Kind {
	case yaml.MappingNode:
		t := &table{}
		v.mapping(t, path, n)
		return t, true
	case yaml.SequenceNode:
		t := &table{}
		for i, e := range n.Content {
			sub := append(path[:len(path):len(path)], strconv.Itoa(i))
			if isNull(e) {
				t.addAt("", &table{}, e.Line)
				continue
			}
			if val, ok := v.value(t, sub, e); ok {
				t.addAt("", val, e.Line)
			}
		}
		return t, true
	case yaml.ScalarNode:
		if n.Tag == ExprTag {
			return expr(n.Value), true
		}
	default:
		v.fail(parent, n, joinPath(path), "unexpected YAML %s", kindName(n))
		return nil, false
	}
	switch n.Tag {
	case "!!null":
		if v.literal {
			return nil, false
		}
		// `key:` turns a section on with its defaults (`grpc:` under
		// protocols) or leaves a value at its default.
		if field == otelcol.FieldTable || field == otelcol.FieldList || field == otelcol.FieldUnknown {
			return &table{}, true
		}
		return nil, false
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			v.fail(parent, n, joinPath(path), "%v", err)
			return nil, false
		}
		return expr(strconv.FormatBool(b)), true
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return expr(strconv.FormatInt(i, 10)), true
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			return expr(strconv.FormatUint(u, 10)), true
		}
		v.fail(parent, n, joinPath(path), "integer %s is out of range", n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			v.fail(parent, n, joinPath(path), "%v", err)
			return nil, false
		}
		switch {
		case math.IsInf(f, 1):
			return expr("math.huge"), true
		case math.IsInf(f, -1):
			return expr("-math.huge"), true
		case math.IsNaN(f):
			return expr("0/0"), true
		}
		return expr(strconv.FormatFloat(f, 'g', -1, 64)), true
	}
	return v.str(parent, path, n, field)
}

// str converts a string: ${env:...} references become env() calls, and a
// string naming an extension where the config takes one becomes a
// reference to the extension's id.
func (v *valueConv) str(parent *table, path []string, n *yaml.Node, field string) (value, bool) {
	if v.literal {
		return expr(stringLit(n.Value)), true
	}
	segs, err := expand(n.Value)
	if err != nil {
		v.fail(parent, n, joinPath(path), "%v", err)
		return nil, false
	}
	if field == otelcol.FieldExtension {
		if len(segs) != 1 || segs[0].env != "" {
			v.fail(parent, n, joinPath(path), "an extension is named by its id, not computed: %q", n.Value)
			return nil, false
		}
		ref, msg := v.c.extensionRef(segs[0].lit, n.Line, v.what)
		if msg != "" {
			v.fail(parent, n, joinPath(path), "%s", msg)
			return nil, false
		}
		return expr(ref), true
	}
	for i, seg := range segs {
		if seg.file != "" {
			// The file's content, read (and watched) by a file.read
			// component; one per file.
			segs[i] = segment{lit: v.c.fileRead(seg.file, n.Line)}
			segs[i].file = seg.file
		}
	}
	parts := luaParts(segs)
	if len(segs) == 1 && segs[0].env != "" {
		// The collector types a whole-value reference as YAML would its
		// content; env() gives a string.
		switch field {
		case otelcol.FieldInteger, otelcol.FieldNumber:
			return expr("tonumber(" + parts[0] + ")"), true
		case otelcol.FieldBoolean:
			return expr(parts[0] + ` == "true"`), true
		}
	}
	return expr(strings.Join(parts, " .. ")), true
}

// luaParts writes each segment as a Lua expression: a string literal or
// an env() call.
func luaParts(segs []segment) []string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		if s.file != "" {
			parts[i] = s.lit // the reference fileRead made
			continue
		}
		if s.env == "" {
			parts[i] = stringLit(s.lit)
			continue
		}
		call := "env(" + quote(s.env)
		if s.def != nil {
			call += ", " + quote(*s.def)
		}
		parts[i] = call + ")"
	}
	return parts
}

// segment is a literal piece of a string, an environment variable or a
// file's content.
type segment struct {
	lit  string
	env  string  // the variable's name, or "" for a literal
	def  *string // its default (`:-default`), if any
	file string  // ${file:PATH}: the file's path
}

var (
	scheme   = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*):`)
	envQuery = regexp.MustCompile(`^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$`)
)

// expand splits s at the collector's ${...} references: ${env:VAR},
// ${VAR}, either with `:-default`, and ${file:PATH}; `$$` is a `$`.
// Another provider (http, yaml, ...) is an error.
func expand(s string) ([]segment, error) {
	var segs []segment
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			segs = append(segs, segment{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			lit.WriteByte('$')
			i++
		case strings.HasPrefix(s[i:], "${"):
			end := closing(s, i+2)
			if end < 0 {
				return nil, fmt.Errorf("%q: unclosed ${", s)
			}
			ref := s[i+2 : end]
			m := envQuery.FindStringSubmatch(ref)
			switch {
			case m != nil && !strings.Contains(m[2], "${"):
				flush()
				seg := segment{env: m[1]}
				if strings.Contains(ref, ":-") {
					d := m[2]
					seg.def = &d
				}
				segs = append(segs, seg)
			case m != nil:
				return nil, fmt.Errorf("${%s}: a default holding another reference does not convert", ref)
			case strings.HasPrefix(ref, "file:") && len(ref) > len("file:") && !strings.Contains(ref, "${"):
				flush()
				segs = append(segs, segment{file: strings.TrimPrefix(ref, "file:")})
			case scheme.MatchString(ref):
				p := scheme.FindStringSubmatch(ref)[1]
				return nil, fmt.Errorf("${%s}: the %s provider does not convert, only env and file do", ref, p)
			default:
				return nil, fmt.Errorf("${%s}: not an environment variable reference", ref)
			}
			i = end
		default:
			lit.WriteByte(s[i])
		}
	}
	flush()
	if len(segs) == 0 {
		segs = append(segs, segment{})
	}
	return segs, nil
}

// closing returns the index of the `}` that closes a ${ opened before
// from, or -1.
func closing(s string, from int) int {
	depth := 1
	for i := from; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "${"):
			depth++
			i++
		case s[i] == '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// kindName names a YAML node's kind for messages.
func kindName(n *yaml.Node) string {
	switch resolve(n).Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

// joinPath writes a config key path: "protocols.grpc.endpoint".
func joinPath(path []string) string { return strings.Join(path, ".") }
