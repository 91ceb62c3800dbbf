package luabind

import (
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// declKind tells what a declaration records.
type declKind int

const (
	declComponent declKind = iota // otelcol.receiver.otlp "default" { ... }
	declService                   // http { ... }
	declPlugin                    // plugin "acme" { ... }
	declModule                    // gateway "eu" { ... }: a module instance
)

// decl is a declaration waiting for (or given) its argument table.
type decl struct {
	kind        declKind
	name, label string
	pos         script.Pos
	called      bool
}

// describe writes the declaration as in the script: `file.read "a"`.
func (d *decl) describe() string {
	if d.kind == declService {
		return d.name
	}
	return d.name + ` "` + d.label + `"`
}

// nsIndex is __index of names: `otelcol.receiver` gives the next name,
// `file.read.token` an instance awaiting its export.
func (ld *loader) nsIndex(L *lua.LState) int {
	n := udArg(L, 1).(*nsNode)
	key, ok := L.Get(2).(lua.LString)
	if !ok {
		L.Push(ld.fail(L, ld.callerPos(L), "%s: expected a name after the dot, got %s", n.path, describe(L.Get(2))))
		return 1
	}
	k := string(key)
	if c := n.children[k]; c != nil {
		L.Push(ld.nodeValue(c))
		return 1
	}
	pos := ld.callerPos(L)
	switch {
	case n.component:
		L.Push(ld.newUserData(&instance{name: n.path, label: k, pos: pos, scope: ld.scopePrefix()}, ld.mt.instance))
	case n.open && isIdent(k):
		c := &nsNode{path: n.path + "." + k, component: true, children: map[string]*nsNode{}}
		n.children[k] = c
		L.Push(ld.nodeValue(c))
	default:
		L.Push(ld.unknownChild(L, n, k, pos))
	}
	return 1
}

// unknownChild records an unknown name under a namespace and returns a
// value that defers the report until it is known what the name was used
// for. Records are shared per position and name, so a loop makes one.
func (ld *loader) unknownChild(L *lua.LState, n *nsNode, k string, pos script.Pos) lua.LValue {
	parts := append(strings.Split(n.path, "."), k)
	if ld.done {
		return ld.fail(L, pos, "unknown name %q%s", strings.Join(parts, "."), didYouMean(strings.Join(parts, "."), n.childPaths()))
	}
	var rec *unknownRecord
	for _, u := range ld.unknowns {
		if u.pos == pos && u.parent == n && u.parts[len(u.parts)-1] == k {
			rec = u
			break
		}
	}
	if rec == nil {
		rec = &unknownRecord{parts: parts, pos: pos, parent: n}
		ld.unknowns = append(ld.unknowns, rec)
	}
	return ld.newUserData(&unknownRef{rec: rec, path: parts}, ld.mt.unknown)
}

// nsCall is __call of names: `file.read "token"` starts a declaration.
func (ld *loader) nsCall(L *lua.LState) int {
	n := udArg(L, 1).(*nsNode)
	pos := ld.callerPos(L)
	label, isLabel := L.Get(2).(lua.LString)
	switch {
	case !n.component && isLabel:
		hint := nameHint(n.path, ld.comps)
		if hint == "" {
			hint = didYouMean(n.path, ld.comps)
		}
		L.Push(ld.fail(L, pos, "unknown component %q%s", n.path, hint))
	case !n.component:
		L.Push(ld.fail(L, pos, "%s is a namespace, not a component", n.path))
	case isLabel && n.module != nil:
		L.Push(ld.declare(L, declModule, n.path, string(label), pos))
	case isLabel:
		L.Push(ld.declare(L, declComponent, n.path, string(label), pos))
	case L.Get(2).Type() == lua.LTTable:
		L.Push(ld.fail(L, pos, `%s needs a label: write %s "name" { ... }`, n.path, n.path))
	default:
		L.Push(ld.fail(L, pos, `%s: expected a label string, got %s`, n.path, describe(L.Get(2))))
	}
	return 1
}

// plugin is the global `plugin "acme" { ... }`.
func (ld *loader) plugin(L *lua.LState) int {
	pos := ld.callerPos(L)
	label, ok := L.Get(1).(lua.LString)
	if !ok {
		L.Push(ld.fail(L, pos, `plugin: expected a namespace string, e.g. plugin "acme" { path = "plugins/acme" }, got %s`, describe(L.Get(1))))
		return 1
	}
	L.Push(ld.declare(L, declPlugin, "plugin", string(label), pos))
	return 1
}

// declare checks a label and returns the function that takes the
// declaration's argument table.
func (ld *loader) declare(L *lua.LState, kind declKind, name, label string, pos script.Pos) lua.LValue {
	if ld.done {
		ld.raise(L, script.Errorf(pos, `%s "%s": declarations are only allowed while the script loads`, name, label))
	}
	if !isIdent(label) {
		what := "label"
		if kind == declPlugin {
			what = "plugin namespace"
		}
		return ld.fail(L, pos, "invalid %s %q for %s: it must match [A-Za-z_][A-Za-z0-9_]*", what, label, name)
	}
	d := &decl{kind: kind, name: name, label: label, pos: pos}
	ld.pending = append(ld.pending, d)
	return L.NewFunction(func(L *lua.LState) int {
		d.called = true
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			L.Push(ld.fail(L, ld.callerPos(L), "%s: expected an argument table { ... }, got %s", d.describe(), describe(L.Get(1))))
			return 1
		}
		return ld.record(L, d, t)
	})
}

