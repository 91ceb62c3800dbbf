package luabind

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// SandboxRemoved are the globals of Lua's base library that no sandboxed
// state keeps: file and process access, bytecode, and the module system.
var SandboxRemoved = []string{
	"os", "io", "debug", "package", "dofile", "loadfile", "collectgarbage",
	"module", "coroutine", "channel", "_printregs", "newproxy", "require",
}

// OpenSandbox opens in L the libraries every flowlua state gets — base,
// string, table and math — removes SandboxRemoved, makes load and
// loadstring take text chunks only (LoadText), and bounds the builtins
// that could build a huge string in one call (see bounded.go) by
// DefaultMemoryLimit. L must have been created with SkipOpenLibs.
// Pipeline scripts and plugins both start here; each then adds its own
// globals (and grants, for plugins).
func OpenSandbox(L *lua.LState) { OpenSandboxLimit(L, DefaultMemoryLimit) }

// OpenSandboxLimit is OpenSandbox with the builtins bounded by limit
// bytes, unless the call that runs them has a luamem.Guard with a limit
// of its own.
func OpenSandboxLimit(L *lua.LState, limit int64) {
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.StringLibName, lua.OpenString},
		{lua.TabLibName, lua.OpenTable},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range SandboxRemoved {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("load", L.NewFunction(LoadText))
	g.RawSetString("loadstring", L.NewFunction(LoadText))
	b := &bounds{limit: limit}
	if strlib, ok := g.RawGetString(lua.StringLibName).(*lua.LTable); ok {
		boundStringLib(L, strlib, b)
	}
	if tablib, ok := g.RawGetString(lua.TabLibName).(*lua.LTable); ok {
		tablib.RawSetString("concat", L.NewFunction(b.concat))
	}
}

// LoadText is base load for a sandbox: it compiles text chunks only and
// refuses bytecode.
func LoadText(L *lua.LState) int {
	src, ok := L.Get(1).(lua.LString)
	if !ok {
		L.RaiseError("load: only text chunks are allowed in the sandbox, got %s", L.Get(1).Type())
		return 0
	}
	if strings.HasPrefix(string(src), "\x1b") {
		L.RaiseError("load: binary chunks are not allowed in the sandbox")
		return 0
	}
	if len(src) > maxSourceSize {
		L.RaiseError("load: a chunk is at most %d MiB, got %d bytes", maxSourceSize>>20, len(src))
		return 0
	}
	fn, err := L.Load(strings.NewReader(string(src)), L.OptString(2, "(load)"))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(fn)
	return 1
}

// StringRemoved are the functions of Lua's string library that no
// sandboxed state keeps: dump writes bytecode.
var StringRemoved = []string{"dump"}

// boundStringLib bounds the string functions that could build a huge
// string in one call, which no deadline interrupts, and removes
// StringRemoved: reading one is an error that names it, as reading a
// removed global is.
func boundStringLib(L *lua.LState, strlib *lua.LTable, b *bounds) {
	if rep, ok := strlib.RawGetString("rep").(*lua.LFunction); ok && rep.IsG {
		strlib.RawSetString("rep", L.NewFunction(b.rep(rep.GFunction)))
	}
	if format, ok := strlib.RawGetString("format").(*lua.LFunction); ok && format.IsG {
		strlib.RawSetString("format", L.NewFunction(b.format(format.GFunction)))
	}
	strlib.RawSetString("gsub", L.NewFunction(b.gsub))
	strlib.RawSetString("gmatch", L.NewFunction(gmatch))
	strlib.RawSetString("gfind", L.NewFunction(gmatch))
	for _, name := range StringRemoved {
		strlib.RawSetString(name, lua.LNil)
	}
	L.SetMetatable(strlib, removedMeta(L, lua.StringLibName, StringRemoved))
}

// removedMeta makes reading one of the removed functions of the library
// lib an error naming it; reading any other missing name gives nil.
func removedMeta(L *lua.LState, lib string, removed []string) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name := lua.LVAsString(L.Get(2))
		if slices.Contains(removed, name) {
			L.RaiseError("%s.%s is not available in the sandbox", lib, name)
		}
		L.Push(lua.LNil)
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("locked"))
	return mt
}

// formatWidthsOK reports whether every directive of a format string has a
// width and precision of at most two digits, as in C Lua.
func formatWidthsOK(f string) bool {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		digits := 0
		for i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '*' || f[i] == '[') {
			if f[i] == '*' || f[i] == '[' {
				return false
			}
			digits++
			i++
		}
		if digits > 2 {
			return false
		}
		if i < len(f) && f[i] == '.' {
			i++
			digits = 0
			for i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '*' || f[i] == '[') {
				if f[i] == '*' || f[i] == '[' {
					return false
				}
				digits++
				i++
			}
			if digits > 2 {
				return false
			}
		}
	}
	return true
}
