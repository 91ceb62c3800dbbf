package luabind

import (
	"github.com/yuin/gopher-lua/ast"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// tableKey identifies a declaration in a file: the line of its call and
// its label, dynamicLabel for a label computed at run time
// (`file.read(name) { ... }`), or "=" and the service name for
// `http { ... }`.
type tableKey struct {
	line int
	key  string
}

// dynamicLabel is the key of a declaration whose label is not a literal;
// no label can be "*".
const dynamicLabel = "*"

// topLevelPlugins finds `plugin "x" ...` statements at the top level of a
// file, so that references into a plugin namespace work before the plugin
// statement runs (references are order-independent).
func topLevelPlugins(stmts []ast.Stmt) []string {
	var out []string
	for _, s := range stmts {
		call, ok := s.(*ast.FuncCallStmt)
		if !ok {
			continue
		}
		outer, ok := call.Expr.(*ast.FuncCallExpr)
		if !ok {
			continue
		}
		// plugin "x" { ... } is a call of the call plugin "x".
		inner, ok := outer.Func.(*ast.FuncCallExpr)
		if !ok {
			inner = outer
		}
		if fn, ok := inner.Func.(*ast.IdentExpr); ok && fn.Value == "plugin" && len(inner.Args) == 1 {
			if s, ok := inner.Args[0].(*ast.StringExpr); ok {
				out = append(out, s.Value)
			}
		}
	}
	return out
}

// indexCall indexes `X "label" { ... }` and `name { ... }` calls by the
// line and label the loader sees when the declaration runs: the line of
// the call's first token.
func (w *walker) indexCall(e *ast.FuncCallExpr) {
	if e.Receiver != nil || len(e.Args) != 1 {
		return
	}
	t, ok := e.Args[0].(*ast.TableExpr)
	if !ok {
		return
	}
	var key tableKey
	switch fn := e.Func.(type) {
	case *ast.FuncCallExpr:
		if fn.Receiver != nil || len(fn.Args) != 1 {
			return
		}
		key = tableKey{line: fn.Line(), key: dynamicLabel}
		if label, ok := fn.Args[0].(*ast.StringExpr); ok {
			key.key = label.Value
		}
	case *ast.IdentExpr:
		key = tableKey{line: e.Line(), key: "=" + fn.Value}
	default:
		return
	}
	if prev, dup := w.tables[key]; dup && prev != t {
		w.tables[key] = nil
		return
	}
	w.tables[key] = t
}

// fieldPositions maps the field paths of a declaration's literal argument
// table to their lines, or returns nil when the table is not literal.
func (ld *loader) fieldPositions(d *decl) map[string]script.Pos {
	ch := ld.chunks[d.pos.File]
	if ch == nil {
		return nil
	}
	key := tableKey{line: d.pos.Line, key: d.label}
	if d.kind == declService {
		key.key = "=" + d.name
	}
	t, ok := ch.tables[key]
	if !ok && d.kind != declService {
		t = ch.tables[tableKey{line: d.pos.Line, key: dynamicLabel}]
	}
	if t == nil {
		return nil
	}
	out := map[string]script.Pos{}
	addFieldPositions(d.pos.File, t, "", out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// addFieldPositions records the line of each field of a table constructor
// (the line of its key, or of its value for list items), recursively.
func addFieldPositions(file string, t *ast.TableExpr, path string, out map[string]script.Pos) {
	item := 0
	for _, f := range t.Fields {
		var p string
		line := 0
		switch k := f.Key.(type) {
		case nil:
			p = decode.JoinIndex(path, item)
			item++
		case *ast.StringExpr:
			p = decode.JoinField(path, k.Value)
			line = k.Line()
		default:
			continue
		}
		if line <= 0 && f.Value != nil {
			line = f.Value.Line()
		}
		if line > 0 {
			out[p] = script.Pos{File: file, Line: line}
		}
		if sub, ok := f.Value.(*ast.TableExpr); ok {
			addFieldPositions(file, sub, p, out)
		}
	}
}
