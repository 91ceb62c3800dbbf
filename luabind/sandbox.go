package luabind

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// forbidden are the globals a script may not use (SandboxRemoved); reading
// one is an error that says so, rather than "unknown name".
var forbidden = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range SandboxRemoved {
		m[name] = true
	}
	return m
}()

// newState builds the sandboxed Lua state and binds flowlua's globals.
func (ld *loader) newState() error {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	ld.L = L
	OpenSandbox(L)
	g := L.G.Global
	g.RawSetString("load", L.NewFunction(ld.load))
	g.RawSetString("loadstring", L.NewFunction(ld.load))
	g.RawSetString("print", L.NewFunction(ld.print))

	ld.mt = ld.newMetatables()
	ld.sink = ld.newUserData(&unknownRef{rec: &unknownRecord{reported: true}}, ld.mt.unknown)
	ld.errFunc = L.NewFunction(ld.errorHandler)
	ld.rt = &runtime{L: L, ld: ld}

	builtins := map[string]lua.LGFunction{
		"env":     ld.env,
		"compute": ld.compute,
		"require": ld.require,
		"plugin":  ld.plugin,
		"module":  ld.defineModule,
	}
	for name, fn := range builtins {
		g.RawSetString(name, L.NewFunction(fn))
	}
	for _, name := range sortedKeys(ld.names.children) {
		if g.RawGetString(name) != lua.LNil || forbidden[name] {
			return fmt.Errorf("luabind: component namespace %q clashes with a global of the same name", name)
		}
		g.RawSetString(name, ld.nodeValue(ld.names.children[name]))
	}
	for _, name := range sortedKeys(ld.services) {
		if g.RawGetString(name) != lua.LNil || forbidden[name] {
			return fmt.Errorf("luabind: service %q clashes with a global of the same name", name)
		}
		g.RawSetString(name, ld.newUserData(&service{name: name}, ld.mt.service))
	}

	strict := L.NewTable()
	strict.RawSetString("__index", L.NewFunction(ld.globalIndex))
	strict.RawSetString("__metatable", lua.LString("locked"))
	L.SetMetatable(g, strict)
	return nil
}

// globalIndex is _G's __index: reading a global nobody defined is an error.
func (ld *loader) globalIndex(L *lua.LState) int {
	name, ok := L.Get(2).(lua.LString)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	pos := ld.callerPos(L)
	if forbidden[string(name)] {
		L.Push(ld.fail(L, pos, "%s is not available in the sandbox", name))
		return 1
	}
	if !ld.done && hintRoots[string(name)] {
		// Alloy's and the collector's names get their hint once the
		// whole name is known (refs.go).
		rec := &unknownRecord{parts: []string{string(name)}, pos: pos}
		ld.unknowns = append(ld.unknowns, rec)
		L.Push(ld.newUserData(&unknownRef{rec: rec, path: rec.parts}, ld.mt.unknown))
		return 1
	}
	var globals []string
	L.G.Global.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			globals = append(globals, string(s))
		}
	})
	L.Push(ld.fail(L, pos, "unknown name %q%s", name, didYouMean(string(name), globals)))
	return 1
}

// load replaces base load and loadstring: it compiles text chunks only,
// through the same checks as script files.
func (ld *loader) load(L *lua.LState) int {
	src, ok := L.Get(1).(lua.LString)
	if !ok {
		L.RaiseError("load: only text chunks are allowed in the sandbox, got %s", L.Get(1).Type().String())
		return 0
	}
	if strings.HasPrefix(string(src), "\x1b") {
		L.RaiseError("load: binary chunks are not allowed in the sandbox")
		return 0
	}
	name := L.OptString(2, "(load)")
	ch, diags := compileChunk(name, []byte(src), false)
	if diags != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(diags[0].Error()))
		return 2
	}
	L.Push(L.NewFunctionFromProto(ch.proto))
	return 1
}

// print writes its arguments to LoadOptions.Print, like base print.
func (ld *loader) print(L *lua.LState) int {
	n := L.GetTop()
	parts := make([]string, n)
	for i := 1; i <= n; i++ {
		parts[i-1] = L.ToStringMeta(L.Get(i)).String()
	}
	fmt.Fprintln(ld.opts.Print, strings.Join(parts, "\t"))
	return 0
}
