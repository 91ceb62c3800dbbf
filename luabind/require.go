package luabind

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/boundedfile"
	"github.com/flowlua/flowlua/engine/script"
)

// moduleRE is what a module name must match: dotted parts, each a plain
// file name, so that a module can never be looked up outside the script's
// directory.
var moduleRE = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// module is a required module: loading, or loaded with its value.
type module struct {
	loading bool
	value   lua.LValue
}

// require is the global `require "lib.gateway"`: it runs lib/gateway.lua
// from the main script's directory once and returns what it returned
// (true if nothing), like Lua's package.loaded caching.
func (ld *loader) require(L *lua.LState) int {
	pos := ld.callerPos(L)
	name, ok := L.Get(1).(lua.LString)
	if !ok {
		L.Push(ld.fail(L, pos, "require: expected a module name string, got %s", describe(L.Get(1))))
		return 1
	}
	if ld.done {
		ld.raise(L, script.Errorf(pos, "require %q: modules are only loaded while the script loads", name))
	}
	if !moduleRE.MatchString(string(name)) {
		L.Push(ld.fail(L, pos, `invalid module name %q: use a dotted name relative to the script's directory, e.g. require "lib.gateway"`, name))
		return 1
	}
	if m := ld.modules[string(name)]; m != nil {
		if m.loading {
			L.Push(ld.fail(L, pos, "require %q: circular require (the module is still loading)", name))
			return 1
		}
		L.Push(m.value)
		return 1
	}
	rel := filepath.FromSlash(strings.ReplaceAll(string(name), ".", "/")) + ".lua"
	file := filepath.Join(ld.dir, rel)
	if file == filepath.Clean(ld.path) {
		L.Push(ld.fail(L, pos, "require %q: that is the main script", name))
		return 1
	}
	src, err := ld.readModule(rel)
	if errors.Is(err, fs.ErrNotExist) {
		ld.out.AddMissing(file)
		L.Push(ld.fail(L, pos, "module %q not found: no file %s", name, file))
		return 1
	}
	if err != nil {
		// Watched as if absent: a module that cannot be read (a FIFO, a
		// file over the size limit) reloads once it is replaced.
		ld.out.AddMissing(file)
		L.Push(ld.fail(L, pos, "module %q: %s: %v", name, file, err))
		return 1
	}
	// Recorded before it is compiled: a module with a syntax error is
	// watched too, so that fixing it reloads.
	ld.out.AddFile(file, src)
	ch, diags := ld.compile(file, src)
	if diags != nil {
		ld.addDiagnostics(L, diags)
		L.Push(ld.sink)
		return 1
	}

	m := &module{loading: true}
	ld.modules[string(name)] = m
	L.Push(L.NewFunctionFromProto(ch.proto))
	L.Push(name)
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	m.loading, m.value = false, v
	L.Push(v)
	return 1
}

// readModule reads a file below the script's directory through an
// os.Root, which refuses paths (and symbolic links) leading outside it.
func (ld *loader) readModule(rel string) ([]byte, error) {
	if ld.root == nil {
		root, err := os.OpenRoot(ld.dir)
		if err != nil {
			return nil, err
		}
		ld.root = root
	}
	return boundedfile.ReadIn(ld.root, rel, maxSourceSize, "the limit of a module")
}

// env is the global `env(name, default)`: the environment variable, or
// the default ("" when omitted).
func (ld *loader) env(L *lua.LState) int {
	name := L.CheckString(1)
	def := ""
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
	case lua.LString:
		def = string(v)
	case lua.LNumber:
		def = v.String()
	default:
		L.ArgError(2, "string expected, got "+v.Type().String())
	}
	if v, ok := ld.getenv(name); ok {
		L.Push(lua.LString(v))
	} else {
		L.Push(lua.LString(def))
	}
	return 1
}
