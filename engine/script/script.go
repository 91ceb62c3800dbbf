// Package script is the neutral form of a loaded pipeline script: the blocks
// a script declared, their argument values, the references between them and
// the positions of everything, so that the engine can check and run a
// pipeline without knowing the language it was written in.
//
// A Value is one of:
//
//   - nil, bool, float64, string (literals),
//   - []any (a list) or map[string]any (a table with string keys),
//   - *Ref (a lazy reference to another component's export),
//   - *Expr (a lazy expression over references),
//   - after evaluation, any Go value a component exported (a consumer, ...).
package script

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Pos is a position in a script file.
type Pos struct {
	File string
	Line int
}

// String returns "file:line", or "" for the zero Pos.
func (p Pos) String() string {
	if p.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Kind tells a component block from a service block and a module
// instance.
type Kind int

// The kinds of block.
const (
	KindComponent Kind = iota
	KindService
	KindModule // an instance of a module: `gateway "eu" { ... }`
)

// Block is one declaration of a script: a component
// (`file.read "token" { ... }`), a service (`http { ... }`) or a module
// instance (`gateway "eu" { ... }`).
type Block struct {
	Kind  Kind
	Name  string // component or module name ("file.read"), or service name ("http")
	Label string // component or instance label; "" for services
	Pos   Pos    // where the block was declared
	Args  map[string]any
	// FieldPos optionally maps a field path ("tls.insecure") to the line
	// that holds it, when the loader knows it.
	FieldPos map[string]Pos
	// Instance is the chain of module instances the block was declared
	// in, outermost first, each as "<module>.<label>" ("gateway.eu");
	// empty at the top level of the script.
	Instance []string
	// Module is set for module instances.
	Module *ModuleInstance
	// Placement says where the block runs in a cluster: "all_nodes" (also
	// when empty) or "unique". A component declared in a module instance
	// has the instance's unless it says otherwise.
	Placement string
}

// ID is the block's id: "<name>.<label>" for components and module
// instances, prefixed by the ids of the instances it was declared in
// ("gateway.eu.otelcol.processor.batch.default"); the name for services.
func (b *Block) ID() string {
	if b.Kind == KindService {
		return b.Name
	}
	return b.Scope() + b.Name + "." + b.Label
}

// Scope is the prefix of the ids declared with the block: "" at the top
// level, "gateway.eu." inside the instance gateway.eu.
func (b *Block) Scope() string {
	if len(b.Instance) == 0 {
		return ""
	}
	return strings.Join(b.Instance, ".") + "."
}

// Chain names the block through the module instances it was declared in,
// for messages: "gateway.eu → otelcol.processor.batch.default"; its id at
// the top level.
func (b *Block) Chain() string {
	own := b.Name + "." + b.Label
	if b.Kind == KindService {
		own = b.Name
	}
	if len(b.Instance) == 0 {
		return own
	}
	return strings.Join(b.Instance, " → ") + " → " + own
}

// PosOf returns the position of a field path, falling back to the block's.
func (b *Block) PosOf(path string) Pos {
	for p := path; p != ""; {
		if pos, ok := b.FieldPos[p]; ok {
			return pos
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return b.Pos
}

// Refs returns every reference in the block's arguments (and a module
// instance's exports), in a stable order.
func (b *Block) Refs() []*Ref {
	var refs []*Ref
	collect := func(v any) {
		if r, ok := v.(*Ref); ok {
			refs = append(refs, r)
		}
	}
	Walk(b.Args, collect)
	if b.Module != nil {
		Walk(b.Module.Exports, collect)
	}
	return refs
}

// ModuleDef is a module: a reusable group of components with typed
// arguments and exports, defined in the script's language.
type ModuleDef struct {
	Name string // "gateway", or dotted ("integrations.host")
	Pos  Pos    // where it was defined
	Doc  string
	// Placement is where an instance runs unless it says: "all_nodes"
	// (also when empty) or "unique".
	Placement string
	// Schema decodes an instance's evaluated arguments (checking them) and
	// gives the types of its exports.
	Schema Schema
}

// Schema is the typing of arguments and exports that are not Go structs:
// a module's, or a component written in Lua (see component.Schema).
type Schema interface {
	// DecodeArgs decodes evaluated arguments, with the rules and errors of
	// package engine/decode; in check mode the value may hold
	// placeholders.
	DecodeArgs(v any) (any, error)
	// ExportTypes returns the Go type of each export by name; a nil type
	// means any type.
	ExportTypes() map[string]reflect.Type
}

// ModuleInstance is what a module instance declared besides its
// arguments: its definition and the values of its exports, references to
// the components of the instance.
type ModuleInstance struct {
	Def     *ModuleDef
	Exports map[string]any
}

// Script is everything a script declared.
type Script struct {
	Path     string            // the main script
	Blocks   []*Block          // in declaration order
	Files    []string          // every file read while loading (the script and its modules)
	Digests  map[string]Digest // what each of Files held when it was read; Absent for files looked for and not found
	Plugins  []Plugin          // plugin declarations
	Modules  []*ModuleDef      // modules the script defined, in definition order
	Warnings Diagnostics
}

// Digest identifies the content of a file: its SHA-256.
type Digest [sha256.Size]byte

// DigestOf returns the digest of content.
func DigestOf(content []byte) Digest { return sha256.Sum256(content) }

// Absent is the digest of a file that loading looked for and did not
// find (a module not written yet): a watcher reloads when it appears.
var Absent = Digest{0: 0xff, 31: 0xff}

// AddMissing records that loading looked for path and did not find it.
func (s *Script) AddMissing(path string) {
	if s.Digests == nil {
		s.Digests = map[string]Digest{}
	}
	s.Digests[path] = Absent
}

// AddFile records that loading read path and found content in it, so
// that a watcher can tell whether the file changed since.
func (s *Script) AddFile(path string, content []byte) {
	s.Files = append(s.Files, path)
	if s.Digests == nil {
		s.Digests = map[string]Digest{}
	}
	s.Digests[path] = DigestOf(content)
}

// Plugin is a `plugin "name" { ... }` declaration.
type Plugin struct {
	Namespace string
	Pos       Pos
	Args      map[string]any
}

// Ref is a lazy reference `<component id>.<export>`.
type Ref struct {
	Component string // the referenced component's id
	Export    string
	Pos       Pos // where the reference was written
	// Scope is the id prefix of the module instance the reference was
	// written in ("gateway.eu."), which Component starts with; "" at the
	// top level.
	Scope string
}

// String returns "<component>.<export>".
func (r *Ref) String() string { return r.Component + "." + r.Export }

// Func is a function of the script's language that computes a value from
// evaluated arguments. Implementations must be safe for concurrent use.
type Func interface {
	Call(args []any) (any, error)
}

// Expr is a lazy expression over references: an operator applied to its
// operands, or Compute calling a script function with its listed inputs.
type Expr struct {
	Op   string // "..", "+", "-", "*", "/", "%", "^", "neg", "compute" or "shard"
	Args []any  // the operands (Values)
	Func Func   // for "compute"; for "shard", the optional key function
	Pos  Pos
	// Service is the service that places the keys of a "shard"
	// expression (`cluster.shard(list, key_fn)`: its one operand is the
	// list, its value the part of the list this node owns).
	Service string
}

// Placeholder stands in for a value that is not known yet, only its type:
// the loader type-checks references against the Go type of the export.
type Placeholder struct {
	Type reflect.Type // nil when unknown (the result of compute)
	From string       // what produced it, for messages ("file.read.token.content")
}

// Walk calls fn for every value in v, depth first, visiting map keys in
// sorted order.
func Walk(v any, fn func(any)) {
	fn(v)
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			Walk(e, fn)
		}
	case map[string]any:
		for _, k := range SortedKeys(v) {
			Walk(v[k], fn)
		}
	case *Expr:
		for _, a := range v.Args {
			Walk(a, fn)
		}
	}
}

// SortedKeys returns the keys of m in sorted order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// MapLines moves every position in file to the one f gives for its line:
// for a script made from other files (collector configs), so that
// positions name those files' lines. It changes s in place, and ds.
func (s *Script) MapLines(file string, f func(line int) Pos, ds Diagnostics) {
	move := func(p *Pos) {
		if p.File == file && p.Line > 0 {
			*p = f(p.Line)
		}
	}
	visit := func(v any) {
		switch v := v.(type) {
		case *Ref:
			move(&v.Pos)
		case *Expr:
			move(&v.Pos)
		}
	}
	for _, b := range s.Blocks {
		move(&b.Pos)
		for k, p := range b.FieldPos {
			move(&p)
			b.FieldPos[k] = p
		}
		Walk(b.Args, visit)
		if b.Module != nil {
			Walk(b.Module.Exports, visit)
		}
	}
	for i := range s.Plugins {
		move(&s.Plugins[i].Pos)
	}
	for _, m := range s.Modules {
		move(&m.Pos)
	}
	for i := range s.Warnings {
		move(&s.Warnings[i].Pos)
	}
	for i := range ds {
		move(&ds[i].Pos)
	}
}
