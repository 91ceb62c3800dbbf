// Package engine checks loaded scripts into graphs of components and
// services, evaluates them in dependency order, runs them and applies
// reloads. It knows nothing of Lua or HTTP: scripts arrive as
// script.Script values from a loader function.
//
// The package's rooms:
//
//   - loader.go builds a Graph from a script: the one place that turns
//     declarations into nodes of a kind;
//   - component_node.go and service_node.go hold each kind of node: what
//     the graph knows of it (NodeKind) and its lifecycle in the running
//     graph (liveNode);
//   - controller.go reloads and applies scripts transactionally
//     (apply.go prepares an apply without touching what runs);
//   - propagate.go re-evaluates dependants when exports change;
//   - host.go answers services' queries about the running graph.
package engine

import (
	"reflect"

	"github.com/flowlua/flowlua/engine/script"
)

// Node is a node of a graph: a component or a service.
type Node struct {
	ID string
	// Block is the node's declaration; nil for a service the script does
	// not configure.
	Block *script.Block
	// Kind is what the node is; its concrete type is one of this
	// package's kinds (*ComponentKind, *ServiceKind).
	Kind NodeKind
}

// NodeKind is what a graph knows of a kind of node. Each kind lives in its
// own file, together with its lifecycle in the running graph.
type NodeKind interface {
	// Title names a node of this kind with the given id for messages:
	// `file.read.a`, or `service "http"`.
	Title(id string) string
	// Needs lists the services a node of this kind uses: each is a
	// dependency of the node.
	Needs() []string
	// ExportTypes returns the node's exports by name (a nil type means any
	// type) and whether other nodes may reference the node at all.
	ExportTypes() (exports map[string]reflect.Type, referable bool)
	// Decode decodes the node's evaluated block (a map, empty when the
	// script has no block) into a fresh value of its arguments or config.
	Decode(value map[string]any) (any, error)
	// newLive returns the node of the running graph that runs decl, not
	// started. The controller asks only for ids it does not run yet (or
	// whose running node does not keep decl).
	newLive(c *Controller, decl *Node) liveNode
}

// Pos is the node's declaration position (zero for undeclared services).
func (n *Node) Pos() script.Pos {
	if n.Block == nil {
		return script.Pos{}
	}
	return n.Block.Pos
}

// Describe names the node for messages: `file.read.a (main.lua:1)`, or
// `service "http"` for a service, with its position when declared.
func (n *Node) Describe() string {
	name := n.Kind.Title(n.ID)
	if p := n.Pos(); p.File != "" {
		return name + " (" + p.String() + ")"
	}
	return name
}

// Edge says that From depends on To: From is evaluated after To.
type Edge struct {
	From, To string
	// Label says what the edge carries: an export name ("content", "input")
	// or "service".
	Label string
}

// Graph is a checked script: nodes, the edges between them, and an
// evaluation order.
type Graph struct {
	Script *script.Script
	Nodes  map[string]*Node
	Edges  []Edge // sorted by From, To, Label
	// Order lists node ids dependencies first; ties break by id, so the
	// order is deterministic.
	Order []string

	deps, dependants map[string][]string
	// levels groups Order by depth: a node's level is one more than the
	// deepest of its dependencies, so nodes of one level are independent.
	levels [][]string
}

// Dependencies returns the ids a node depends on, sorted.
func (g *Graph) Dependencies(id string) []string { return g.deps[id] }

// Dependants returns the ids that depend on a node, sorted.
func (g *Graph) Dependants(id string) []string { return g.dependants[id] }
