package luabind

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/flowlua/flowlua/engine/script"
)

// maxSyntaxDepth bounds the nesting of a file's syntax tree: gopher-lua's
// compiler recurses over it, and a Go stack overflow cannot be recovered.
const maxSyntaxDepth = 500

// atLineRE finds the line a compile error message names.
var atLineRE = regexp.MustCompile(`at line (\d+)$`)

// chunk is a compiled file of the script.
type chunk struct {
	file  string
	proto *lua.FunctionProto
	// tables maps a declaration call to its literal argument table, for
	// field positions; nil when two calls share the key.
	tables map[tableKey]*ast.TableExpr
	// plugins are the namespaces of `plugin "x" { ... }` statements at
	// the file's top level.
	plugins []string
}

// compile compiles a file of the script and makes it known: positions in
// it are reported, its top-level plugin namespaces are installed.
func (ld *loader) compile(file string, src []byte) (*chunk, script.Diagnostics) {
	ch, diags := compileChunk(file, src, true)
	if diags != nil {
		return nil, diags
	}
	ld.chunks[file] = ch
	for _, ns := range ch.plugins {
		if isIdent(ns) && !forbidden[ns] && ld.L.G.Global.RawGetString(ns) == lua.LNil {
			ld.L.G.Global.RawSetString(ns, ld.nodeValue(&nsNode{path: ns, open: true, children: map[string]*nsNode{}}))
		}
	}
	return ch, nil
}

// compileChunk parses and compiles src; with index it also indexes the
// declarations' argument tables and the plugin statements.
func compileChunk(file string, src []byte, index bool) (ch *chunk, diags script.Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			ch, diags = nil, script.Diagnostics{script.Errorf(script.Pos{File: file, Line: 1}, "cannot compile: %v", r)}
		}
	}()
	if len(src) > maxSourceSize {
		return nil, script.Diagnostics{script.Errorf(script.Pos{File: file, Line: 1}, "file too large (more than %d bytes)", maxSourceSize)}
	}
	stmts, err := parse.Parse(bytes.NewReader(src), file)
	if err != nil {
		return nil, script.Diagnostics{syntaxDiagnostic(file, src, err)}
	}
	w := &walker{index: index}
	if index {
		w.tables = map[tableKey]*ast.TableExpr{}
		w.plugins = topLevelPlugins(stmts)
	}
	stmts = w.body(stmts, 0)
	if w.tooDeep > 0 {
		return nil, script.Diagnostics{script.Errorf(script.Pos{File: file, Line: w.tooDeep}, "expressions are nested too deeply (more than %d levels)", maxSyntaxDepth)}
	}
	proto, err := lua.Compile(stmts, file)
	if err != nil {
		var cerr *lua.CompileError
		if errors.As(err, &cerr) {
			line := cerr.Line
			// "no visible label 'x' for <goto> at line 2" is reported at
			// the end of the function: point at the goto.
			if m := atLineRE.FindStringSubmatch(cerr.Message); m != nil {
				line, _ = strconv.Atoi(m[1])
			}
			return nil, script.Diagnostics{script.Errorf(script.Pos{File: file, Line: max(line, 1)}, "%s", cerr.Message)}
		}
		return nil, script.Diagnostics{script.Errorf(script.Pos{File: file, Line: 1}, "%v", err)}
	}
	return &chunk{file: file, proto: proto, tables: w.tables, plugins: w.plugins}, nil
}

// syntaxDiagnostic turns a parse error into a Diagnostic.
func syntaxDiagnostic(file string, src []byte, err error) script.Diagnostic {
	var perr *parse.Error
	if !errors.As(err, &perr) {
		return script.Errorf(script.Pos{File: file, Line: 1}, "syntax error: %v", err)
	}
	if perr.Pos.Line == parse.EOF {
		line := bytes.Count(src, []byte("\n")) + 1
		if len(src) > 0 && src[len(src)-1] == '\n' {
			line--
		}
		msg := perr.Message + " at end of file"
		if perr.Message == "syntax error" && perr.Token != "" {
			msg = fmt.Sprintf("syntax error: unexpected end of file after '%s'", perr.Token)
		}
		return script.Errorf(script.Pos{File: file, Line: max(line, 1)}, "%s", msg)
	}
	msg := perr.Message
	if perr.Token != "" {
		msg += fmt.Sprintf(" near '%s'", perr.Token)
	}
	return script.Errorf(script.Pos{File: file, Line: max(perr.Pos.Line, 1)}, "%s", msg)
}