// serviceCall is __call of a service: `http { ... }`.
func (ld *loader) serviceCall(L *lua.LState) int {
	s := udArg(L, 1).(*service)
	pos := ld.callerPos(L)
	switch arg := L.Get(2).(type) {
	case *lua.LTable:
		return ld.record(L, &decl{kind: declService, name: s.name, pos: pos, called: true}, arg)
	case lua.LString:
		L.Push(ld.fail(L, pos, "service %s takes no label: write %s { ... }", s.name, s.name))
	default:
		L.Push(ld.fail(L, pos, "%s: expected an argument table { ... }, got %s", s.name, describe(arg)))
	}
	return 1
}

// serviceIndex is __index of a service: services export nothing to
// scripts.
func (ld *loader) serviceIndex(L *lua.LState) int {
	s := udArg(L, 1).(*service)
	if fn := ld.serviceFunction(L, s.name, lua.LVAsString(L.Get(2))); fn != nil {
		L.Push(fn)
		return 1
	}
	L.Push(ld.fail(L, ld.callerPos(L), "service %s has no field %s: configure it with %s { ... }", s.name, lua.LVAsString(L.Get(2)), s.name))
	return 1
}

// record converts a declaration's argument table and records the block,
// service block or plugin. A component declaration returns its instance,
// so that `local tok = file.read "token" { ... }` allows `tok.content`.
func (ld *loader) record(L *lua.LState, d *decl, t *lua.LTable) int {
	if ld.done {
		ld.raise(L, script.Errorf(ld.callerPos(L), "%s: declarations are only allowed while the script loads", d.describe()))
	}
	fieldPos := ld.fieldPositions(d)
	conv := ld.newConverter("", d.pos, fieldPos)
	args, _ := conv.topLevel(t)
	ld.addDiagnostics(L, conv.diags)

	switch d.kind {
	case declComponent, declModule:
		var mod *moduleDef
		if d.kind == declModule {
			mod = ld.names.lookup(d.name).module
		}
		blk := &script.Block{
			Kind: script.KindComponent, Name: d.name, Label: d.label,
			Pos: d.pos, Args: args, FieldPos: fieldPos,
			Instance: slices.Clone(ld.scope), Placement: ld.placement(L, d, args, mod),
		}
		id := blk.ID()
		if first, dup := ld.ids[id]; dup {
			L.Push(ld.fail(L, d.pos, "duplicate component %q: first declared at %s", id, first))
			return 1
		}
		ld.ids[id] = d.pos
		if d.kind == declModule {
			blk.Kind = script.KindModule
			ld.placements = append(ld.placements, blk.Placement)
			ld.instantiate(L, d, mod, t, blk)
			ld.placements = ld.placements[:len(ld.placements)-1]
			if blk.Module == nil {
				return 0 // reported
			}
		}
		ld.out.Blocks = append(ld.out.Blocks, blk)
		L.Push(ld.newUserData(&instance{name: d.name, label: d.label, pos: d.pos, scope: ld.scopePrefix()}, ld.mt.instance))
		return 1
	case declService:
		if first, dup := ld.serviceIDs[d.name]; dup {
			L.Push(ld.fail(L, d.pos, "duplicate service %q: first declared at %s", d.name, first))
			return 1
		}
		ld.serviceIDs[d.name] = d.pos
		ld.out.Blocks = append(ld.out.Blocks, &script.Block{
			Kind: script.KindService, Name: d.name,
			Pos: d.pos, Args: args, FieldPos: fieldPos,
		})
	case declPlugin:
		if first, dup := ld.pluginIDs[d.label]; dup {
			L.Push(ld.fail(L, d.pos, "duplicate plugin %q: first declared at %s", d.label, first))
			return 1
		}
		ld.pluginIDs[d.label] = d.pos
		ld.out.Plugins = append(ld.out.Plugins, script.Plugin{Namespace: d.label, Pos: d.pos, Args: args})
		ld.installPlugin(L, d.label, d.pos)
	}
	return 0
}

// installPlugin makes a plugin namespace a global whose children are
// component names (`acme.redact "pii" { ... }`). The engine checks later
// that the plugin has such components. A namespace the options already
// define is left alone.
func (ld *loader) installPlugin(L *lua.LState, ns string, pos script.Pos) {
	g := L.G.Global
	switch v := g.RawGetString(ns).(type) {
	case *lua.LNilType:
		if forbidden[ns] {
			ld.fail(L, pos, "plugin namespace %q is not allowed: %s is reserved", ns, ns)
			return
		}
		g.RawSetString(ns, ld.nodeValue(&nsNode{path: ns, open: true, children: map[string]*nsNode{}}))
	case *lua.LUserData:
		if _, ok := v.Value.(*nsNode); ok {
			return
		}
		ld.fail(L, pos, "plugin namespace %q clashes with the global %s", ns, ns)
	default:
		ld.fail(L, pos, "plugin namespace %q clashes with the global %s", ns, ns)
	}
}

// addDiagnostics records problems found by a converter.
func (ld *loader) addDiagnostics(L *lua.LState, ds script.Diagnostics) {
	for _, d := range ds {
		ld.fail(L, d.Pos, "%s", d.Message)
	}
}
