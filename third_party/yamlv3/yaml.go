// Package yaml is gopkg.in/yaml.v3 for flowlua's builds: every name is
// go.yaml.in/yaml/v3's, the same library continued under the YAML
// organisation's path (gopkg.in/yaml.v3 v3.0.1 is its last release there).
// Some dependencies import the old path and others the new one; without
// this package a flowlua binary carried two copies of the same YAML
// library. See FLOWLUA.md.
package yaml

import (
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// The types are the new path's own, so values pass between packages that
// import either path.
type (
	// Decoder reads and decodes YAML values from an input stream.
	Decoder = yaml.Decoder
	// Encoder writes YAML values to an output stream.
	Encoder = yaml.Encoder
	// IsZeroer is implemented by types that report whether they are zero.
	IsZeroer = yaml.IsZeroer
	// Kind is the kind of a Node.
	Kind = yaml.Kind
	// Marshaler is implemented by types that marshal themselves into YAML.
	Marshaler = yaml.Marshaler
	// Node is a YAML document node.
	Node = yaml.Node
	// Style is the style of a Node.
	Style = yaml.Style
	// TypeError reports values that could not be decoded into their type.
	TypeError = yaml.TypeError
	// Unmarshaler is implemented by types that unmarshal a YAML node.
	Unmarshaler = yaml.Unmarshaler
)

// The node kinds.
const (
	DocumentNode = yaml.DocumentNode
	SequenceNode = yaml.SequenceNode
	MappingNode  = yaml.MappingNode
	ScalarNode   = yaml.ScalarNode
	AliasNode    = yaml.AliasNode
)

// The node styles.
const (
	TaggedStyle       = yaml.TaggedStyle
	DoubleQuotedStyle = yaml.DoubleQuotedStyle
	SingleQuotedStyle = yaml.SingleQuotedStyle
	LiteralStyle      = yaml.LiteralStyle
	FoldedStyle       = yaml.FoldedStyle
	FlowStyle         = yaml.FlowStyle
)

// Unmarshal decodes the first document in in into out.
func Unmarshal(in []byte, out any) error { return yaml.Unmarshal(in, out) }

// Marshal serializes in into a YAML document.
func Marshal(in any) ([]byte, error) { return yaml.Marshal(in) }

// NewDecoder returns a Decoder that reads from r.
func NewDecoder(r io.Reader) *Decoder { return yaml.NewDecoder(r) }

// NewEncoder returns an Encoder that writes to w.
func NewEncoder(w io.Writer) *Encoder { return yaml.NewEncoder(w) }
