package yaml_test

import (
	"bytes"
	"testing"

	newpath "go.yaml.in/yaml/v3"
	oldpath "gopkg.in/yaml.v3"
)

// The old path's names are the new path's: a value of one is a value of the
// other, so packages importing either path exchange nodes and interfaces.
var (
	_ *newpath.Node       = (*oldpath.Node)(nil)
	_ newpath.Unmarshaler = oldpath.Unmarshaler(nil)
	_ newpath.Marshaler   = oldpath.Marshaler(nil)
	_ *newpath.Decoder    = (*oldpath.Decoder)(nil)
	_ *newpath.Encoder    = (*oldpath.Encoder)(nil)
	_ *newpath.TypeError  = (*oldpath.TypeError)(nil)
	_ newpath.IsZeroer    = oldpath.IsZeroer(nil)
	_ newpath.Kind        = oldpath.MappingNode
	_ newpath.Style       = oldpath.FlowStyle
)

type upper struct{ s string }

func (u *upper) UnmarshalYAML(n *oldpath.Node) error {
	u.s = n.Value + "!"
	return nil
}

func TestOldPathIsNewPath(t *testing.T) {
	doc := []byte("a: [1, 2]\nb: hello\n")
	var viaOld, viaNew map[string]any
	if err := oldpath.Unmarshal(doc, &viaOld); err != nil {
		t.Fatal(err)
	}
	if err := newpath.Unmarshal(doc, &viaNew); err != nil {
		t.Fatal(err)
	}
	outOld, err := oldpath.Marshal(viaOld)
	if err != nil {
		t.Fatal(err)
	}
	outNew, _ := newpath.Marshal(viaNew)
	if !bytes.Equal(outOld, outNew) {
		t.Fatalf("Marshal differs:\n%s\n%s", outOld, outNew)
	}

	// An Unmarshaler written against the old path is called by the new one.
	var u struct{ B upper }
	if err := newpath.Unmarshal(doc, &u); err != nil || u.B.s != "hello!" {
		t.Fatalf("Unmarshaler: %q, %v", u.B.s, err)
	}

	// Decoder and Encoder, and the node kinds.
	var n oldpath.Node
	if err := oldpath.NewDecoder(bytes.NewReader(doc)).Decode(&n); err != nil {
		t.Fatal(err)
	}
	if n.Kind != oldpath.DocumentNode || n.Content[0].Kind != newpath.MappingNode {
		t.Fatalf("kinds: %v, %v", n.Kind, n.Content[0].Kind)
	}
	var buf bytes.Buffer
	if err := oldpath.NewEncoder(&buf).Encode(&n); err != nil || buf.String() != string(doc) {
		t.Fatalf("Encode: %q, %v", buf.String(), err)
	}

	// A type error is the same type.
	var wrong struct{ A int }
	err = oldpath.Unmarshal(doc, &wrong)
	if _, ok := err.(*newpath.TypeError); !ok {
		t.Fatalf("error %T %v, want *TypeError", err, err)
	}
}
