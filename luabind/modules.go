package luabind

import (
	"fmt"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/schema"
)

// maxModuleDepth bounds how deep module instances nest, so that a module
// that instantiates itself fails with a message instead of a stack
// overflow.
const maxModuleDepth = 16

// moduleKeys are the keys of a module definition's table.
var moduleKeys = []string{"args", "body", "doc", "exports", "placement"}

// placementArg is the argument every component and module instance takes
// besides its own: where it runs in a cluster.
const placementArg = "placement"

// placements are the values of placementArg.
var placements = []string{"all_nodes", "unique"}

// moduleDef is a module the script defined: a reusable group of
// components, instantiated with a label.
type moduleDef struct {
	def       *script.ModuleDef
	exports   []*schema.Field
	body      *lua.LFunction
	placement string // of an instance that does not say
}

// defineModule is the global `module "gateway" { args = {...}, exports =
// {...}, body = function(args) ... return { input = ... } end }`.
func (ld *loader) defineModule(L *lua.LState) int {
	pos := ld.callerPos(L)
	name, ok := L.Get(1).(lua.LString)
	if !ok {
		L.Push(ld.fail(L, pos, `module: expected a name string, e.g. module "gateway" { ... }, got %s`, describe(L.Get(1))))
		return 1
	}
	if ld.done {
		ld.raise(L, script.Errorf(pos, `module "%s": modules are only defined while the script loads`, name))
	}
	L.Push(L.NewFunction(func(L *lua.LState) int {
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			L.Push(ld.fail(L, ld.callerPos(L), `module "%s": expected a definition table { args = ..., body = function(args) ... end }, got %s`, name, describe(L.Get(1))))
			return 1
		}
		ld.recordModule(L, string(name), pos, t)
		return 0
	}))
	return 1
}

// recordModule checks a module definition and makes its name a component
// name of the script: `<name> "<label>" { ... }` instantiates it.
func (ld *loader) recordModule(L *lua.LState, name string, pos script.Pos, t *lua.LTable) {
	fail := func(format string, args ...any) {
		ld.fail(L, pos, `module "%s": `+format, append([]any{name}, args...)...)
	}
	var bad []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); !ok || !slices.Contains(moduleKeys, string(s)) {
			bad = append(bad, k.String())
		}
	})
	for _, k := range bad {
		fail("unknown field %q%s", k, didYouMean(k, moduleKeys))
	}
	body, ok := t.RawGetString("body").(*lua.LFunction)
	if !ok {
		fail("body: expected a function(args) that declares the module's components, got %s", describe(t.RawGetString("body")))
		return
	}
	doc, _ := t.RawGetString("doc").(lua.LString)
	placement := ""
	switch p := t.RawGetString(placementArg).(type) {
	case *lua.LNilType:
	case lua.LString:
		if !slices.Contains(placements, string(p)) {
			fail("%s: expected one of %q, %q, got %q", placementArg, placements[0], placements[1], string(p))
			return
		}
		placement = string(p)
	default:
		fail("%s: expected one of %q, %q, got %s", placementArg, placements[0], placements[1], describe(p))
		return
	}
	fields := func(key string) ([]*schema.Field, bool) {
		v := t.RawGetString(key)
		if v == lua.LNil {
			return nil, true
		}
		fs, err := schema.ParseFields(v, key)
		if err != nil {
			fail("%v", err)
			return nil, false
		}
		return fs, true
	}
	args, okArgs := fields("args")
	exports, okExports := fields("exports")
	if !okArgs || !okExports {
		return
	}
	for _, f := range args {
		if f.Name == placementArg {
			fail("args.%s: the name is reserved: every instance takes placement", placementArg)
			return
		}
	}
	m := &moduleDef{
		def: &script.ModuleDef{
			Name: name, Pos: pos, Doc: string(doc), Placement: placement,
			Schema: schema.NewObject(args, exports),
		},
		exports:   exports,
		body:      body,
		placement: placement,
	}
	if err := ld.addModuleName(L, name, m); err != nil {
		fail("%v", err)
		return
	}
	ld.out.Modules = append(ld.out.Modules, m.def)
}

