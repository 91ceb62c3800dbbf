package engine

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowlua/flowlua/engine/script"
)

// WriteDOT writes the graph in Graphviz DOT: components as boxes, services
// as ellipses (those the script configures or something uses), and an edge
// from each node to what it depends on, labelled with what it carries.
// Telemetry edges (labelled "input") thus point the way data flows.
func (g *Graph) WriteDOT(w io.Writer) error {
	shown := g.shownNodes()
	var sb strings.Builder
	sb.WriteString("digraph flowlua {\n\trankdir=LR;\n")
	for _, id := range script.SortedKeys(shown) {
		kind := g.Nodes[id].Kind
		shape := "box" // nodes others reference: components
		if _, referable := kind.ExportTypes(); !referable {
			shape = "ellipse" // services
		}
		if title := kind.Title(id); title != id {
			fmt.Fprintf(&sb, "\t%q [label=%q, shape=%s];\n", id, title, shape)
		} else {
			fmt.Fprintf(&sb, "\t%q [shape=%s];\n", id, shape)
		}
	}
	for _, e := range g.Edges {
		if shown[e.From] && shown[e.To] {
			fmt.Fprintf(&sb, "\t%q -> %q [label=%q];\n", e.From, e.To, e.Label)
		}
	}
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// shownNodes returns the nodes the script declares (components and the
// services it configures) and every node those depend on: services
// nothing uses are left out.
func (g *Graph) shownNodes() map[string]bool {
	shown := map[string]bool{}
	var visit func(id string)
	visit = func(id string) {
		if shown[id] {
			return
		}
		shown[id] = true
		for _, d := range g.deps[id] {
			visit(d)
		}
	}
	for id, n := range g.Nodes {
		if n.Block != nil { // declared by the script
			visit(id)
		}
	}
	return shown
}
