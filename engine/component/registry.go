package component

import (
	"fmt"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Registration describes a kind of component to the engine.
type Registration struct {
	// Name is the dotted name used in scripts, e.g. "otelcol.receiver.otlp".
	Name string
	// Args is a zero value of the arguments type. Arguments decode into a
	// fresh copy of it; a type with a `SetToDefault()` method on its pointer
	// gets its defaults first, one with `Validate() error` is validated.
	Args Arguments
	// Exports is a zero value of the exports type (a struct with `lua`
	// tags), or nil when the component exports nothing.
	Exports Exports
	// NeedsServices names the services the component uses.
	NeedsServices []string
	// Build creates the component from decoded arguments.
	Build func(opts Options, args Arguments) (Component, error)
	// Doc is a one-line description for listings.
	Doc string
	// Source says where the component comes from ("native" unless a plugin
	// sets it), for listings.
	Source string
	// Schema, when set, takes the place of Args and Exports for components
	// whose arguments and exports are not Go structs (components written
	// in Lua).
	Schema Schema
	// Accepts, for a telemetry component (one that exports `input`),
	// checks that its input takes signal s, so that wiring a signal into a
	// component that refuses it is an error at load, as the collector
	// refuses such a pipeline at start. outputs says which signals the
	// component's own `output` argument has consumers for: a component may
	// take only what it can pass on (a processor takes a signal it has
	// consumers for; a connector, one it turns into a signal that has).
	// The error says why not, as a clause: "it takes metrics". Nil: the
	// input takes every signal.
	Accepts func(s dataplane.Signal, outputs [dataplane.NumSignals]bool) error
	// Fingerprint identifies the implementation (e.g. a hash of a plugin's
	// files). When a reload brings a registration with another
	// fingerprint, running components of that name are rebuilt rather
	// than updated. Native components leave it empty.
	Fingerprint string
}

// Schema describes arguments and exports that are not Go structs
// (components written in Lua): script.Schema, documented for listings.
type Schema interface {
	script.Schema
	// Describe documents the arguments and exports for listings.
	Describe() (args, exports []decode.Field)
}

// ExportTypes returns the registration's exports by name.
func (r Registration) ExportTypes() map[string]reflect.Type {
	if r.Schema != nil {
		return r.Schema.ExportTypes()
	}
	if r.Exports == nil {
		return nil
	}
	return decode.ExportTypes(reflect.TypeOf(r.Exports))
}

// DecodeArgs decodes an evaluated script value into a fresh value of the
// registration's arguments.
func (r Registration) DecodeArgs(v any) (Arguments, error) {
	if r.Schema != nil {
		return r.Schema.DecodeArgs(v)
	}
	target := reflect.New(reflect.TypeOf(r.Args))
	if err := decode.Decode(v, target.Interface()); err != nil {
		return nil, err
	}
	return target.Elem().Interface(), nil
}

// Describe documents the registration's arguments and exports.
func (r Registration) Describe() (args, exports []decode.Field) {
	if r.Schema != nil {
		return r.Schema.Describe()
	}
	args = decode.Describe(reflect.TypeOf(r.Args))
	if r.Exports != nil {
		exports = decode.Describe(reflect.TypeOf(r.Exports))
	}
	return args, exports
}

// Registry holds component registrations by name.
type Registry struct {
	mu    sync.RWMutex
	byKey map[string]Registration
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKey: map[string]Registration{}}
}

// DefaultRegistry is the registry that Register adds to; built-in
// components register themselves into it from init().
var DefaultRegistry = NewRegistry()

// Register adds r to DefaultRegistry and panics on an invalid or clashing
// registration: it is a programming error.
func Register(r Registration) {
	if err := DefaultRegistry.Add(r); err != nil {
		panic(err)
	}
}

var namePart = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Add registers r. A name must be dotted lowercase parts of at least two,
// unique, and neither a prefix of another name nor prefixed by one: names
// become Lua tables, so `a.b` and `a.b.c` cannot both be components.
func (reg *Registry) Add(r Registration) error {
	parts := strings.Split(r.Name, ".")
	if len(parts) < 2 {
		return fmt.Errorf("component name %q: want at least two dotted parts", r.Name)
	}
	for _, p := range parts {
		if !namePart.MatchString(p) {
			return fmt.Errorf("component name %q: part %q must match %s", r.Name, p, namePart)
		}
	}
	if r.Build == nil {
		return fmt.Errorf("component %q: Build is nil", r.Name)
	}
	if r.Args == nil && r.Schema == nil {
		return fmt.Errorf("component %q: neither Args nor Schema is set", r.Name)
	}
	if r.Exports != nil && reflect.TypeOf(r.Exports).Kind() != reflect.Struct {
		return fmt.Errorf("component %q: Exports must be a struct, got %T", r.Name, r.Exports)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if _, ok := reg.byKey[r.Name]; ok {
		return fmt.Errorf("component %q registered twice", r.Name)
	}
	for other := range reg.byKey {
		if strings.HasPrefix(other, r.Name+".") || strings.HasPrefix(r.Name, other+".") {
			return fmt.Errorf("component %q clashes with %q: one is a prefix of the other", r.Name, other)
		}
	}
	if r.Source == "" {
		r.Source = "native"
	}
	reg.byKey[r.Name] = r
	return nil
}

// Remove drops a registration (plugins unload their components).
func (reg *Registry) Remove(name string) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	delete(reg.byKey, name)
}

// Get returns the registration of name.
func (reg *Registry) Get(name string) (Registration, bool) {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	r, ok := reg.byKey[name]
	return r, ok
}

// Names returns every registered name, sorted.
func (reg *Registry) Names() []string {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	names := make([]string, 0, len(reg.byKey))
	for n := range reg.byKey {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Clone returns a copy of the registry that can be extended (with plugin
// components) without changing the original.
func (reg *Registry) Clone() *Registry {
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	c := NewRegistry()
	for k, v := range reg.byKey {
		c.byKey[k] = v
	}
	return c
}
