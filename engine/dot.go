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
func (g *Graph) WriteDOT(w io.Writer) error {
	var sb strings.Builder
	sb.WriteString("digraph flowlua {\n\trankdir=LR;\n")
	for _, id := range script.SortedKeys(g.Nodes) {
		n := g.Nodes[id]
		if n.Kind == script.KindService {
			if n.Block == nil && len(g.deps[id]) == 0 && len(g.dependants[id]) == 0 {
				continue
			}
			fmt.Fprintf(&sb, "\t%q [label=%q, shape=ellipse];\n", id, `service "`+id+`"`)
			continue
		}
		fmt.Fprintf(&sb, "\t%q [shape=box];\n", id)
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&sb, "\t%q -> %q [label=%q];\n", e.From, e.To, e.Label)
	}
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}
