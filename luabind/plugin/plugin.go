package plugin

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

// loadTimeout bounds running a component file while its plugin loads.
const loadTimeout = time.Second

// loaded is a plugin read from its files and checked: its manifest, its
// compiled Lua files and its components.
type loaded struct {
	files    *files
	manifest *Manifest
	grants   []string          // what its components get
	modules  map[string]*chunk // every Lua file by require name ("lib.util")
	kinds    []*kind
	fp       string
}

// kind is a component a plugin provides.
type kind struct {
	p      *loaded
	name   string // in the plugin: "redact"
	chunk  *chunk
	def    *definition
	schema *schema
}

// metricPrefix prefixes the names of the metrics a component defines:
// "<plugin>_<component>_".
func (k *kind) metricPrefix() string { return k.p.manifest.Name + "_" + k.name + "_" }

// load reads a plugin's manifest, compiles its files and reads its
// components' declarations. Mistakes are Diagnostics in the plugin's
// files.
func load(f *files) (*loaded, error) {
	m, err := readManifest(f)
	if err != nil {
		return nil, err
	}
	p := &loaded{files: f, manifest: m, grants: slices.Clone(m.Grants), modules: map[string]*chunk{}}
	slices.Sort(p.grants)
	var ds script.Diagnostics
	for _, rel := range slices.Sorted(maps.Keys(f.src)) {
		if rel == manifestLua {
			continue
		}
		ch, err := compile(f.display(rel), f.src[rel])
		if err != nil {
			ds = append(ds, script.AsDiagnostics(err)...)
			continue
		}
		p.modules[strings.ReplaceAll(strings.TrimSuffix(rel, ".lua"), "/", ".")] = ch
	}
	if len(ds) > 0 {
		return nil, ds
	}
	for _, name := range m.Components {
		k, err := p.readKind(name)
		if err != nil {
			ds = append(ds, script.AsDiagnostics(err)...)
			continue
		}
		p.kinds = append(p.kinds, k)
	}
	if len(ds) > 0 {
		return nil, ds
	}
	p.fp = f.fingerprint(p.grants)
	return p, nil
}

// readKind runs a component file in a probe state (its API functions do
// nothing there) and reads the table it returns.
func (p *loaded) readKind(name string) (*kind, error) {
	k := &kind{p: p, name: name, chunk: p.modules[name]}
	_, t, err := newVM(k, nil, true, reflect.Value{}, loadTimeout)
	if err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			msg, _, _ := strings.Cut(ce.traceback, "\n")
			if ce.timeout > 0 {
				msg = fmt.Sprintf("the file did not finish running within %s", loadTimeout)
			}
			return nil, positioned(k.chunk, msg)
		}
		return nil, script.Errorf(script.Pos{File: k.chunk.file, Line: 1}, "%v", err)
	}
	def, err := parseDefinition(t)
	if err != nil {
		var se *specError
		if errors.As(err, &se) {
			return nil, script.Errorf(k.chunk.pos(se.path), "%s", se.Error())
		}
		return nil, script.Errorf(script.Pos{File: k.chunk.file, Line: 1}, "%v", err)
	}
	k.def = def
	k.schema = newSchema(def.args, def.exports, def.data, def.output)
	return k, nil
}

// registrations returns the plugin's components under namespace ns.
func (p *loaded) registrations(ns string) []component.Registration {
	regs := make([]component.Registration, 0, len(p.kinds))
	for _, k := range p.kinds {
		regs = append(regs, component.Registration{
			Name:          ns + "." + k.name,
			Doc:           k.def.doc,
			Schema:        k.schema,
			NeedsServices: slices.Clone(k.def.services),
			Source:        fmt.Sprintf("plugin %s %s", p.manifest.Name, p.manifest.Version),
			Fingerprint:   p.fp,
			Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
				return newInstance(k, opts, args)
			},
		})
	}
	return regs
}
