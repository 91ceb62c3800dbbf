// Package engine checks loaded scripts into graphs of components and
// services, evaluates them in dependency order, runs them and applies
// reloads. It knows nothing of Lua or HTTP: scripts arrive as
// script.Script values from a loader function.
package engine

import (
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/services"
)

// Node is a component or a service of a graph.
type Node struct {
	ID   string
	Kind script.Kind
	// Block is the node's declaration; nil for a service the script does
	// not configure.
	Block *script.Block
	// Registration is set for components.
	Registration component.Registration
	// Service is set for services.
	Service services.Definition
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
	name := n.ID
	if n.Kind == script.KindService {
		name = `service "` + n.ID + `"`
	}
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
