package convert

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The bounds of a config with its aliases expanded. The converter follows
// every alias (`*anchor`) and merge key (`<<: *base`) where it appears, so
// a few hundred bytes of aliases to aliases (a "billion laughs") would
// expand into gigabytes of script. yaml.v3's own bound on aliasing
// (excessive aliasing) applies only when it decodes into Go values, not to
// the node tree the converter reads. A collector config, even a large one
// of the contrib distribution, is a few thousand nodes and a few dozen
// levels deep, expanded.
const (
	// maxExpandedNodes is how many YAML nodes a config may hold with its
	// aliases expanded.
	maxExpandedNodes = 200_000
	// maxExpandedDepth is how deeply they may nest.
	maxExpandedDepth = 200
)

// aliasCheck measures the expansion of a YAML document: per node, the
// nodes and levels it stands for, each node measured once.
type aliasCheck struct {
	seen map[*yaml.Node]expansion
}

type expansion struct {
	nodes, depth int
	busy         bool // being measured: an alias back to it is a cycle
}

// checkAliases returns an error, with the line of the alias that crosses
// a bound, when doc expanded would exceed maxExpandedNodes or
// maxExpandedDepth.
func checkAliases(doc *yaml.Node) error {
	c := aliasCheck{seen: map[*yaml.Node]expansion{}}
	_, err := c.measure(doc)
	return err
}

// measure returns what n stands for, expanded.
func (c *aliasCheck) measure(n *yaml.Node) (expansion, error) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return expansion{}, nil
		}
		e, err := c.measure(n.Alias)
		if err != nil {
			return e, err
		}
		return e, c.within(e, n)
	}
	if e, ok := c.seen[n]; ok {
		if e.busy {
			return e, &aliasError{line: n.Line, msg: "an alias refers to a node that contains it"}
		}
		return e, nil
	}
	c.seen[n] = expansion{busy: true}
	total := expansion{nodes: 1, depth: 1}
	for _, child := range n.Content {
		e, err := c.measure(child)
		if err != nil {
			return e, err
		}
		total.nodes += e.nodes
		total.depth = max(total.depth, e.depth+1)
		if err := c.within(total, child); err != nil {
			return total, err
		}
	}
	c.seen[n] = total
	return total, nil
}

// within returns the error of an expansion past the bounds, at the line
// of at, the node (an alias, or what holds one) that took it there.
func (c *aliasCheck) within(e expansion, at *yaml.Node) error {
	switch {
	case e.nodes > maxExpandedNodes:
		return &aliasError{line: at.Line, msg: fmt.Sprintf("with its aliases expanded, the config holds more than %d YAML nodes (an alias bomb?)", maxExpandedNodes)}
	case e.depth > maxExpandedDepth:
		return &aliasError{line: at.Line, msg: fmt.Sprintf("with its aliases expanded, the config nests more than %d levels deep", maxExpandedDepth)}
	}
	return nil
}

// aliasError is an expansion past the bounds, at a line of the config.
type aliasError struct {
	line int
	msg  string
}

func (e *aliasError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }
