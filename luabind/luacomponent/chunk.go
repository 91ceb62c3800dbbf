package luacomponent

import (
	"bytes"
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/flowlua/flowlua/engine/script"
)

// Chunk is a compiled Lua file of a plugin. Its proto is shared by every
// state that runs it (a FunctionProto is immutable).
type Chunk struct {
	file  string // as shown in messages and tracebacks
	proto *lua.FunctionProto
	// lines maps the field paths of the table the file returns
	// ("version", "args.keys") to their lines, when it is a literal.
	lines map[string]int
}

// Compile parses and compiles a file; a syntax error is a Diagnostic at
// its line.
func Compile(file string, src []byte) (ch *Chunk, err error) {
	defer func() {
		if r := recover(); r != nil {
			ch, err = nil, script.Errorf(script.Pos{File: file, Line: 1}, "cannot compile: %v", r)
		}
	}()
	stmts, err := parse.Parse(bytes.NewReader(src), file)
	if err != nil {
		return nil, syntaxError(file, src, err)
	}
	proto, err := lua.Compile(stmts, file)
	if err != nil {
		var cerr *lua.CompileError
		if errors.As(err, &cerr) {
			return nil, script.Errorf(script.Pos{File: file, Line: max(cerr.Line, 1)}, "%s", cerr.Message)
		}
		return nil, script.Errorf(script.Pos{File: file, Line: 1}, "%v", err)
	}
	return &Chunk{file: file, proto: proto, lines: returnedFieldLines(stmts)}, nil
}

// syntaxError turns a parse error into a Diagnostic at its line.
func syntaxError(file string, src []byte, err error) script.Diagnostic {
	var perr *parse.Error
	if !errors.As(err, &perr) {
		return script.Errorf(script.Pos{File: file, Line: 1}, "syntax error: %v", err)
	}
	if perr.Pos.Line == parse.EOF {
		line := max(bytes.Count(bytes.TrimRight(src, "\n"), []byte("\n"))+1, 1)
		return script.Errorf(script.Pos{File: file, Line: line}, "%s at end of file", perr.Message)
	}
	msg := perr.Message
	if perr.Token != "" {
		msg += fmt.Sprintf(" near '%s'", perr.Token)
	}
	return script.Errorf(script.Pos{File: file, Line: max(perr.Pos.Line, 1)}, "%s", msg)
}

// File returns the file's name as messages show it.
func (c *Chunk) File() string { return c.file }

// Proto returns the compiled file, to run in any state.
func (c *Chunk) Proto() *lua.FunctionProto { return c.proto }

// Pos returns the position of a field path of the table the file
// returns, or of its closest parent that has one, or line 1.
func (c *Chunk) Pos(path string) script.Pos {
	b := script.Block{Pos: script.Pos{File: c.file, Line: 1}, FieldPos: map[string]script.Pos{}}
	for p, line := range c.lines {
		b.FieldPos[p] = script.Pos{File: c.file, Line: line}
	}
	return b.PosOf(path)
}

// returnedFieldLines maps the fields of the table literal a file returns
// (directly, or through a local or global it assigned the table to) to
// their lines, two levels deep.
func returnedFieldLines(stmts []ast.Stmt) map[string]int {
	tables := map[string]*ast.TableExpr{}
	var returned ast.Expr
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.LocalAssignStmt:
			for i, name := range s.Names {
				if i < len(s.Exprs) {
					if t, ok := s.Exprs[i].(*ast.TableExpr); ok {
						tables[name] = t
					}
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range s.Lhs {
				if id, ok := lhs.(*ast.IdentExpr); ok && i < len(s.Rhs) {
					if t, ok := s.Rhs[i].(*ast.TableExpr); ok {
						tables[id.Value] = t
					}
				}
			}
		case *ast.ReturnStmt:
			if len(s.Exprs) == 1 {
				returned = s.Exprs[0]
			}
		}
	}
	var t *ast.TableExpr
	switch r := returned.(type) {
	case *ast.TableExpr:
		t = r
	case *ast.IdentExpr:
		t = tables[r.Value]
	}
	lines := map[string]int{}
	if t != nil {
		tableLines(lines, "", t, 2)
	}
	return lines
}

// tableLines records the line of each named field of t under prefix.
func tableLines(lines map[string]int, prefix string, t *ast.TableExpr, depth int) {
	for _, f := range t.Fields {
		k, ok := f.Key.(*ast.StringExpr)
		if !ok || f.Value == nil {
			continue
		}
		p := k.Value
		if prefix != "" {
			p = prefix + "." + p
		}
		lines[p] = f.Value.Line()
		if k.Line() > 0 {
			lines[p] = k.Line()
		}
		if inner, ok := f.Value.(*ast.TableExpr); ok && depth > 1 {
			tableLines(lines, p, inner, depth-1)
		}
	}
}
