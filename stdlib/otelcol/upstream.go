package otelcol

import (
	"reflect"

	"go.opentelemetry.io/collector/component"

	flowcomp "github.com/flowlua/flowlua/engine/component"
)

// Upstream describes a registered otelcol.* component in the collector's
// terms, for tools that read collector configurations (flowlua convert):
// which class and type names select it, and what the config's keys hold.
type Upstream struct {
	// Name is the flowlua name: "otelcol.exporter.otlp".
	Name string
	// Class is the collector's class: "receiver", "processor",
	// "exporter", "extension" (and "connector" once connectors are hosted).
	Class string
	// Types are the type names a collector config may write for it, the
	// factory's first: the factory's type ("otlp_grpc"), its deprecated
	// alias ("otlp") and flowlua's name's last part, without duplicates.
	Types []string
	// Signals are the signals it supports (none for extensions).
	Signals []string
	// Package is the Go package of the upstream config: the component's
	// source ("go.opentelemetry.io/collector/receiver/otlpreceiver").
	Package string

	configType reflect.Type
}

// UpstreamOf returns what r hosts upstream, or false when r is not an
// otelcol.* component.
func UpstreamOf(r flowcomp.Registration) (Upstream, bool) {
	k, ok := r.Schema.(*kind)
	if !ok {
		return Upstream{}, false
	}
	u := Upstream{Name: k.name, Class: k.class.String(), Signals: k.Signals(), Package: k.Upstream(), configType: k.configType}
	add := func(t string) {
		for _, have := range u.Types {
			if have == t {
				return
			}
		}
		if t != "" {
			u.Types = append(u.Types, t)
		}
	}
	add(k.factory.Type().String())
	if a, ok := k.factory.(interface{ DeprecatedAlias() component.Type }); ok {
		add(a.DeprecatedAlias().String())
	}
	add(k.name[len("otelcol."+u.Class+"."):])
	return u, true
}

// Field kinds that Upstream.Field reports.
const (
	FieldUnknown   = ""          // not a key of the config, or of a type that does not say
	FieldExtension = "extension" // names an extension (a component.ID): reference otelcol.extension.<type>.<label>.id
	FieldTable     = "table"     // a struct or a map
	FieldList      = "list"
	FieldString    = "string" // strings, durations and other text values
	FieldInteger   = "integer"
	FieldNumber    = "number"
	FieldBoolean   = "boolean"
)

// Field returns what the config key at path holds (keys of tables, any
// key for list elements), one of the Field* kinds.
func (u Upstream) Field(path []string) string {
	t := deref(typeAt(u.configType, path))
	switch {
	case t == nil:
		return FieldUnknown
	case t == componentIDType:
		return FieldExtension
	case isMapList(t):
		return FieldTable
	case t == durationType || reflect.PointerTo(t).Implements(textUnmarshaler):
		return FieldString
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return FieldTable
	case reflect.Slice, reflect.Array:
		return FieldList
	case reflect.String:
		return FieldString
	case reflect.Bool:
		return FieldBoolean
	case reflect.Float32, reflect.Float64:
		return FieldNumber
	}
	if isInteger(t) {
		return FieldInteger
	}
	return FieldUnknown
}
