// Package testdsl reads pipeline test files (`*_test.lua`, run by
// `flowlua test`) into the cases of package engine/pipetest.
//
// A test file is Lua, run in the same sandbox as a pipeline script, with
// these globals:
//
//	pipeline = "main.lua"        -- the pipeline under test, relative to the
//	                             -- test file (default: x.lua for x_test.lua)
//	test "name" { ... }          -- declares a case (fields below)
//	json_file("testdata/t.json") -- a file's content, relative to the test file
//	traces { ... }, logs { ... }, metrics { ... }
//	                             -- OTLP JSON built from a short description
//	absent                       -- an attribute that must not be there
//	match "^re$"                 -- a value matching a regular expression (RE2)
//	nothing                      -- an output that must receive nothing
//
// A case's fields:
//
//	target = "id"                -- the component or module instance fed
//	input  = { traces = X, metrics = Y, logs = Z }
//	                             -- X: OTLP JSON (a string, json_file or a
//	                             -- builder), or a list of them (batches, in
//	                             -- order); or a list of such tables
//	expect = { ["id"] = { traces = S, ... } | nothing }
//	                             -- S: a count, or a table of count, equals,
//	                             -- contains, attributes, resource, items,
//	                             -- any_order
//	error  = true | "re" | match "re"   -- feeding the input must fail
//	health = { ["id"] = "unhealthy" | { state = "unhealthy", message = "re" } }
//
// Unknown fields are errors with the test file's file:line.
package testdsl

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/pipetest"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
)

// File is a parsed test file.
type File struct {
	Path string
	// Pipeline is the path of the pipeline under test.
	Pipeline string
	Cases    []*pipetest.Case
}

// maxFileSize bounds what json_file reads.
const maxFileSize = 64 << 20

// sentinel values of the DSL.
type sentinel string

const (
	sentAbsent  sentinel = "absent"
	sentNothing sentinel = "nothing"
)

// pattern is the value of match "re".
type pattern struct{ re *regexp.Regexp }

// parser holds the state of one file's run.
type parser struct {
	L     *lua.LState
	path  string
	dir   string
	file  *File
	names map[string]script.Pos
	errs  []string
}

// ParseFile runs the test file at path and returns its cases. A file that
// does not run, or declares a case wrongly, is an error naming file:line.
func ParseFile(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// Parse is ParseFile with the file's content given.
func Parse(path string, src []byte) (*File, error) {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	luabind.OpenSandbox(L)
	p := &parser{L: L, path: path, dir: filepath.Dir(path), file: &File{Path: path}, names: map[string]script.Pos{}}
	g := L.G.Global
	g.RawSetString("test", L.NewFunction(p.test))
	g.RawSetString("json_file", L.NewFunction(p.jsonFile))
	g.RawSetString("traces", L.NewFunction(p.buildTraces))
	g.RawSetString("logs", L.NewFunction(p.buildLogs))
	g.RawSetString("metrics", L.NewFunction(p.buildMetrics))
	g.RawSetString("match", L.NewFunction(p.match))
	g.RawSetString("absent", p.userdata(sentAbsent))
	g.RawSetString("nothing", p.userdata(sentNothing))
	g.RawSetString("print", L.NewFunction(func(*lua.LState) int { return 0 }))

	fn, err := L.Load(strings.NewReader(string(src)), path)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok {
			return nil, fmt.Errorf("%s", strings.TrimSpace(ae.Object.String()))
		}
		return nil, err
	}
	if len(p.errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(p.errs, "\n"))
	}
	switch v := g.RawGetString("pipeline").(type) {
	case lua.LString:
		p.file.Pipeline = filepath.Join(p.dir, string(v))
	case *lua.LNilType:
		base := strings.TrimSuffix(filepath.Base(path), "_test.lua")
		p.file.Pipeline = filepath.Join(p.dir, base+".lua")
	default:
		return nil, fmt.Errorf("%s: pipeline: expected a string (a path), got %s", path, v.Type())
	}
	return p.file, nil
}

func (p *parser) userdata(v any) *lua.LUserData {
	ud := p.L.NewUserData()
	ud.Value = v
	return ud
}

// where returns the position of the Lua code calling the current function.
func (p *parser) where() script.Pos {
	w := strings.TrimSuffix(p.L.Where(1), ":")
	if i := strings.LastIndexByte(w, ':'); i >= 0 {
		var line int
		fmt.Sscanf(w[i+1:], "%d", &line)
		return script.Pos{File: w[:i], Line: line}
	}
	return script.Pos{File: p.path}
}

