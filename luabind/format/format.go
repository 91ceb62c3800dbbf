// Package format formats pipeline scripts in the canonical style of
// flowlua's examples (`flowlua fmt`). It works on tokens, not on a syntax
// tree, so that comments are kept where they are written:
//
//  1. Lines are joined never, and split only in the argument tables of
//     declarations (`name "label" { ... }`, `service { ... }`) and the
//     tables nested in them (not in function bodies): such a table is
//     written one field per line, its braces on lines of their own and a
//     comma after its last field, when two or more of its fields hold a
//     table (`output = { traces = {...}, logs = {...} }`), when a table
//     in it spans several lines, or when it is the outermost table of a
//     line longer than 100 columns. Other tables stay as written:
//     `{ endpoint = "x", tls = { insecure = true } }`, `{ x.input, y.input }`.
//     A comment stays at the end of the line it ends.
//  2. Each line is indented by two spaces per open block: tables,
//     parentheses, function/do/then/repeat bodies; a line that starts by
//     closing a block (`}`, `end`, `else`, ...) is indented as the line
//     that opened it.
//  3. Trailing spaces go, runs of blank lines shrink to one, and the file
//     ends with one newline. Long strings and long comments are left as
//     they are, inside and out.
//  4. In an output table, consecutive `traces = ...`, `metrics = ...`,
//     `logs = ...` lines have their `=` aligned.
//
// Formatting a formatted script changes nothing, and the tokens of a
// script (comments included) are those of its formatted form, but for the
// commas rule 1 adds.
package format

import (
	"fmt"
	"regexp"
	"strings"
)

// maxReflows bounds the rounds of reflow: each round only splits lines,
// so that a script of n tokens needs at most n.
const maxReflows = 64

// Source formats a script.
func Source(src []byte) ([]byte, error) {
	toks, err := Tokens(src)
	if err != nil {
		return nil, err
	}
	out := indent(src, toks)
	// Splitting a line may make a table's line long or another table
	// multi-line: reflow until nothing changes.
	for range maxReflows {
		toks, err := Tokens(out)
		if err != nil {
			return nil, err
		}
		next, changed := reflow(out, toks)
		if !changed {
			break
		}
		toks, err = Tokens(next)
		if err != nil {
			return nil, err
		}
		out = indent(next, toks)
	}
	return out, nil
}

// indent applies rules 2 to 4 to src, whose tokens are toks.
func indent(src []byte, toks []Token) []byte {
	lines := strings.Split(string(src), "\n")
	// For each line: the depth at its start, its leading closers, and
	// whether it starts inside a long string or comment (kept verbatim).
	type info struct {
		level    int
		verbatim bool
	}
	infos := make([]info, len(lines))
	for _, t := range toks {
		// A token spanning lines (long string or comment) makes the lines
		// after its first verbatim.
		for l := t.Line + 1; l <= t.EndLine && l <= len(lines); l++ {
			infos[l-1].verbatim = true
		}
	}
	// stack holds, for each open block, the indentation of its content:
	// one more than the line that opened it, however many blocks that
	// line opened.
	var stack []int
	pop := func() {
		if len(stack) > 0 {
			stack = stack[:len(stack)-1]
		}
	}
	ti := 0
	for ln := range lines {
		level := -1
		for ti < len(toks) && toks[ti].Line == ln+1 {
			t := toks[ti]
			ti++
			if level < 0 && !t.closesFirst() {
				level = top(stack)
			}
			switch {
			case t.Text == "else" && t.Kind == Keyword:
				pop()
				if level < 0 {
					level = top(stack)
				}
				stack = append(stack, level+1)
			case t.delta() < 0:
				pop()
			case t.delta() > 0:
				if level < 0 {
					level = top(stack)
				}
				stack = append(stack, level+1)
			}
		}
		if level < 0 {
			level = top(stack)
		}
		infos[ln].level = level
	}
	var out []string
	blank := 0
	for ln, line := range lines {
		if infos[ln].verbatim {
			out = append(out, line)
			blank = 0
			continue
		}
		text := strings.TrimSpace(line)
		if text == "" {
			blank++
			continue
		}
		if blank > 0 && len(out) > 0 {
			out = append(out, "")
		}
		blank = 0
		out = append(out, strings.Repeat("  ", infos[ln].level)+text)
	}
	out = alignOutputs(out)
	res := strings.Join(out, "\n")
	res = strings.TrimRight(res, "\n") + "\n"
	if strings.TrimSpace(res) == "" {
		return []byte{}
	}
	return []byte(res)
}

var signalLine = regexp.MustCompile(`^(\s*)(traces|metrics|logs)\s*=\s*(.*)$`)

