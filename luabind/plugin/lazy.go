package plugin

import (
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"sync"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// IndexEntry is what a listing and the loader know of a built-in plugin's
// component before the plugin is loaded: enough to register it.
type IndexEntry struct {
	Name          string // as registered: "lua.redact"
	Doc           string
	NeedsServices []string
	Source        string
	Fingerprint   string
}

// Index loads the plugin held in fsys and returns its components' index
// entries, to be generated into the source that registers it with Lazy.
func Index(fsys fs.FS, dir string) ([]IndexEntry, error) {
	regs, err := LoadFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	out := make([]IndexEntry, len(regs))
	for i, r := range regs {
		out[i] = IndexEntry{Name: r.Name, Doc: r.Doc, NeedsServices: r.NeedsServices, Source: r.Source, Fingerprint: r.Fingerprint}
	}
	return out, nil
}

// Lazy returns registrations of a built-in plugin that compile and read
// its Lua files only when one of its components is first checked, built
// or described: a process whose pipeline does not use them never pays for
// them (about 1.6 MB of allocation and several milliseconds of start-up
// for flowlua's lua.* components). index must be what Index returns for
// the same files (a test of the registering package keeps it so); a
// component the loaded plugin lacks, or a plugin that fails to load,
// panics on first use, as a built-in plugin that fails at init would.
func Lazy(fsys fs.FS, dir string, index []IndexEntry) []component.Registration {
	l := &lazyPlugin{fsys: fsys, dir: dir}
	regs := make([]component.Registration, len(index))
	for i, e := range index {
		s := &lazySchema{l: l, name: e.Name}
		regs[i] = component.Registration{
			Name:          e.Name,
			Doc:           e.Doc,
			NeedsServices: slices.Clone(e.NeedsServices),
			Source:        e.Source,
			Fingerprint:   e.Fingerprint,
			Schema:        s,
			Accepts:       s.accepts,
			Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
				return s.reg().Build(opts, args)
			},
		}
	}
	return regs
}

// lazyPlugin loads a built-in plugin once, on first use.
type lazyPlugin struct {
	fsys fs.FS
	dir  string
	once sync.Once
	regs map[string]component.Registration
}

func (l *lazyPlugin) get(name string) component.Registration {
	l.once.Do(func() {
		regs, err := LoadFS(l.fsys, l.dir)
		if err != nil {
			panic(fmt.Sprintf("built-in plugin %s: %v", l.dir, err))
		}
		l.regs = map[string]component.Registration{}
		for _, r := range regs {
			l.regs[r.Name] = r
		}
	})
	r, ok := l.regs[name]
	if !ok {
		panic(fmt.Sprintf("built-in plugin %s has no component %s: its index is out of date", l.dir, name))
	}
	return r
}

// lazySchema is the component.Schema of a lazily loaded component: it
// loads the plugin on first use and answers with the component's own.
type lazySchema struct {
	l    *lazyPlugin
	name string
}

var _ component.Schema = (*lazySchema)(nil)

func (s *lazySchema) reg() component.Registration { return s.l.get(s.name) }

// DecodeArgs decodes with the component's schema.
func (s *lazySchema) DecodeArgs(v any) (any, error) { return s.reg().Schema.DecodeArgs(v) }

// ExportTypes returns the component's export types.
func (s *lazySchema) ExportTypes() map[string]reflect.Type { return s.reg().Schema.ExportTypes() }

// accepts checks a signal with the component's own check, if it has one.
func (s *lazySchema) accepts(sig dataplane.Signal, outputs [dataplane.NumSignals]bool) error {
	if a := s.reg().Accepts; a != nil {
		return a(sig, outputs)
	}
	return nil
}

// Describe documents the component's arguments and exports.
func (s *lazySchema) Describe() (args, exports []decode.Field) { return s.reg().Schema.Describe() }
