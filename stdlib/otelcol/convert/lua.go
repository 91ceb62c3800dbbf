package convert

import (
	"fmt"
	"strings"
)

// A value is a piece of the script: an expression, or a table.
type value interface{ isValue() }

// expr is a Lua expression written as is: a literal, a reference, a call.
type expr string

// table is a Lua table constructor; entries without keys make a list.
type table struct {
	entries []entry
}

// entry is one field of a table, or a comment in its place.
type entry struct {
	key     string // "" in a list
	val     value
	comment string // a whole-line comment instead of a field
	line    int    // the config's line it comes from; 0 when unknown
}

func (expr) isValue()   {}
func (*table) isValue() {}

func (t *table) add(key string, v value) { t.entries = append(t.entries, entry{key: key, val: v}) }

// addAt adds a field that comes from the config's line.
func (t *table) addAt(key string, v value, line int) {
	t.entries = append(t.entries, entry{key: key, val: v, line: line})
}

func (t *table) note(comment string) { t.entries = append(t.entries, entry{comment: comment}) }

// inlineWidth is how wide a table written on one line may be.
const inlineWidth = 72

// luaKeywords are the words a key must be quoted as.
var luaKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
	"false": true, "for": true, "function": true, "goto": true, "if": true, "in": true,
	"local": true, "nil": true, "not": true, "or": true, "repeat": true, "return": true,
	"then": true, "true": true, "until": true, "while": true,
}

// isIdent reports whether s can be written as a bare key or a label.
func isIdent(s string) bool {
	if s == "" || luaKeywords[s] {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// luaKey writes a table key: bare when it is an identifier, else quoted.
func luaKey(k string) string {
	if isIdent(k) {
		return k
	}
	return "[" + quote(k) + "]"
}

// quote writes s as a Lua quoted string: in double quotes, or in single
// quotes when s has double quotes and no single ones (OTTL statements).
func quote(s string) string {
	q := byte('"')
	if strings.Contains(s, `"`) && !strings.Contains(s, "'") {
		q = '\''
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case q:
			b.WriteByte('\\')
			b.WriteByte(q)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03d`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte(q)
	return b.String()
}

// stringLit writes a string literal: a long bracket string for text of
// several lines (OTTL statements, templates), a quoted one otherwise.
func stringLit(s string) string {
	if !strings.Contains(s, "\n") || strings.ContainsAny(s, "\r\x00") {
		return quote(s)
	}
	eq := ""
	for strings.Contains(s+"]", "]"+eq+"]") {
		eq += "="
	}
	// A newline right after the opening bracket is not part of the string.
	return "[" + eq + "[\n" + s + "]" + eq + "]"
}

// printer writes values in the canonical style: two spaces per level, a
// table on one line when it holds only short scalars, one field per line
// otherwise, a trailing comma after each field.
type printer struct {
	b strings.Builder
	// src[i] is the config's line that the script's line i+1 comes from
	// (0: none), as cur said when it was written.
	src []int
	cur int
}

// at makes what is written next come from the config's line, when known.
func (p *printer) at(line int) {
	if line > 0 {
		p.cur = line
	}
}

func (p *printer) line(depth int, s string) {
	p.src = append(p.src, p.cur)
	if s == "" {
		p.b.WriteString("\n")
		return
	}
	p.b.WriteString(strings.Repeat("  ", depth))
	p.b.WriteString(s)
	p.b.WriteString("\n")
}

// inline returns the table on one line, or false when it goes on several.
func inline(t *table) (string, bool) {
	if len(t.entries) == 0 {
		return "{}", true
	}
	parts := make([]string, 0, len(t.entries))
	width := 4
	for _, e := range t.entries {
		x, ok := e.val.(expr)
		if e.comment != "" || !ok || strings.Contains(string(x), "\n") {
			return "", false
		}
		s := string(x)
		if e.key != "" {
			s = luaKey(e.key) + " = " + s
		}
		width += len(s) + 2
		parts = append(parts, s)
	}
	if width > inlineWidth {
		return "", false
	}
	return "{ " + strings.Join(parts, ", ") + " }", true
}

// field writes `prefix value` + suffix at depth, opening the table on
// this line when it goes on several.
func (p *printer) field(depth int, prefix string, v value, suffix string) {
	switch v := v.(type) {
	case expr:
		p.line(depth, prefix+string(v)+suffix)
	case *table:
		if s, ok := inline(v); ok {
			p.line(depth, prefix+s+suffix)
			return
		}
		p.line(depth, prefix+"{")
		p.body(depth+1, v)
		p.line(depth, "}"+suffix)
	}
}

// body writes the fields of t, one per line.
func (p *printer) body(depth int, t *table) {
	for _, e := range t.entries {
		if e.comment != "" {
			for _, l := range strings.Split(e.comment, "\n") {
				p.line(depth, "-- "+l)
			}
			continue
		}
		prefix := ""
		if e.key != "" {
			prefix = luaKey(e.key) + " = "
		}
		outer := p.cur
		p.at(e.line)
		p.field(depth, prefix, e.val, ",")
		p.cur = outer
	}
}

// block writes a declaration: `name "label" { ... }`.
func (p *printer) block(name, label string, args *table) {
	if len(args.entries) == 0 {
		p.line(0, fmt.Sprintf("%s %s {}", name, quote(label)))
		return
	}
	p.line(0, fmt.Sprintf("%s %s {", name, quote(label)))
	p.body(1, args)
	p.line(0, "}")
}

// comment writes whole-line comments at the top level.
func (p *printer) comment(s string) {
	for _, l := range strings.Split(s, "\n") {
		p.line(0, "-- "+l)
	}
}
