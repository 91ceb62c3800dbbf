package plugin

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Bounds of the sandbox.
const (
	maxStringSize = 64 << 20 // bytes of a string built by string.rep
	callStackSize = 200      // nested Lua calls
)

// unavailable are globals that do not exist in the sandbox; reading one
// is an error that says so (os and io exist with the functions granted).
var unavailable = map[string]string{
	"os":             "grant functions of os in the plugin declaration, e.g. grants = { \"os.time\" }",
	"io":             "grant io.open in the plugin declaration to read files",
	"debug":          "",
	"package":        "use require for the plugin's own modules",
	"dofile":         "",
	"loadfile":       "",
	"collectgarbage": "",
	"module":         "",
	"coroutine":      "",
	"channel":        "",
	"newproxy":       "",
	"_printregs":     "",
}

// newSandbox returns a Lua state with base (without dofile, loadfile,
// collectgarbage and module; load and loadstring take text only), string,
// table and math, plus the granted functions of os and io. The caller
// adds its globals, then calls lockGlobals.
func newSandbox(grants []string) *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: callStackSize})
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
	for name := range unavailable {
		g.RawSetString(name, lua.LNil)
	}
	g.RawSetString("require", lua.LNil)
	g.RawSetString("load", L.NewFunction(loadText))
	g.RawSetString("loadstring", L.NewFunction(loadText))
	if strlib, ok := g.RawGetString(lua.StringLibName).(*lua.LTable); ok {
		boundStringLib(L, strlib)
	}
	applyGrants(L, grants)
	return L
}

// lockGlobals makes reading an undefined global an error (with a "did
// you mean" hint), so that typos fail where they are made. Assigning
// globals stays allowed.
func lockGlobals(L *lua.LState) {
	strict := L.NewTable()
	strict.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name, ok := L.Get(2).(lua.LString)
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		if hint, ok := unavailable[string(name)]; ok {
			if hint != "" {
				hint = " (" + hint + ")"
			}
			L.RaiseError("%s is not available in the sandbox%s", name, hint)
		}
		var globals []string
		L.G.Global.ForEach(func(k, _ lua.LValue) {
			if s, ok := k.(lua.LString); ok {
				globals = append(globals, string(s))
			}
		})
		L.RaiseError("unknown global %q%s", name, didYouMean(string(name), globals))
		return 0
	}))
	strict.RawSetString("__metatable", lua.LString("locked"))
	L.SetMetatable(L.G.Global, strict)
}

// loadText replaces base load and loadstring: text chunks only.
func loadText(L *lua.LState) int {
	src, ok := L.Get(1).(lua.LString)
	if !ok {
		L.RaiseError("load: only text chunks are allowed in the sandbox, got %s", L.Get(1).Type())
		return 0
	}
	if strings.HasPrefix(string(src), "\x1b") {
		L.RaiseError("load: binary chunks are not allowed in the sandbox")
		return 0
	}
	fn, err := L.LoadString(string(src))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(fn)
	return 1
}

// boundStringLib bounds string.rep, which could build a huge string in
// one call that no deadline interrupts.
func boundStringLib(L *lua.LState, strlib *lua.LTable) {
	if rep, ok := strlib.RawGetString("rep").(*lua.LFunction); ok && rep.IsG {
		orig := rep.GFunction
		strlib.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
			s := L.CheckString(1)
			n := L.CheckNumber(2)
			if float64(n)*float64(len(s)) > maxStringSize {
				L.RaiseError("string.rep: result too large (limit %d bytes)", maxStringSize)
			}
			return orig(L)
		}))
	}
	if format, ok := strlib.RawGetString("format").(*lua.LFunction); ok && format.IsG {
		orig := format.GFunction
		strlib.RawSetString("format", L.NewFunction(func(L *lua.LState) int {
			if !formatWidthsOK(L.CheckString(1)) {
				L.RaiseError("invalid format (width or precision too long)")
			}
			return orig(L)
		}))
	}
	strlib.RawSetString("dump", lua.LNil)
}

// formatWidthsOK reports whether every directive of a format string has a
// width and a precision of at most two digits, as in C Lua.
func formatWidthsOK(f string) bool {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		for part := 0; part < 2; part++ {
			digits := 0
			for i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '*') {
				if f[i] == '*' {
					return false
				}
				digits++
				i++
			}
			if digits > 2 {
				return false
			}
			if part == 0 && i < len(f) && f[i] == '.' {
				i++
				continue
			}
			break
		}
	}
	return true
}
