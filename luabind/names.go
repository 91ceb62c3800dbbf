package luabind

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/script"
)

// identRE is what labels, plugin namespaces, service names and the parts of
// component names must match.
var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isIdent(s string) bool { return identRE.MatchString(s) }

// nsNode is a node of the tree of component names: a namespace
// ("otelcol.receiver") or a component name ("otelcol.receiver.otlp"). The
// children of the root are the globals of the namespaces.
type nsNode struct {
	path      string
	children  map[string]*nsNode
	component bool           // path is a component name
	open      bool           // a plugin namespace: every child is a component name
	modules   bool           // a namespace made by module definitions
	module    *moduleDef     // set when path is a module's name
	ud        *lua.LUserData // the node's Lua value, made on first use
}

// buildNames builds the tree of the registered component names; no name
// may be a prefix of another, since a namespace cannot also be a component.
func buildNames(components []string) (*nsNode, error) {
	root := &nsNode{children: map[string]*nsNode{}}
	for _, name := range components {
		parts := strings.Split(name, ".")
		n := root
		for i, p := range parts {
			if !isIdent(p) {
				return nil, fmt.Errorf("luabind: invalid component name %q", name)
			}
			child := n.children[p]
			if child == nil {
				child = &nsNode{path: strings.Join(parts[:i+1], "."), children: map[string]*nsNode{}}
				n.children[p] = child
			}
			n = child
			if n.component && i < len(parts)-1 {
				return nil, fmt.Errorf("luabind: component name %q is a prefix of %q", n.path, name)
			}
		}
		if n.component {
			return nil, fmt.Errorf("luabind: component name %q given twice", name)
		}
		if len(n.children) > 0 {
			return nil, fmt.Errorf("luabind: component name %q is a prefix of another name", name)
		}
		n.component = true
	}
	return root, nil
}

// childPaths returns the full paths of a node's children, for "did you
// mean" hints.
func (n *nsNode) childPaths() []string {
	paths := make([]string, 0, len(n.children))
	for _, c := range n.children {
		paths = append(paths, c.path)
	}
	sort.Strings(paths)
	return paths
}

// unknownRecord is a name that does not exist: a global nobody defined, or
// an unknown child of a namespace (`otelcol.reciever`). What is done with it
// decides the message: a declaration reports an unknown component, a use as
// a value an unknown name; a record never used is reported at the end.
type unknownRecord struct {
	parts    []string // the path up to the first unknown part
	pos      script.Pos
	parent   *nsNode // the namespace the unknown part was looked up in
	reported bool
}

func (u *unknownRecord) name() string { return strings.Join(u.parts, ".") }

// unknownRef is a value derived from an unknown name (by indexing it): the
// full path written so far. Once its record is reported it absorbs
// anything done to it silently; the loader's sink is one such value.
type unknownRef struct {
	rec  *unknownRecord
	path []string
}

// didYouMeanChild suggests a sibling of an unknown name in its namespace.
func (ld *loader) didYouMeanChild(u *unknownRecord) string {
	if u.parent == nil {
		return ""
	}
	return didYouMean(u.name(), u.parent.childPaths())
}

// didYouMean wraps script.DidYouMean.
func didYouMean(name string, candidates []string) string {
	return script.DidYouMean(name, candidates)
}

// sortedKeys returns the keys of a map in sorted order.
func sortedKeys[V any](m map[string]V) []string { return script.SortedKeys(m) }

// lookup returns the node of a dotted name, or nil.
func (n *nsNode) lookup(path string) *nsNode {
	for _, p := range strings.Split(path, ".") {
		if n = n.children[p]; n == nil {
			return nil
		}
	}
	return n
}

// scopePrefix is the id prefix of what is declared now: "gateway.eu." in
// the body of the instance gateway.eu, "" at the top level.
func (ld *loader) scopePrefix() string {
	if len(ld.scope) == 0 {
		return ""
	}
	return strings.Join(ld.scope, ".") + "."
}