// test is `test "name" { ... }`.
func (p *parser) test(L *lua.LState) int {
	name := L.CheckString(1)
	pos := p.where()
	if prev, ok := p.names[name]; ok {
		L.RaiseError("test %q declared twice: first at %s", name, prev)
	}
	p.names[name] = pos
	L.Push(L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		c, err := p.decodeCase(name, pos, t)
		if err != nil {
			p.errs = append(p.errs, fmt.Sprintf("%s: test %q: %v", pos, name, err))
			return 0
		}
		p.file.Cases = append(p.file.Cases, c)
		return 0
	}))
	return 1
}

func (p *parser) jsonFile(L *lua.LState) int {
	name := L.CheckString(1)
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.dir, name)
	}
	fi, err := os.Stat(path)
	if err == nil && fi.Size() > maxFileSize {
		err = fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	var b []byte
	if err == nil {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		L.RaiseError("json_file(%q): %v", name, err)
	}
	L.Push(lua.LString(b))
	return 1
}

func (p *parser) match(L *lua.LState) int {
	src := L.CheckString(1)
	re, err := regexp.Compile(src)
	if err != nil {
		L.ArgError(1, err.Error())
	}
	L.Push(p.userdata(pattern{re}))
	return 1
}

// fields returns the string-keyed fields of t, and an error for any key
// not in allowed or any other kind of key.
func fields(t *lua.LTable, allowed ...string) (map[string]lua.LValue, error) {
	out := map[string]lua.LValue{}
	err := byKey(t, func(k lua.LValue) error {
		return fmt.Errorf("unexpected list item %s (fields are named)", k)
	}, func(key string, v lua.LValue) error {
		if !slices.Contains(allowed, key) {
			return fmt.Errorf("unknown field %q%s", key, script.DidYouMean(key, allowed))
		}
		out[key] = v
		return nil
	})
	return out, err
}

// byKey calls fn for each field of t in key order, stopping at the first
// error. Every key must be a string: badKey makes the error for one that
// is not, before fn is called at all.
func byKey(t *lua.LTable, badKey func(k lua.LValue) error, fn func(key string, v lua.LValue) error) error {
	var keys []string
	var bad error
	t.ForEach(func(k, _ lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok && bad == nil {
			bad = badKey(k)
		}
		keys = append(keys, string(ks))
	})
	if bad != nil {
		return bad
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn(k, t.RawGetString(k)); err != nil {
			return err
		}
	}
	return nil
}

// list returns the array part of t, or nil when t has named fields.
func list(t *lua.LTable) ([]lua.LValue, bool) {
	n := t.Len()
	count := 0
	t.ForEach(func(lua.LValue, lua.LValue) { count++ })
	if count != n {
		return nil, false
	}
	out := make([]lua.LValue, n)
	for i := range n {
		out[i] = t.RawGetInt(i + 1)
	}
	return out, true
}

var signalNames = []string{"traces", "metrics", "logs"}

func (p *parser) decodeCase(name string, pos script.Pos, t *lua.LTable) (*pipetest.Case, error) {
	f, err := fields(t, "target", "input", "expect", "error", "health")
	if err != nil {
		return nil, err
	}
	c := &pipetest.Case{Name: name, Pos: pos}
	target, ok := f["target"].(lua.LString)
	if !ok {
		return nil, fmt.Errorf("target: expected a component id (a string), got %s", f["target"].Type())
	}
	c.Target = string(target)
	in, ok := f["input"].(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("input: expected a table such as { traces = json_file(...) }, got %s", f["input"].Type())
	}
	if c.Input, err = p.decodeInput(pos, in); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	if len(c.Input) == 0 {
		return nil, fmt.Errorf("input: no batch")
	}
	if e := f["expect"]; e != nil {
		et, ok := e.(*lua.LTable)
		if !ok {
			return nil, fmt.Errorf("expect: expected a table of outputs by component id, got %s", e.Type())
		}
		if c.Expect, err = p.decodeExpect(pos, et); err != nil {
			return nil, fmt.Errorf("expect: %w", err)
		}
	}
	switch e := f["error"].(type) {
	case nil:
	case lua.LBool:
		if e {
			c.Error = &pipetest.Value{Pattern: regexp.MustCompile("")}
		}
	default:
		v, err := p.value(e)
		if err != nil || v.Absent {
			return nil, fmt.Errorf("error: expected true, a pattern or match(...), got %s", e.Type())
		}
		if s, ok := v.Equal.(string); ok {
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("error: %v", err)
			}
			v = pipetest.Value{Pattern: re}
		}
		c.Error = &v
	}
	if h := f["health"]; h != nil {
		ht, ok := h.(*lua.LTable)
		if !ok {
			return nil, fmt.Errorf("health: expected a table of states by component id, got %s", h.Type())
		}
		if c.Health, err = p.decodeHealth(pos, ht); err != nil {
			return nil, fmt.Errorf("health: %w", err)
		}
	}
	if len(c.Expect) == 0 && c.Error == nil && len(c.Health) == 0 {
		return nil, fmt.Errorf("nothing to check: give expect, error or health")
	}
	return c, nil
}

// decodeInput reads { traces = X, ... } or a list of such tables.
func (p *parser) decodeInput(pos script.Pos, t *lua.LTable) ([]pipetest.Batch, error) {
	if l, ok := list(t); ok && len(l) > 0 {
		var out []pipetest.Batch
		for i, e := range l {
			et, ok := e.(*lua.LTable)
			if !ok {
				return nil, fmt.Errorf("batch %d: expected a table such as { traces = ... }, got %s", i+1, e.Type())
			}
			bs, err := p.decodeInput(pos, et)
			if err != nil {
				return nil, fmt.Errorf("batch %d: %w", i+1, err)
			}
			out = append(out, bs...)
		}
		return out, nil
	}
	f, err := fields(t, signalNames...)
	if err != nil {
		return nil, err
	}
	var out []pipetest.Batch
	for _, name := range signalNames {
		v := f[name]
		if v == nil {
			continue
		}
		sig, _ := dataplane.ParseSignal(name)
		docs, err := jsonDocs(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, d := range docs {
			out = append(out, pipetest.Batch{Signal: sig, JSON: []byte(d), Pos: pos})
		}
	}
	return out, nil
}

// jsonDocs reads OTLP JSON: a string or a list of strings.
func jsonDocs(v lua.LValue) ([]string, error) {
	switch v := v.(type) {
	case lua.LString:
		return []string{string(v)}, nil
	case *lua.LTable:
		l, ok := list(v)
		if !ok {
			return nil, fmt.Errorf("expected OTLP JSON or a list of it, got a table with named fields")
		}
		var out []string
		for i, e := range l {
			s, ok := e.(lua.LString)
			if !ok {
				return nil, fmt.Errorf("item %d: expected OTLP JSON (a string), got %s", i+1, e.Type())
			}
			out = append(out, string(s))
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected OTLP JSON (a string, json_file(...) or a builder), got %s", v.Type())
}

func (p *parser) decodeExpect(pos script.Pos, t *lua.LTable) ([]pipetest.Output, error) {
	var out []pipetest.Output // sorted by id: byKey goes in key order
	err := byKey(t, func(k lua.LValue) error {
		return fmt.Errorf("expected outputs by component id ([\"otelcol.exporter.otlp.out\"] = {...}), got key %s", k)
	}, func(id string, v lua.LValue) error {
		o := pipetest.Output{ID: id, Pos: pos}
		if ud, ok := v.(*lua.LUserData); ok && ud.Value == sentNothing {
			o.Nothing = true
			out = append(out, o)
			return nil
		}
		vt, ok := v.(*lua.LTable)
		if !ok {
			return fmt.Errorf("%s: expected nothing or a table of signals, got %s", id, v.Type())
		}
		f, err := fields(vt, signalNames...)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		for _, name := range signalNames {
			sv := f[name]
			if sv == nil {
				continue
			}
			sig, _ := dataplane.ParseSignal(name)
			se, err := p.decodeSignal(pos, sig, sv)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", id, name, err)
			}
			o.Signals = append(o.Signals, se)
		}
		out = append(out, o)
		return nil
	})
	return out, err
}

func (p *parser) decodeSignal(pos script.Pos, sig dataplane.Signal, v lua.LValue) (pipetest.SignalExpect, error) {
	se := pipetest.SignalExpect{Signal: sig, Pos: pos, Count: -1}
	if n, ok := v.(lua.LNumber); ok {
		se.Count = int(n)
		if float64(se.Count) != float64(n) || se.Count < 0 {
			return se, fmt.Errorf("a count must be a whole number ≥ 0, got %v", n)
		}
		return se, nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return se, fmt.Errorf("expected a count or a table of count, equals, contains, attributes, resource, items, any_order; got %s", v.Type())
	}
	f, err := fields(t, "count", "equals", "contains", "attributes", "resource", "items", "any_order")
	if err != nil {
		return se, err
	}
	if c := f["count"]; c != nil {
		n, ok := c.(lua.LNumber)
		if !ok || float64(int(n)) != float64(n) || n < 0 {
			return se, fmt.Errorf("count: expected a whole number ≥ 0, got %s", c)
		}
		se.Count = int(n)
	}
	for key, dst := range map[string]*[]byte{"equals": &se.Equals, "contains": &se.Contains} {
		if v := f[key]; v != nil {
			s, ok := v.(lua.LString)
			if !ok {
				return se, fmt.Errorf("%s: expected OTLP JSON (a string, json_file(...) or a builder), got %s", key, v.Type())
			}
			*dst = []byte(s)
		}
	}
	if se.Attributes, err = p.values("attributes", f["attributes"]); err != nil {
		return se, err
	}
	if se.Resource, err = p.values("resource", f["resource"]); err != nil {
		return se, err
	}
	if it := f["items"]; it != nil {
		tt, ok := it.(*lua.LTable)
		l, isList := list(tt)
		if !ok || !isList {
			return se, fmt.Errorf("items: expected a list of items, got %s", it.Type())
		}
		se.Items = []pipetest.Item{}
		for i, e := range l {
			item, err := p.decodeItem(pos, e)
			if err != nil {
				return se, fmt.Errorf("items[%d]: %w", i+1, err)
			}
			se.Items = append(se.Items, item)
		}
	}
	if ao := f["any_order"]; ao != nil {
		b, ok := ao.(lua.LBool)
		if !ok {
			return se, fmt.Errorf("any_order: expected a boolean, got %s", ao.Type())
		}
		se.AnyOrder = bool(b)
	}
	return se, nil
}

// itemFields are the fields an item may name besides attributes and
// resource.
var itemFields = []string{"name", "kind", "status", "trace_id", "span_id", "scope", "body", "severity_text", "severity_number", "type", "value"}

func (p *parser) decodeItem(pos script.Pos, v lua.LValue) (pipetest.Item, error) {
	it := pipetest.Item{Pos: pos, Fields: map[string]pipetest.Value{}}
	t, ok := v.(*lua.LTable)
	if !ok {
		return it, fmt.Errorf("expected a table, got %s", v.Type())
	}
	f, err := fields(t, append([]string{"attributes", "resource"}, itemFields...)...)
	if err != nil {
		return it, err
	}
	for k, fv := range f {
		if k == "attributes" || k == "resource" {
			continue
		}
		val, err := p.value(fv)
		if err != nil {
			return it, fmt.Errorf("%s: %w", k, err)
		}
		it.Fields[k] = val
	}
	if it.Attributes, err = p.values("attributes", f["attributes"]); err != nil {
		return it, err
	}
	if it.Resource, err = p.values("resource", f["resource"]); err != nil {
		return it, err
	}
	return it, nil
}

// values reads a table of expected values by key.
func (p *parser) values(what string, v lua.LValue) (map[string]pipetest.Value, error) {
	if v == nil {
		return nil, nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%s: expected a table of values by key, got %s", what, v.Type())
	}
	out := map[string]pipetest.Value{}
	err := byKey(t, func(k lua.LValue) error {
		return fmt.Errorf("%s: expected string keys, got %s", what, k)
	}, func(key string, e lua.LValue) error {
		val, err := p.value(e)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", what, key, err)
		}
		out[key] = val
		return nil
	})
	return out, err
}

// value reads an expected value: a string, number or boolean, absent or
// match "re".
func (p *parser) value(v lua.LValue) (pipetest.Value, error) {
	switch v := v.(type) {
	case lua.LString:
		return pipetest.Value{Equal: string(v)}, nil
	case lua.LNumber:
		return pipetest.Value{Equal: float64(v)}, nil
	case lua.LBool:
		return pipetest.Value{Equal: bool(v)}, nil
	case *lua.LUserData:
		switch u := v.Value.(type) {
		case sentinel:
			if u == sentAbsent {
				return pipetest.Value{Absent: true}, nil
			}
		case pattern:
			return pipetest.Value{Pattern: u.re}, nil
		}
	}
	return pipetest.Value{}, fmt.Errorf("expected a string, number, boolean, absent or match(...), got %s", v.Type())
}

func (p *parser) decodeHealth(pos script.Pos, t *lua.LTable) ([]pipetest.Health, error) {
	var out []pipetest.Health // sorted by id: byKey goes in key order
	err := byKey(t, func(k lua.LValue) error {
		return fmt.Errorf("expected states by component id, got key %s", k)
	}, func(id string, v lua.LValue) error {
		h := pipetest.Health{ID: id, Pos: pos}
		switch v := v.(type) {
		case lua.LString:
			h.State = string(v)
		case *lua.LTable:
			f, err := fields(v, "state", "message")
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			s, _ := f["state"].(lua.LString)
			h.State = string(s)
			if m := f["message"]; m != nil {
				val, err := p.value(m)
				if err != nil {
					return fmt.Errorf("%s: message: %w", id, err)
				}
				if s, ok := val.Equal.(string); ok {
					re, err := regexp.Compile(s)
					if err != nil {
						return fmt.Errorf("%s: message: %w", id, err)
					}
					val = pipetest.Value{Pattern: re}
				}
				h.Message = &val
			}
		}
		if h.State != "healthy" && h.State != "unhealthy" {
			return fmt.Errorf("%s: expected \"healthy\" or \"unhealthy\", got %s", id, v)
		}
		out = append(out, h)
		return nil
	})
	return out, err
}
