package engine

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/flowlua/flowlua/engine/script"
)

// WriteDOT writes the graph in Graphviz DOT: components as boxes, services
// as ellipses (those the script configures or something uses), and an edge
// from each node to what it depends on, labelled with what it carries.
// Telemetry edges (labelled "input") thus point the way data flows. The
// components of a module instance are drawn in a cluster named after the
// instance, with the instance itself (its exports) as a tab-shaped node.
func (g *Graph) WriteDOT(w io.Writer) error {
	shown := g.shownNodes()
	root := &dotCluster{children: map[string]*dotCluster{}}
	for _, id := range script.SortedKeys(shown) {
		n := g.Nodes[id]
		c := root
		var chain []string
		if n.Block != nil {
			chain = n.Block.Instance
			if n.Block.Kind == script.KindModule {
				chain = append(slices.Clone(chain), n.Block.Name+"."+n.Block.Label)
			}
		}
		for i, inst := range chain {
			next := c.children[inst]
			if next == nil {
				next = &dotCluster{id: strings.Join(chain[:i+1], "."), label: inst, children: map[string]*dotCluster{}}
				c.children[inst] = next
			}
			c = next
		}
		c.nodes = append(c.nodes, id)
	}
	var sb strings.Builder
	sb.WriteString("digraph flowlua {\n\trankdir=LR;\n")
	root.write(&sb, g, "\t")
	for _, e := range g.Edges {
		if shown[e.From] && shown[e.To] {
			fmt.Fprintf(&sb, "\t%q -> %q [label=%q];\n", e.From, e.To, e.Label)
		}
	}
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}

// dotCluster is the nodes declared in one module instance (the root: at
// the top level) and the clusters of the instances declared in it.
type dotCluster struct {
	id, label string
	nodes     []string // sorted
	children  map[string]*dotCluster
}

func (c *dotCluster) write(sb *strings.Builder, g *Graph, indent string) {
	for _, id := range c.nodes {
		n := g.Nodes[id]
		shape := "box" // nodes others reference: components
		if _, referable := n.Kind.ExportTypes(); !referable {
			shape = "ellipse" // services
		}
		title := n.Kind.Title(id)
		if n.Block != nil && c.id != "" {
			title = n.Block.Name + "." + n.Block.Label // the cluster names the instance
		}
		if n.Block != nil && n.Block.Kind == script.KindModule {
			shape = "tab"
		}
		if title != id {
			fmt.Fprintf(sb, "%s%q [label=%q, shape=%s];\n", indent, id, title, shape)
		} else {
			fmt.Fprintf(sb, "%s%q [shape=%s];\n", indent, id, shape)
		}
	}
	for _, key := range script.SortedKeys(c.children) {
		child := c.children[key]
		fmt.Fprintf(sb, "%ssubgraph %q {\n%s\tlabel=%q;\n", indent, "cluster_"+child.id, indent, child.label)
		child.write(sb, g, indent+"\t")
		fmt.Fprintf(sb, "%s}\n", indent)
	}
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