// addModuleName adds a module's name to the tree of names, making its
// first part a global when it is new.
func (ld *loader) addModuleName(L *lua.LState, name string, m *moduleDef) error {
	parts := strings.Split(name, ".")
	n := ld.names
	for i, p := range parts {
		if !isIdent(p) {
			return fmt.Errorf("invalid name: each dotted part must match [A-Za-z_][A-Za-z0-9_]*")
		}
		child := n.children[p]
		switch {
		case child == nil:
			if i == 0 && (L.G.Global.RawGetString(p) != lua.LNil || forbidden[p]) {
				return fmt.Errorf("the name %s is taken by a global", p)
			}
			child = &nsNode{path: strings.Join(parts[:i+1], "."), children: map[string]*nsNode{}, modules: true}
			n.children[p] = child
			if i == 0 {
				L.G.Global.RawSetString(p, ld.nodeValue(child))
			}
		case child.module != nil && i == len(parts)-1:
			return fmt.Errorf("defined twice: first at %s", child.module.def.Pos)
		case child.component:
			return fmt.Errorf("%s is a component name", child.path)
		case !child.modules:
			return fmt.Errorf("the namespace %s belongs to components: choose another name", child.path)
		}
		n = child
	}
	if len(n.children) > 0 {
		return fmt.Errorf("%s is a namespace of other modules", name)
	}
	n.component, n.module = true, m
	return nil
}

// instantiate records a module instance: it runs the module's body with
// the instance's arguments in the instance's scope, so that the
// components it declares get ids under the instance's, and records the
// instance with the exports the body returned.
func (ld *loader) instantiate(L *lua.LState, d *decl, m *moduleDef, t *lua.LTable, block *script.Block) {
	chain := append(slices.Clone(ld.scope), d.name+"."+d.label)
	if len(chain) > maxModuleDepth {
		ld.fail(L, d.pos, "modules nest more than %d deep: %s", maxModuleDepth, strings.Join(chain, " → "))
		return
	}
	// The body sees the arguments as written (references stay lazy), with
	// the declared defaults for those not given.
	args := L.NewTable()
	t.ForEach(func(k, v lua.LValue) {
		if k != lua.LString(placementArg) {
			args.RawSet(k, v)
		}
	})
	for name, def := range schemaDefaults(m.def.Schema) {
		if args.RawGetString(name) == lua.LNil {
			args.RawSetString(name, ToLua(L, def, nil))
		}
	}
	outer := ld.scope
	ld.scope = chain
	L.Push(m.body)
	L.Push(args)
	err := L.PCall(1, 1, ld.errFunc)
	if err != nil {
		diag := ld.errorDiagnostic(err, d.pos)
		ld.fail(L, diag.Pos, "%s", diag.Message) // names the chain
		ld.scope = outer
		return
	}
	ld.scope = outer
	ret := L.Get(-1)
	L.Pop(1)
	exports := map[string]any{}
	switch ret := ret.(type) {
	case *lua.LTable:
		conv := ld.newConverter("", d.pos, nil)
		exports, _ = conv.topLevel(ret)
		ld.addDiagnostics(L, conv.diags)
	case *lua.LNilType:
	default:
		ld.fail(L, d.pos, "%s: the body of module %s must return its exports as a table, got %s", d.describe(), d.name, describe(ret))
		return
	}
	declared := make([]string, len(m.exports))
	for i, f := range m.exports {
		declared[i] = f.Name
		if _, ok := exports[f.Name]; !ok {
			ld.fail(L, d.pos, "%s: the body of module %s returned no export %q", d.describe(), d.name, f.Name)
		}
	}
	for _, k := range sortedKeys(exports) {
		if !slices.Contains(declared, k) {
			ld.fail(L, d.pos, "%s: the body of module %s returned an undeclared export %q%s", d.describe(), d.name, k, didYouMean(k, declared))
			delete(exports, k)
		}
	}
	block.Module = &script.ModuleInstance{Def: m.def, Exports: exports}
}

// schemaDefaults returns the declared defaults of a module's arguments as
// script values.
func schemaDefaults(s script.Schema) map[string]any {
	o, ok := s.(*schema.Object)
	if !ok {
		return nil
	}
	out := map[string]any{}
	for _, f := range o.Args.Fields {
		if f.Default != nil {
			out[f.Name] = f.Default
		}
	}
	return out
}

// placement takes the placement argument out of a block's arguments. A
// block that does not say has its module's default placement (mod: the
// module of an instance), else the placement of the instance it is
// declared in.
func (ld *loader) placement(L *lua.LState, d *decl, args map[string]any, mod *moduleDef) string {
	v, ok := args[placementArg]
	if !ok {
		if mod != nil && mod.placement != "" {
			return mod.placement
		}
		if len(ld.placements) > 0 {
			return ld.placements[len(ld.placements)-1] // an instance's placement holds for its components
		}
		return ""
	}
	delete(args, placementArg)
	s, ok := v.(string)
	if !ok || !slices.Contains(placements, s) {
		got := decode.ValueTypeName(v)
		if ok {
			got = fmt.Sprintf("%q", s)
		}
		ld.fail(L, d.pos, "%s: %s: expected one of %q, %q, got %s", d.describe(), placementArg, placements[0], placements[1], got)
		return ""
	}
	return s
}
