package luacomponent

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

// CallStackSize bounds the nesting of Lua calls in the states of
// plugins (components and manifests).
const CallStackSize = 200

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
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: CallStackSize})
	luabind.OpenSandbox(L)
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
		L.RaiseError("unknown global %q%s", name, script.DidYouMean(string(name), globals))
		return 0
	}))
	strict.RawSetString("__metatable", lua.LString("locked"))
	L.SetMetatable(L.G.Global, strict)
}