// walker checks the nesting depth of a syntax tree, indexes the argument
// tables of declarations and splits long function bodies (see body).
type walker struct {
	index   bool
	tables  map[tableKey]*ast.TableExpr
	plugins []string
	tooDeep int  // the line where the tree got too deep, or 0
	vararg  bool // the statement being walked uses ... of its function
	nodes   int  // syntax nodes walked so far
}

func (w *walker) deep(depth int, n ast.PositionHolder) bool {
	if depth <= maxSyntaxDepth {
		return false
	}
	if w.tooDeep == 0 {
		w.tooDeep = max(n.Line(), 1)
	}
	return true
}

func (w *walker) stmts(list []ast.Stmt, depth int) {
	for _, s := range list {
		w.stmt(s, depth)
	}
}

func (w *walker) exprs(list []ast.Expr, depth int) {
	for _, e := range list {
		w.expr(e, depth)
	}
}

func (w *walker) stmt(s ast.Stmt, depth int) {
	if s == nil || w.deep(depth, s) {
		return
	}
	w.nodes++
	d := depth + 1
	switch s := s.(type) {
	case *ast.AssignStmt:
		w.exprs(s.Lhs, d)
		w.exprs(s.Rhs, d)
	case *ast.LocalAssignStmt:
		w.exprs(s.Exprs, d)
	case *ast.FuncCallStmt:
		w.expr(s.Expr, d)
	case *ast.DoBlockStmt:
		w.stmts(s.Stmts, d)
	case *ast.WhileStmt:
		w.expr(s.Condition, d)
		w.stmts(s.Stmts, d)
	case *ast.RepeatStmt:
		w.expr(s.Condition, d)
		w.stmts(s.Stmts, d)
	case *ast.IfStmt:
		w.expr(s.Condition, d)
		w.stmts(s.Then, d)
		w.stmts(s.Else, d)
	case *ast.NumberForStmt:
		w.expr(s.Init, d)
		w.expr(s.Limit, d)
		w.expr(s.Step, d)
		w.stmts(s.Stmts, d)
	case *ast.GenericForStmt:
		w.exprs(s.Exprs, d)
		w.stmts(s.Stmts, d)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			w.expr(s.Name.Func, d)
			w.expr(s.Name.Receiver, d)
		}
		w.expr(s.Func, d)
	case *ast.ReturnStmt:
		w.exprs(s.Exprs, d)
	}
}

func (w *walker) expr(e ast.Expr, depth int) {
	if e == nil || w.deep(depth, e) {
		return
	}
	w.nodes++
	d := depth + 1
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		w.expr(e.Object, d)
		w.expr(e.Key, d)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			w.expr(f.Key, d)
			w.expr(f.Value, d)
		}
	case *ast.FuncCallExpr:
		w.expr(e.Func, d)
		w.expr(e.Receiver, d)
		w.exprs(e.Args, d)
		if w.index {
			w.indexCall(e)
		}
	case *ast.LogicalOpExpr:
		w.expr(e.Lhs, d)
		w.expr(e.Rhs, d)
	case *ast.RelationalOpExpr:
		w.expr(e.Lhs, d)
		w.expr(e.Rhs, d)
	case *ast.StringConcatOpExpr:
		w.expr(e.Lhs, d)
		w.expr(e.Rhs, d)
	case *ast.ArithmeticOpExpr:
		w.expr(e.Lhs, d)
		w.expr(e.Rhs, d)
	case *ast.UnaryMinusOpExpr:
		w.expr(e.Expr, d)
	case *ast.UnaryNotOpExpr:
		w.expr(e.Expr, d)
	case *ast.UnaryLenOpExpr:
		w.expr(e.Expr, d)
	case *ast.FunctionExpr:
		vararg := w.vararg
		e.Stmts = w.body(e.Stmts, d)
		w.vararg = vararg
	case *ast.Comma3Expr:
		w.vararg = true
	}
}
