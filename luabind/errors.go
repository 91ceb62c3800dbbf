package luabind

import (
	"errors"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// errorHandler is the message handler of every protected call into the
// script. It runs where the error happened, before the stack unwinds, and
// turns the error value into a Diagnostic: the position comes from the
// "file:line:" prefix gopher-lua gives messages, or else from the innermost
// Lua code in a script file (for error(msg, 0) or non-string errors).
func (ld *loader) errorHandler(L *lua.LState) int {
	obj := L.Get(1)
	if _, ok := diagnosticOf(obj); ok {
		L.Push(obj)
		return 1
	}
	var msg string
	switch v := obj.(type) {
	case lua.LString:
		msg = string(v)
	case lua.LNumber:
		msg = v.String()
	default:
		msg = "error object is a " + obj.Type().String() + " value"
	}
	pos, msg := ld.splitPos(msg)
	if pos.File == "" {
		pos = ld.luaPos(L, 1)
	}
	L.Push(ld.newUserData(&script.Diagnostic{Pos: pos, Message: msg}, nil))
	return 1
}

// splitPos splits a "file:line: " prefix naming a file of the script off
// a Lua error message, and drops any stack traceback.
func (ld *loader) splitPos(msg string) (script.Pos, string) {
	msg = cleanMessage(msg)
	for file := range ld.chunks {
		rest, ok := strings.CutPrefix(msg, file+":")
		if !ok {
			continue
		}
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i >= len(rest) || rest[i] != ':' {
			continue
		}
		line, err := strconv.Atoi(rest[:i])
		if err != nil {
			continue
		}
		return script.Pos{File: file, Line: line}, strings.TrimSpace(rest[i+1:])
	}
	return script.Pos{}, msg
}

// errorDiagnostic turns an error returned by PCall into a Diagnostic.
func (ld *loader) errorDiagnostic(err error, fallback script.Pos) script.Diagnostic {
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) {
		if d, ok := diagnosticOf(apiErr.Object); ok {
			return d
		}
		if s, ok := apiErr.Object.(lua.LString); ok {
			pos, msg := ld.splitPos(string(s))
			if pos.File == "" {
				pos = fallback
			}
			return script.Diagnostic{Pos: pos, Message: msg}
		}
	}
	return script.Diagnostic{Pos: fallback, Message: cleanMessage(err.Error())}
}

// sortDiagnostics orders the diagnostics by position and drops repeats (a
// mistake inside a loop is reported once).
func sortDiagnostics(ds script.Diagnostics) script.Diagnostics {
	ds.Sort()
	out := ds[:0]
	for i, d := range ds {
		if i > 0 && d == ds[i-1] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// cleanMessage keeps the first line of a Lua error message, dropping the
// stack traceback gopher-lua appends.
func cleanMessage(msg string) string {
	if i := strings.Index(msg, "\nstack traceback:"); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}
