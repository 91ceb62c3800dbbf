package convert

import (
	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/stdlib/otelcol"
)

// Component is the flowlua component a collector config's class and type
// select.
type Component struct {
	// Name is the flowlua name: "otelcol.receiver.otlp".
	Name string
	// Field says what the config key at path holds, one of otelcol's
	// Field* kinds (otelcol.FieldExtension, ...); nil when nothing is
	// known, and then no string is taken for an extension.
	Field func(path []string) string
}

func (c Component) field(path []string) string {
	if c.Field == nil {
		return otelcol.FieldUnknown
	}
	return c.Field(path)
}

// Catalog finds the component for a class ("receiver", "processor",
// "exporter", "connector", "extension") and a type name of a collector
// config.
type Catalog interface {
	Lookup(class, typ string) (Component, bool)
}

// MapCatalog is a Catalog written out: class → type → component.
type MapCatalog map[string]map[string]Component

// Lookup implements Catalog.
func (m MapCatalog) Lookup(class, typ string) (Component, bool) {
	c, ok := m[class][typ]
	return c, ok
}

// Registry returns the catalog of the otelcol.* components registered in
// reg, read when called: every type name a collector config may write for
// each (see otelcol.Upstream.Types). When two components answer to one
// type, the one whose flowlua name ends in it wins, then the one whose
// factory has it as its type, then the one with it as a deprecated alias.
func Registry(reg *flowcomp.Registry) Catalog {
	m := MapCatalog{}
	rank := map[[2]string]int{}
	for _, name := range reg.Names() {
		r, _ := reg.Get(name)
		u, ok := otelcol.UpstreamOf(r)
		c := Component{Name: u.Name, Field: u.Field}
		if !ok {
			if u, ok = served(r); !ok {
				continue
			}
			c = Component{Name: u.Name}
		}
		flowType := u.Name[len("otelcol."+u.Class+"."):]
		for i, t := range u.Types {
			// The factory's type is first in Types: rank 1; aliases 2.
			r := 2
			switch {
			case t == flowType:
				r = 0
			case i == 0:
				r = 1
			}
			key := [2]string{u.Class, t}
			if have, ok := rank[key]; ok && have <= r {
				continue
			}
			rank[key] = r
			if m[u.Class] == nil {
				m[u.Class] = map[string]Component{}
			}
			m[u.Class][t] = c
		}
	}
	return m
}

// collectorTyped is the schema of a component served from outside the
// core (a native plugin's): the collector's class and type names it
// answers to.
type collectorTyped interface {
	CollectorTypes() (class string, types []string)
}

// served returns what a native plugin's component r answers to in a
// collector config, named as registered (aliases included).
func served(r flowcomp.Registration) (otelcol.Upstream, bool) {
	ct, ok := r.Schema.(collectorTyped)
	if !ok {
		return otelcol.Upstream{}, false
	}
	class, types := ct.CollectorTypes()
	prefix := "otelcol." + class + "."
	if len(r.Name) <= len(prefix) || r.Name[:len(prefix)] != prefix || len(types) == 0 {
		return otelcol.Upstream{}, false
	}
	return otelcol.Upstream{Name: r.Name, Class: class, Types: types}, true
}

// defaultCatalog is the catalog of the default registry.
func defaultCatalog() Catalog { return Registry(flowcomp.DefaultRegistry) }
