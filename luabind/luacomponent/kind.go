package luacomponent

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/schema"
)

// loadTimeout bounds running a component file while its plugin loads.
const loadTimeout = time.Second

// Plugin is what the components of one plugin share: its identity, the
// grants its components run with and its compiled Lua files.
type Plugin struct {
	Name    string
	Version string
	Grants  []string          // what its components get, sorted
	Modules map[string]*Chunk // every Lua file by require name ("lib.util")
	// File names a file of the plugin, by its slash-separated path in the
	// plugin directory, in messages.
	File func(rel string) string
}

// Kind is a component written in Lua: a component file of a plugin,
// read and checked.
type Kind struct {
	p      *Plugin
	name   string // in the plugin: "redact"
	chunk  *Chunk
	def    *definition
	schema *componentSchema
}

// metricPrefix prefixes the names of the metrics a component defines:
// "<plugin>_<component>_".
func (k *Kind) metricPrefix() string { return k.p.Name + "_" + k.name + "_" }

// Read runs the component file name (the module of that name) of p in a
// probe state, whose API functions do nothing, and checks the table it
// returns. Mistakes are Diagnostics in the file.
func Read(p *Plugin, name string) (*Kind, error) {
	k := &Kind{p: p, name: name, chunk: p.Modules[name]}
	if k.chunk == nil {
		return nil, fmt.Errorf("plugin %s has no file for component %q", p.Name, name)
	}
	_, t, err := newVM(k, nil, true, reflect.Value{}, loadTimeout, DefaultMemoryLimit)
	if err != nil {
		var ce *callError
		if errors.As(err, &ce) {
			msg, _, _ := strings.Cut(ce.traceback, "\n")
			if ce.timeout > 0 {
				msg = fmt.Sprintf("the file did not finish running within %s", loadTimeout)
			}
			return nil, k.chunk.At(msg)
		}
		return nil, script.Errorf(script.Pos{File: k.chunk.file, Line: 1}, "%v", err)
	}
	def, err := parseDefinition(t)
	if err != nil {
		var se *schema.Error
		if errors.As(err, &se) {
			return nil, script.Errorf(k.chunk.Pos(se.Path), "%s", se.Error())
		}
		return nil, script.Errorf(script.Pos{File: k.chunk.file, Line: 1}, "%v", err)
	}
	k.def = def
	k.schema = newComponentSchema(def.args, def.exports, def.data, def.output)
	return k, nil
}

// Registration returns the component as registered under name: source
// says where it comes from in listings, fingerprint changes when its
// code or grants do (so that running components are rebuilt).
func (k *Kind) Registration(name, source, fingerprint string) component.Registration {
	return component.Registration{
		Name:          name,
		Doc:           k.def.doc,
		Schema:        k.schema,
		NeedsServices: slices.Clone(k.def.services),
		Source:        source,
		Fingerprint:   fingerprint,
		Accepts:       k.accepts(),
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			return newInstance(k, opts, args)
		},
	}
}

// accepts returns the check of the signals a data component's input
// takes: those its definition lists (signals); nil for a component
// without input.
func (k *Kind) accepts() func(dataplane.Signal, [dataplane.NumSignals]bool) error {
	if !k.def.data {
		return nil
	}
	return func(s dataplane.Signal, _ [dataplane.NumSignals]bool) error {
		if k.def.signals[s] {
			return nil
		}
		var names []string
		for _, t := range dataplane.AllSignals {
			if k.def.signals[t] {
				names = append(names, t.String())
			}
		}
		return fmt.Errorf("it takes %s", strings.Join(names, ", "))
	}
}
