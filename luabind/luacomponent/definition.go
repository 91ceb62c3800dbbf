package luacomponent

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/schema"
)

// hookName returns the name of the callback of a signal: "on_traces".
func hookName(s dataplane.Signal) string { return "on_" + s.String() }

// definitionKeys are the keys of the table a component file returns.
var definitionKeys = []string{
	"args", "doc", "exports", "on_logs", "on_metrics", "on_traces", "output",
	"routes", "services", "signals", "start", "stop", "update",
}

// definition is what a component file declares, read from the table it
// returns.
type definition struct {
	doc      string
	signals  [dataplane.NumSignals]bool
	data     bool // handles at least one signal
	output   bool // has the automatic output argument
	args     []*schema.Field
	exports  []*schema.Field
	services []string
	routes   []string // "GET /hello", sorted
}

// hooks are the functions of a component file, in one Lua state.
type hooks struct {
	start, update, stop *lua.LFunction
	on                  [dataplane.NumSignals]*lua.LFunction
	routes              map[string]*lua.LFunction
}

// readHooks takes the functions of a definition table. Their types are
// checked by parseDefinition.
func readHooks(t *lua.LTable) hooks {
	fn := func(name string) *lua.LFunction {
		f, _ := t.RawGetString(name).(*lua.LFunction)
		return f
	}
	h := hooks{start: fn("start"), update: fn("update"), stop: fn("stop"), routes: map[string]*lua.LFunction{}}
	for _, s := range dataplane.AllSignals {
		h.on[s] = fn(hookName(s))
	}
	if routes, ok := t.RawGetString("routes").(*lua.LTable); ok {
		routes.ForEach(func(k, v lua.LValue) {
			if f, ok := v.(*lua.LFunction); ok {
				h.routes[lua.LVAsString(k)] = f
			}
		})
	}
	return h
}

// parseDefinition checks the table a component file returned and reads
// its declarations.
func parseDefinition(t *lua.LTable) (*definition, error) {
	var bad string
	t.ForEach(func(k, _ lua.LValue) {
		s, ok := k.(lua.LString)
		if !ok || !slices.Contains(definitionKeys, string(s)) {
			if bad == "" || k.String() < bad {
				bad = k.String()
			}
		}
	})
	if bad != "" {
		return nil, schema.Errorf(bad, "unknown key %q%s (keep helpers in locals; a component table has %s)", bad, script.DidYouMean(bad, definitionKeys), strings.Join(definitionKeys, ", "))
	}
	d := &definition{output: true}
	for _, name := range []string{"start", "update", "stop", "on_traces", "on_metrics", "on_logs"} {
		if v := t.RawGetString(name); v != lua.LNil && v.Type() != lua.LTFunction {
			return nil, schema.Errorf(name, "expected a function, got %s", v.Type())
		}
	}
	switch v := t.RawGetString("doc").(type) {
	case *lua.LNilType:
	case lua.LString:
		d.doc = string(v)
	default:
		return nil, schema.Errorf("doc", "expected string, got %s", v.Type())
	}
	switch v := t.RawGetString("output").(type) {
	case *lua.LNilType:
	case lua.LBool:
		d.output = bool(v)
	default:
		return nil, schema.Errorf("output", "expected boolean (false: no automatic output argument), got %s", v.Type())
	}
	signals, err := stringList(t.RawGetString("signals"), "signals")
	if err != nil {
		return nil, err
	}
	for i, name := range signals {
		s, ok := dataplane.ParseSignal(name)
		if !ok {
			return nil, schema.Errorf(fmt.Sprintf("signals[%d]", i+1), "unknown signal %q%s (signals: traces, metrics, logs)", name, script.DidYouMean(name, signalNames()))
		}
		d.signals[s] = true
		d.data = true
	}
	for _, s := range dataplane.AllSignals {
		has := t.RawGetString(hookName(s)) != lua.LNil
		switch {
		case d.signals[s] && !has:
			return nil, schema.Errorf("signals", "%s is declared but the component has no %s function", s, hookName(s))
		case !d.signals[s] && has:
			return nil, schema.Errorf(hookName(s), "%s is defined but signals does not list %q", hookName(s), s.String())
		}
	}
	if d.services, err = stringList(t.RawGetString("services"), "services"); err != nil {
		return nil, err
	}
	if err := d.readFields(t); err != nil {
		return nil, err
	}
	if err := d.readRoutes(t.RawGetString("routes")); err != nil {
		return nil, err
	}
	return d, nil
}

