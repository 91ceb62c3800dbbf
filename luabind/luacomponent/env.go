package luacomponent

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/schema"
)

// The metatables of the values the host hands to Lua.
const (
	mtOutput   = "flowlua.output"
	mtConsumer = "flowlua.consumer"
	mtGoValue  = "flowlua.value"
	mtMetric   = "flowlua.metric"
	mtTimer    = "flowlua.timer"
)

// openEnv binds the component API into the state: log, metrics, timers,
// health, exports, emit, the batch helpers, require and the component's
// identity.
func (v *vm) openEnv() {
	L := v.L
	for _, mt := range []string{mtOutput, mtConsumer, mtGoValue} {
		t := L.NewTypeMetatable(mt)
		name := strings.TrimPrefix(mt, "flowlua.")
		t.RawSetString("__metatable", lua.LString(name))
		t.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LString(name))
			return 1
		}))
	}

	logT := L.NewTable()
	for name, level := range map[string]slog.Level{
		"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		logT.RawSetString(name, L.NewFunction(v.logFunc(level)))
	}
	L.SetGlobal("log", logT)
	L.SetGlobal("print", L.NewFunction(v.print))
	v.openMetrics()
	v.openTimers()
	v.openBatchHelpers()
	v.openCluster() // cluster.go
	L.SetGlobal("set_health", L.NewFunction(v.setHealth))
	L.SetGlobal("set_exports", L.NewFunction(v.setExports))
	L.SetGlobal("emit", L.NewFunction(v.emit))
	L.SetGlobal("require", L.NewFunction(v.require))

	comp := L.NewTable()
	if v.inst != nil {
		comp.RawSetString("id", lua.LString(v.inst.opts.ID))
	}
	comp.RawSetString("name", lua.LString(v.k.p.Name+"."+v.k.name))
	comp.RawSetString("plugin_version", lua.LString(v.k.p.Version))
	L.SetGlobal("component", comp)
}

// logFunc is log.<level>(msg, { key = value, ... }): a log line with the
// component's id and the fields in key order.
func (v *vm) logFunc(level slog.Level) lua.LGFunction {
	return func(L *lua.LState) int {
		msg := L.CheckString(1)
		var attrs []any
		if t, ok := L.Get(2).(*lua.LTable); ok {
			var keys []string
			t.ForEach(func(k, _ lua.LValue) { keys = append(keys, lua.LVAsString(k)) })
			slices.Sort(keys)
			for _, k := range keys {
				attrs = append(attrs, k, logValue(t.RawGetString(k)))
			}
		} else if L.Get(2) != lua.LNil {
			L.ArgError(2, "expected a table of fields")
		}
		if v.inst != nil {
			v.inst.logger.Log(v.cur.context(), level, msg, attrs...)
		}
		return 0
	}
}

// logValue converts a field of a log line.
func logValue(x lua.LValue) any {
	switch x := x.(type) {
	case lua.LBool:
		return bool(x)
	case lua.LNumber:
		return float64(x)
	case lua.LString:
		return string(x)
	case *lua.LTable:
		if s, err := schema.FromLua(x); err == nil {
			return schema.Format(s)
		}
	}
	return x.String()
}

// print logs its arguments at info level, tab-separated.
func (v *vm) print(L *lua.LState) int {
	parts := make([]string, L.GetTop())
	for i := range parts {
		parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
	}
	if v.inst != nil {
		v.inst.logger.Info(strings.Join(parts, "\t"))
	}
	return 0
}

// setHealth is set_health(state, message): "healthy" or "unhealthy".
func (v *vm) setHealth(L *lua.LState) int {
	state := L.CheckString(1)
	msg := L.OptString(2, "")
	var h component.HealthType
	switch state {
	case "healthy":
		h = component.HealthHealthy
	case "unhealthy":
		h = component.HealthUnhealthy
	default:
		L.ArgError(1, fmt.Sprintf(`expected "healthy" or "unhealthy", got %q%s`, state, script.DidYouMean(state, []string{"healthy", "unhealthy"})))
	}
	if v.inst != nil {
		v.inst.health.set(h, msg)
	}
	return 0
}

// setExports is set_exports{ name = value, ... }: the given exports
// change, the others keep their values; components that reference them
// are re-evaluated.
func (v *vm) setExports(L *lua.LState) int {
	t := L.CheckTable(1)
	val, err := schema.FromLua(t)
	if err != nil {
		L.RaiseError("set_exports: %v", err)
	}
	m, ok := val.(map[string]any)
	if !ok {
		L.RaiseError("set_exports: expected a table { name = value, ... }")
	}
	if v.inst == nil {
		return 0
	}
	if err := v.inst.setExports(m); err != nil {
		L.RaiseError("set_exports: %v", err)
	}
	return 0
}

// require loads a Lua module of the plugin (require "lib.util" runs
// lib/util.lua of the plugin directory once per state).
func (v *vm) require(L *lua.LState) int {
	name := L.CheckString(1)
	if val, ok := v.modules[name]; ok {
		if val == nil {
			L.RaiseError("require %q: circular require", name)
		}
		L.Push(val)
		return 1
	}
	ch := v.k.p.Modules[name]
	if ch == nil {
		L.RaiseError("require %q: no module %s in the plugin", name, v.k.p.File(strings.ReplaceAll(name, ".", "/")+".lua"))
	}
	v.modules[name] = nil
	defer func() {
		if v.modules[name] == nil {
			delete(v.modules, name) // it failed: a later require tries again
		}
	}()
	L.Push(L.NewFunctionFromProto(ch.proto))
	L.Call(0, 1)
	val := L.Get(-1)
	L.Pop(1)
	if val == lua.LNil {
		val = lua.LTrue
	}
	v.modules[name] = val
	v.roots.RawSetString("module "+name, val)
	L.Push(val)
	return 1
}
