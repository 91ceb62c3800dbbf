package engine

import (
	"strings"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
)

// Checking signals.
//
// A telemetry component takes `output = { traces = {...}, metrics = {...},
// logs = {...} }` (a connector also "traces/<name>" and so on: named
// outputs of a signal), lists of references to other components' `input`.
// Each reference sends one signal to the component it names; when that
// component does not take the signal (its registration's Accepts says
// so), the script is refused at load, at the reference's position, as the
// collector refuses such a pipeline at start, rather than every batch of
// that signal failing while the pipeline runs. A reference to a module
// instance's export is followed to the component the module exports.

// maxExportHops bounds following module exports to a component (each
// level of nesting is one hop), so that exports that name each other end.
const maxExportHops = 64

// checkSignals reports every reference in an output that sends a signal
// to a component whose input does not take it.
func (b *builder) checkSignals() {
	for _, id := range b.dag.Nodes() {
		n := b.nodes[id]
		if _, ok := n.Kind.(*ComponentKind); !ok || n.Block == nil {
			continue
		}
		out, ok := n.Block.Args["output"].(map[string]any)
		if !ok {
			continue
		}
		for _, key := range script.SortedKeys(out) {
			sig, ok := outputSignal(key)
			if !ok {
				continue // decoding reports the key
			}
			script.Walk(out[key], func(v any) {
				if ref, ok := v.(*script.Ref); ok {
					b.checkSignal(n, key, sig, ref)
				}
			})
		}
	}
}

// checkSignal reports ref, in the output key of n, when the component it
// leads to does not take sig.
func (b *builder) checkSignal(n *Node, key string, sig dataplane.Signal, ref *script.Ref) {
	target, ok := b.exportTarget(ref)
	if !ok || target.Export != "input" {
		return
	}
	tn := b.nodes[target.Component]
	kind, ok := tn.Kind.(*ComponentKind)
	if !ok || kind.Registration.Accepts == nil {
		return
	}
	err := kind.Registration.Accepts(sig, outputSignals(tn.Block))
	if err == nil {
		return
	}
	what := ref.String()
	if target != ref {
		what += " (" + target.String() + ")"
	}
	b.errorf(ref.Pos, "%s: output.%s: %s does not accept %s (%v)", n.Block.Chain(), key, what, sig, err)
}

// exportTarget follows ref through module instances' exports to the
// component export it stands for; ok is false when it leads elsewhere
// (an undeclared node, a computed value).
func (b *builder) exportTarget(ref *script.Ref) (*script.Ref, bool) {
	for range maxExportHops {
		n, ok := b.nodes[ref.Component]
		if !ok {
			return nil, false
		}
		mk, ok := n.Kind.(*ModuleKind)
		if !ok {
			return ref, true
		}
		next, ok := mk.Block.Module.Exports[ref.Export].(*script.Ref)
		if !ok {
			return nil, false
		}
		ref = next
	}
	return nil, false
}

// outputSignal returns the signal of an output key: "traces", or
// "traces/<name>" (a connector's named output).
func outputSignal(key string) (dataplane.Signal, bool) {
	name, _, _ := strings.Cut(key, "/")
	return dataplane.ParseSignal(name)
}

// outputSignals says which signals the output argument of blk has
// consumers for. An output the loader cannot see into (a computed value)
// may have any.
func outputSignals(blk *script.Block) [dataplane.NumSignals]bool {
	var used [dataplane.NumSignals]bool
	if blk == nil {
		return used
	}
	v, ok := blk.Args["output"]
	if !ok {
		return used
	}
	out, ok := v.(map[string]any)
	if !ok {
		if l, isList := v.([]any); isList && len(l) == 0 {
			return used // Lua's {}
		}
		return [dataplane.NumSignals]bool{true, true, true}
	}
	for key, consumers := range out {
		sig, ok := outputSignal(key)
		if !ok {
			continue
		}
		if l, isList := consumers.([]any); !isList || len(l) > 0 {
			used[sig] = used[sig] || consumers != nil
		}
	}
	return used
}