// alignOutputs aligns the `=` of runs of consecutive signal lines with
// the same indentation.
func alignOutputs(lines []string) []string {
	for i := 0; i < len(lines); {
		m := signalLine.FindStringSubmatch(lines[i])
		if m == nil {
			i++
			continue
		}
		j := i
		width := 0
		for j < len(lines) {
			mj := signalLine.FindStringSubmatch(lines[j])
			if mj == nil || mj[1] != m[1] {
				break
			}
			width = max(width, len(mj[2]))
			j++
		}
		if j-i > 1 {
			for k := i; k < j; k++ {
				mk := signalLine.FindStringSubmatch(lines[k])
				lines[k] = mk[1] + mk[2] + strings.Repeat(" ", width-len(mk[2])) + " = " + mk[3]
			}
		}
		i = j
	}
	return lines
}

func top(stack []int) int {
	if len(stack) == 0 {
		return 0
	}
	return stack[len(stack)-1]
}

// Token is a token of a script.
type Token struct {
	Kind    Kind
	Text    string
	Line    int // 1-based line of its first character
	EndLine int // line of its last character
	Offset  int // byte offset of its first character
}

// Kind is a token's kind.
type Kind int

// The kinds of token.
const (
	Name Kind = iota
	Keyword
	String
	Number
	Comment
	Punct
)

var keywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
	"false": true, "for": true, "function": true, "goto": true, "if": true, "in": true,
	"local": true, "nil": true, "not": true, "or": true, "repeat": true, "return": true,
	"then": true, "true": true, "until": true, "while": true,
}

// delta is how the token changes the block depth.
func (t Token) delta() int {
	switch {
	case t.Kind == Punct && (t.Text == "{" || t.Text == "(" || t.Text == "["):
		return 1
	case t.Kind == Punct && (t.Text == "}" || t.Text == ")" || t.Text == "]"):
		return -1
	case t.Kind == Keyword:
		switch t.Text {
		case "function", "do", "then", "repeat":
			return 1
		case "end", "until", "elseif":
			return -1
		}
	}
	return 0
}

// closesFirst reports whether a line starting with the token is indented
// one level less than its depth.
func (t Token) closesFirst() bool {
	switch {
	case t.Kind == Punct:
		return t.Text == "}" || t.Text == ")" || t.Text == "]"
	case t.Kind == Keyword:
		return t.Text == "end" || t.Text == "until" || t.Text == "else" || t.Text == "elseif"
	}
	return false
}

// Tokens splits a script into tokens, comments included.
func Tokens(src []byte) ([]Token, error) {
	s := string(src)
	var out []Token
	line := 1
	i := 0
	if strings.HasPrefix(s, "#!") {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	emit := func(k Kind, start, end int) {
		text := s[start:end]
		out = append(out, Token{Kind: k, Text: text, Line: line, EndLine: line + strings.Count(text, "\n"), Offset: start})
		line += strings.Count(text, "\n")
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(s[i:], "--"):
			start := i
			i += 2
			if n, ok := longOpen(s[i:]); ok {
				end := strings.Index(s[i:], "]"+strings.Repeat("=", n)+"]")
				if end < 0 {
					return nil, fmt.Errorf("line %d: unfinished long comment", line)
				}
				i += end + n + 2
			} else {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			}
			emit(Comment, start, i)
		case c == '[':
			if n, ok := longOpen(s[i:]); ok {
				start := i
				end := strings.Index(s[i+n+2:], "]"+strings.Repeat("=", n)+"]")
				if end < 0 {
					return nil, fmt.Errorf("line %d: unfinished long string", line)
				}
				i += n + 2 + end + n + 2
				emit(String, start, i)
				continue
			}
			emit(Punct, i, i+1)
			i++
		case c == '"' || c == '\'':
			start := i
			i++
			for i < len(s) && s[i] != c {
				if s[i] == '\\' {
					i++
				} else if s[i] == '\n' {
					return nil, fmt.Errorf("line %d: unfinished string", line)
				}
				i++
			}
			if i >= len(s) {
				return nil, fmt.Errorf("line %d: unfinished string", line)
			}
			i++
			emit(String, start, i)
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			start := i
			for i < len(s) && (isAlnum(s[i]) || s[i] == '.' ||
				(s[i] == '+' || s[i] == '-') && (s[i-1] == 'e' || s[i-1] == 'E' || s[i-1] == 'p' || s[i-1] == 'P')) {
				i++
			}
			emit(Number, start, i)
		case isAlpha(c):
			start := i
			for i < len(s) && isAlnum(s[i]) {
				i++
			}
			k := Name
			if keywords[s[start:i]] {
				k = Keyword
			}
			emit(k, start, i)
		default:
			n := 1
			for _, op := range []string{"...", "..", "==", "~=", "<=", ">=", "::", "//"} {
				if strings.HasPrefix(s[i:], op) {
					n = len(op)
					break
				}
			}
			emit(Punct, i, i+n)
			i += n
		}
	}
	return out, nil
}

// longOpen reports whether s starts a long bracket ([[, [=[, ...) and its
// level.
func longOpen(s string) (int, bool) {
	if !strings.HasPrefix(s, "[") {
		return 0, false
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1, true
	}
	return 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }
