package format

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// maxLine is the width beyond which the outermost table of a line is
// split (rule 1).
const maxLine = 100

// table is a table constructor that rule 1 may split.
type table struct {
	open, close int   // token indexes of its braces
	parent      int   // index in the list of tables of the table it is in, or -1
	children    []int // the tables in its fields
	seps        []int // token indexes of its separators (`,` or `;`)
	fields      int
	tableFields int // fields that hold a table
	split       bool
}

// reflow splits the tables of rule 1 that are to be split in src (laid
// out by indent), whose tokens are toks, and reports whether it changed
// anything. It never joins lines and changes no token but for the commas
// it adds.
func reflow(src []byte, toks []Token) ([]byte, bool) {
	tables := findTables(toks)
	if len(tables) == 0 {
		return src, false
	}
	lines := strings.Split(string(src), "\n")
	lineLen := func(ln int) int { return utf8.RuneCountInString(lines[ln-1]) }
	oneLine := func(t *table) bool { return toks[t.open].Line == toks[t.close].EndLine }

	// Children close before their parents: decide in order of closing.
	order := make([]int, len(tables))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return tables[a].close - tables[b].close })
	for _, i := range order {
		t := &tables[i]
		if t.fields == 0 {
			continue
		}
		switch {
		case t.tableFields > 1:
			t.split = true
		case oneLine(t) && lineLen(toks[t.open].Line) > maxLine &&
			(t.parent < 0 || !oneLine(&tables[t.parent]) || toks[tables[t.parent].open].Line != toks[t.open].Line):
			t.split = true
		default:
			for _, c := range t.children {
				if tables[c].split || !oneLine(&tables[c]) {
					t.split = true
					break
				}
			}
		}
	}

	nlBefore := make([]bool, len(toks)+1)
	commaAfter := make([]bool, len(toks))
	// breakAfter puts what follows token p on a line of its own, after
	// the comments that end p's line.
	breakAfter := func(p, limit int) {
		k := p + 1
		for k < limit && toks[k].Kind == Comment && toks[k].Line == toks[k-1].EndLine {
			k++
		}
		nlBefore[k] = true
	}
	for _, t := range tables {
		if !t.split {
			continue
		}
		breakAfter(t.open, t.close)
		for _, s := range t.seps {
			breakAfter(s, t.close)
		}
		nlBefore[t.close] = true
		last := t.close - 1
		for last > t.open && toks[last].Kind == Comment {
			last--
		}
		if last > t.open && !isSep(toks[last]) {
			commaAfter[last] = true
		}
	}

	var b strings.Builder
	changed := false
	prev := 0
	for i, t := range toks {
		gap := string(src[prev:t.Offset])
		if i > 0 && nlBefore[i] && !strings.Contains(gap, "\n") {
			gap = "\n"
			changed = true
		}
		b.WriteString(gap)
		b.WriteString(t.Text)
		if commaAfter[i] {
			b.WriteString(",")
			changed = true
		}
		prev = t.Offset + len(t.Text)
	}
	b.Write(src[prev:])
	if !changed {
		return src, false
	}
	return []byte(b.String()), true
}

// findTables returns the tables rule 1 applies to, in source order: the
// argument tables of declarations and the tables that are fields of
// those, recursively. It returns none when the brackets do not match.
func findTables(toks []Token) []table {
	type open struct {
		tok   int
		table int // index in tables, or -1: not a table rule 1 applies to
	}
	var stack []open
	var tables []table
	for i, t := range toks {
		switch {
		case t.Kind == Keyword && t.Text == "elseif":
			// Closes the block of its if's `then`; its own `then` opens the next.
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
		case t.delta() > 0:
			o := open{tok: i, table: -1}
			if t.Text == "{" && t.Kind == Punct {
				parent := -1
				if len(stack) > 0 {
					parent = stack[len(stack)-1].table
				}
				if parent >= 0 || declares(toks, i) {
					o.table = len(tables)
					tables = append(tables, table{open: i, parent: parent})
					if parent >= 0 {
						tables[parent].children = append(tables[parent].children, o.table)
					}
				}
			}
			stack = append(stack, o)
		case t.delta() < 0:
			if len(stack) == 0 {
				return nil
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if o.table >= 0 {
				if t.Text != "}" {
					return nil
				}
				tables[o.table].close = i
			}
		case isSep(t) && len(stack) > 0 && stack[len(stack)-1].table >= 0:
			tb := &tables[stack[len(stack)-1].table]
			tb.seps = append(tb.seps, i)
		}
	}
	if len(stack) > 0 {
		return nil
	}
	for i := range tables {
		t := &tables[i]
		t.fields = len(t.seps)
		last := t.open
		if len(t.seps) > 0 {
			last = t.seps[len(t.seps)-1]
		}
		for k := last + 1; k < t.close; k++ {
			if toks[k].Kind != Comment {
				t.fields++
				break
			}
		}
		holds := map[int]bool{} // fields (by the separators before them) that hold a table
		for _, c := range t.children {
			n, _ := slices.BinarySearch(t.seps, tables[c].open)
			holds[n] = true
		}
		t.tableFields = len(holds)
	}
	return tables
}

// declares reports whether the `{` at toks[i] opens the argument table of
// a declaration: `name "label" {` or `name {` (a service's block).
func declares(toks []Token, i int) bool {
	switch {
	case i >= 2 && toks[i-1].Kind == String && toks[i-2].Kind == Name:
		return true
	case i >= 1 && toks[i-1].Kind == Name:
		return true
	}
	return false
}

func isSep(t Token) bool { return t.Kind == Punct && (t.Text == "," || t.Text == ";") }