// signalNames are the names of the signals, for hints.
func signalNames() []string {
	names := make([]string, 0, dataplane.NumSignals)
	for _, s := range dataplane.AllSignals {
		names = append(names, s.String())
	}
	return names
}

// readFields reads args and exports and refuses the reserved names.
func (d *definition) readFields(t *lua.LTable) error {
	var err error
	if v := t.RawGetString("args"); v != lua.LNil {
		if d.args, err = schema.ParseFields(v, "args"); err != nil {
			return err
		}
	}
	if v := t.RawGetString("exports"); v != lua.LNil {
		if d.exports, err = schema.ParseFields(v, "exports"); err != nil {
			return err
		}
	}
	for _, f := range d.args {
		for _, h := range hostFields(true, true) {
			if f.Name == h.Name {
				return schema.Errorf("args."+f.Name, "%q is reserved: flowlua gives components the argument %s (%s)", f.Name, h.Name, h.Doc)
			}
		}
	}
	for _, f := range d.exports {
		if f.Required {
			return schema.Errorf("exports."+f.Name, "exports cannot be required: they start with their default or zero value")
		}
		if f.Name == "input" && d.data {
			return schema.Errorf("exports.input", `"input" is reserved: data components export their input`)
		}
	}
	return nil
}

// readRoutes reads the patterns of routes (net/http patterns such as
// "GET /hello"); the component must declare the http service.
func (d *definition) readRoutes(v lua.LValue) error {
	if v == lua.LNil {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return schema.Errorf("routes", `expected a table { ["GET /path"] = function(req) ... end }, got %s`, v.Type())
	}
	var err error
	mux := http.NewServeMux()
	t.ForEach(func(k, fn lua.LValue) {
		if err != nil {
			return
		}
		pattern, ok := k.(lua.LString)
		if !ok || fn.Type() != lua.LTFunction {
			err = schema.Errorf("routes", `expected ["METHOD /path"] = function(req) ... end, got %s = %s`, k.Type(), fn.Type())
			return
		}
		if perr := checkPattern(mux, string(pattern)); perr != nil {
			err = schema.Errorf("routes", "%q: %v", string(pattern), perr)
			return
		}
		d.routes = append(d.routes, string(pattern))
	})
	if err != nil {
		return err
	}
	slices.Sort(d.routes)
	if len(d.routes) > 0 && !slices.Contains(d.services, "http") {
		return schema.Errorf("routes", `routes need the http service: add services = { "http" }`)
	}
	return nil
}

// checkPattern registers a pattern in a scratch mux, which panics on an
// invalid or conflicting pattern.
func checkPattern(mux *http.ServeMux, pattern string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	if !strings.Contains(pattern, "/") {
		return fmt.Errorf(`a route is "[METHOD ]/path"`)
	}
	mux.HandleFunc(pattern, func(http.ResponseWriter, *http.Request) {})
	return nil
}

// stringList reads an optional list of strings.
func stringList(v lua.LValue, path string) ([]string, error) {
	if v == lua.LNil {
		return nil, nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, schema.Errorf(path, "expected a list of strings, got %s", v.Type())
	}
	out := make([]string, 0, t.Len())
	for i := 1; i <= t.Len(); i++ {
		s, ok := t.RawGetInt(i).(lua.LString)
		if !ok {
			return nil, schema.Errorf(fmt.Sprintf("%s[%d]", path, i), "expected string, got %s", t.RawGetInt(i).Type())
		}
		out = append(out, string(s))
	}
	return out, nil
}
