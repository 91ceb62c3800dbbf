package luacomponent

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// grantNames are the grants a plugin declaration can give: each makes one
// function of the os or io library available to the plugin's components.
var grantNames = []string{"io.open", "os.clock", "os.date", "os.difftime", "os.getenv", "os.time"}

// CheckGrants refuses grant names unknown to flowlua (grants name the
// functions of os and io a plugin declaration may give its components),
// with a "did you mean" hint.
func CheckGrants(grants []string) error {
	for _, g := range grants {
		if !slices.Contains(grantNames, g) {
			return fmt.Errorf("unknown grant %q%s (grants: %s)", g, script.DidYouMean(g, grantNames), strings.Join(grantNames, ", "))
		}
	}
	return nil
}

// applyGrants makes the granted functions available as os.<name> and
// io.<name>; the libraries are otherwise absent. Using a function that
// was not granted is an error naming the grant it needs.
func applyGrants(L *lua.LState, grants []string) {
	libs := map[string][]string{}
	for _, g := range grants {
		lib, fn, _ := strings.Cut(g, ".")
		libs[lib] = append(libs[lib], fn)
	}
	openers := map[string]lua.LGFunction{"os": lua.OpenOs, "io": lua.OpenIo}
	for _, lib := range script.SortedKeys(libs) {
		L.Push(L.NewFunction(openers[lib]))
		L.Push(lua.LString(lib))
		L.Call(1, 1)
		full, _ := L.Get(-1).(*lua.LTable)
		L.Pop(1)
		t := L.NewTable()
		for _, fn := range libs[lib] {
			if full != nil {
				t.RawSetString(fn, full.RawGetString(fn))
			}
		}
		L.SetMetatable(t, notGrantedMeta(L, lib, libs[lib]))
		L.SetGlobal(lib, t)
	}
}

// notGrantedMeta makes reading a missing function of a partly granted
// library an error that says which grant it needs.
func notGrantedMeta(L *lua.LState, lib string, granted []string) *lua.LTable {
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name := lua.LVAsString(L.Get(2))
		L.RaiseError("%s.%s is not available in the sandbox (granted: %s)", lib, name, lib+"."+strings.Join(granted, ", "+lib+"."))
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString("locked"))
	return mt
}
