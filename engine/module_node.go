package engine

import (
	"maps"
	"reflect"
	"sync"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// ModuleKind is the kind of a module instance: `gateway "eu" { ... }`.
// The components its module declares are nodes of their own, with ids
// scoped under the instance's; the instance node checks its arguments
// and publishes its exports, values of those components' exports, so
// that references from outside reach only what the module exports.
type ModuleKind struct {
	Block *script.Block
}

var _ NodeKind = (*ModuleKind)(nil)

// Title names the instance through the instances it was declared in.
func (k *ModuleKind) Title(string) string { return k.Block.Chain() }

// Needs returns nothing: the module's components declare their services.
func (k *ModuleKind) Needs() []string { return nil }

// ExportTypes returns the module's exports; instances may be referenced.
func (k *ModuleKind) ExportTypes() (map[string]reflect.Type, bool) {
	return k.Block.Module.Def.Schema.ExportTypes(), true
}

// Decode checks the instance's arguments against the module's schema.
func (k *ModuleKind) Decode(value map[string]any) (any, error) {
	return k.Block.Module.Def.Schema.DecodeArgs(value)
}

func (k *ModuleKind) newLive(c *Controller, decl *Node) liveNode {
	return &moduleNode{id: decl.ID, c: c}
}

// moduleNode is a module instance of the running graph. Staging it checks
// its arguments again and evaluates its exports; the commit publishes
// them, and a change re-evaluates the nodes that reference them. It runs
// nothing: its components run as nodes of their own.
type moduleNode struct {
	id string
	c  *Controller

	mu      sync.Mutex
	exports map[string]any
	secrets map[string]func(string) // the exports derived from a secret: how to keep their strings
	live    bool
}

var _ liveNode = (*moduleNode)(nil)

func (n *moduleNode) keeps(decl *Node) bool {
	_, ok := decl.Kind.(*ModuleKind)
	return ok
}

func (n *moduleNode) stage(decl *Node, lookup Lookup) (staged, error) {
	if _, err := decodeBlock(decl, lookup); err != nil {
		return staged{}, err
	}
	exports := make(map[string]any, len(decl.Block.Module.Exports))
	secrets := map[string]func(string){}
	for name, expr := range decl.Block.Module.Exports {
		v, keep, err := evaluate(expr, lookup)
		if err != nil {
			return staged{}, err
		}
		exports[name] = v
		if keep != nil {
			secrets[name] = keep
		}
	}
	// The exports are known to nodes staged after this one (which
	// reference it) before the commit: publishing is what the commit
	// does for running nodes.
	n.mu.Lock()
	prev, prevSecrets := n.exports, n.secrets
	changed := !reflect.DeepEqual(exports, prev)
	n.exports, n.secrets = exports, secrets
	live := n.live
	n.mu.Unlock()
	discard := func() {
		n.mu.Lock()
		n.exports, n.secrets = prev, prevSecrets
		n.mu.Unlock()
	}
	return staged{discard: discard, commit: func() {
		n.mu.Lock()
		n.live = true
		n.mu.Unlock()
		if changed && live {
			n.c.markDirty(n.id)
		}
	}}, nil
}

func (n *moduleNode) appliesOnStage() bool { return false }

func (n *moduleNode) evalFailed(err error) {
	n.c.logger.Error("evaluating module instance failed, keeping its last exports", "module_instance", n.id, "err", err)
}

func (n *moduleNode) exportValues() map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	return maps.Clone(n.exports)
}

// export returns an export; one derived from a secret comes as a Secret,
// so that the secret stays one in the nodes that reference it.
func (n *moduleNode) export(name string) (any, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.exports[name]
	if keep := n.secrets[name]; ok && keep != nil {
		return Secret{Value: v, Keep: keep}, true
	}
	return v, ok
}

func (n *moduleNode) stop(string, time.Time) {
	n.mu.Lock()
	n.live = false
	n.mu.Unlock()
}

func (n *moduleNode) lifelong() bool { return false }

func (n *moduleNode) consumer() service.Consumer {
	return service.Consumer{Kind: service.ConsumerModule, ID: n.id}
}

func (n *moduleNode) info(*Graph) (component.Info, bool) { return component.Info{}, false }
