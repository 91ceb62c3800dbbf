package luabind

import "github.com/yuin/gopher-lua/ast"

// minSplit is the length from which a body's statements are split into
// closures; splitGroup is the size, in syntax nodes, of a group of
// statements sharing one closure.
const (
	minSplit   = 16
	splitGroup = 256
)

// body walks the statements of a chunk or function and returns them,
// split when there are many: gopher-lua's compiler looks up each constant
// of a function linearly, so a function holding a whole pipeline's
// constants compiles in quadratic time. Consecutive calls and assignments
// (the declarations) are wrapped in closures called in place, a group of
// about splitGroup syntax nodes each:
//
//	s1; s2         becomes  (function() s1; s2 end)()
//	local a = e    becomes  local a = (function() return e end)()
//
// A statement using ... of its function is left alone, and so is a local
// function declaration (`local function f` must see itself).
func (w *walker) body(list []ast.Stmt, depth int) []ast.Stmt {
	split := len(list) >= minSplit
	out := list[:0:0]
	var group []ast.Stmt
	size := 0
	flush := func() {
		switch len(group) {
		case 0:
		case 1:
			out = append(out, wrapStmt(group[0]))
		default:
			out = append(out, wrapGroup(group))
		}
		group, size = nil, 0
	}
	for _, s := range list {
		w.vararg = false
		before := w.nodes
		w.stmt(s, depth)
		if !split || w.vararg || w.tooDeep > 0 {
			flush()
			out = append(out, s)
			continue
		}
		switch s.(type) {
		case *ast.FuncCallStmt, *ast.AssignStmt:
			group = append(group, s)
			if size += w.nodes - before; size >= splitGroup {
				flush()
			}
		default:
			flush()
			out = append(out, wrapStmt(s))
		}
	}
	flush()
	return out
}

// closure returns `(function() stmts end)()` positioned at lines
// first..last.
func closure(first, last int, stmts ...ast.Stmt) *ast.FuncCallExpr {
	fn := &ast.FunctionExpr{ParList: &ast.ParList{Names: []string{}}, Stmts: stmts}
	fn.SetLine(first)
	fn.SetLastLine(max(first, last))
	call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{}}
	call.SetLine(first)
	call.SetLastLine(fn.LastLine())
	return call
}

// wrapGroup wraps statements that declare no locals in one closure.
func wrapGroup(stmts []ast.Stmt) ast.Stmt {
	first, last := stmts[0], stmts[len(stmts)-1]
	out := &ast.FuncCallStmt{Expr: closure(first.Line(), max(last.LastLine(), last.Line()), stmts...)}
	out.SetLine(first.Line())
	out.SetLastLine(max(last.LastLine(), last.Line()))
	return out
}

// wrapStmt wraps a call or an assignment in a closure; other statements
// are returned as they are.
func wrapStmt(s ast.Stmt) ast.Stmt {
	last := max(s.LastLine(), s.Line())
	returning := func(exprs []ast.Expr) []ast.Expr {
		ret := &ast.ReturnStmt{Exprs: exprs}
		ret.SetLine(s.Line())
		ret.SetLastLine(last)
		return []ast.Expr{closure(s.Line(), last, ret)}
	}
	switch st := s.(type) {
	case *ast.FuncCallStmt:
		return wrapGroup([]ast.Stmt{st})
	case *ast.LocalAssignStmt:
		for _, e := range st.Exprs {
			if _, ok := e.(*ast.FunctionExpr); ok {
				return s
			}
		}
		if len(st.Exprs) > 0 {
			out := &ast.LocalAssignStmt{Names: st.Names, Exprs: returning(st.Exprs)}
			out.SetLine(st.Line())
			out.SetLastLine(last)
			return out
		}
	case *ast.AssignStmt:
		out := &ast.AssignStmt{Lhs: st.Lhs, Rhs: returning(st.Rhs)}
		out.SetLine(st.Line())
		out.SetLastLine(last)
		return out
	}
	return s
}
