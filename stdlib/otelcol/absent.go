package otelcol

import (
	"fmt"
	"reflect"
	"strings"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// notAtRelease are the components flowlua hosted at the collector's
// v0.158.0 whose modules the Go module proxy does not serve at
// collectorRelease: the routing and service graph connectors', the
// load-balancing exporter's and the Redis receiver's own modules, and the
// resource detection processor's detectors (go.opentelemetry.io/contrib/
// detectors at v0.19.0). A collector module of another release does not
// build with this one's core, so they are out of every build until a
// native plugin pinned to a release that resolves serves them.
var notAtRelease = []string{
	"otelcol.connector.routing",
	"otelcol.connector.service_graph",
	"otelcol.connector.servicegraph",
	"otelcol.exporter.load_balancing",
	"otelcol.exporter.loadbalancing",
	"otelcol.processor.resource_detection",
	"otelcol.processor.resourcedetection",
	"otelcol.receiver.redis",
}

// inPlugins are the components the core leaves to its first-party native
// plugins (plugins/) to keep its binary and its idle memory small, by
// plugin.
var inPlugins = map[string]string{
	"otelcol.receiver.prometheus": "prometheus",
}

// servedByPlugin are the names of notAtRelease that a first-party native
// plugin pinned to another release serves (plugins/), by plugin.
var servedByPlugin = map[string]string{
	"otelcol.exporter.load_balancing":      "cloud",
	"otelcol.exporter.loadbalancing":       "cloud",
	"otelcol.processor.resource_detection": "cloud",
	"otelcol.processor.resourcedetection":  "cloud",
}

// registerAbsent registers the names of notAtRelease and inPlugins.
func registerAbsent() {
	why := fmt.Sprintf("its module is not available at the collector release flowlua is built with (%s)", collectorRelease)
	for _, name := range notAtRelease {
		if p, ok := servedByPlugin[name]; ok {
			registerMissing(why+"; "+pluginServes(p), name)
			continue
		}
		registerMissing(why, name)
	}
	for name, p := range inPlugins {
		registerMissing("the core leaves it to a plugin; "+pluginServes(p), name)
	}
}

// pluginServes says where to find the first-party plugin p.
func pluginServes(p string) string {
	return fmt.Sprintf("the native plugin %s serves it: put bin/plugins/%s (make build) in plugins/ beside flowlua or the script, or in --plugins.path", p, p)
}

// registerMissing registers names (otelcol.<class>.<type>) this flowlua
// does not have, for the reason why, so that a script using one gets an
// error saying so, with its file and line, rather than an unknown name.
func registerMissing(why string, names ...string) {
	for _, name := range names {
		s := absentSchema{name: name, why: why}
		flowcomp.Register(flowcomp.Registration{
			Name:   name,
			Doc:    "Not in this flowlua: " + why + ".",
			Source: "not in this build",
			Schema: s,
			Build: func(flowcomp.Options, flowcomp.Arguments) (flowcomp.Component, error) {
				return nil, s.err()
			},
		})
	}
}

// absentSchema is the schema of a component this flowlua lacks: it
// refuses any arguments, and exports what the component would.
type absentSchema struct{ name, why string }

func (s absentSchema) err() error {
	return fmt.Errorf("%s is not in this build of flowlua (%s)", s.name, s.why)
}

// DecodeArgs refuses: the component is not in this build.
func (s absentSchema) DecodeArgs(any) (any, error) { return nil, s.err() }

// ExportTypes returns the exports of the left-out component's class.
func (s absentSchema) ExportTypes() map[string]reflect.Type {
	switch {
	case strings.HasPrefix(s.name, "otelcol.receiver."):
		return nil
	case strings.HasPrefix(s.name, "otelcol.extension."):
		return decode.ExportTypes(reflect.TypeFor[ExtensionExports]())
	default:
		return decode.ExportTypes(reflect.TypeFor[dataplane.Exports]())
	}
}

// Describe documents nothing: the component is not in this build.
func (s absentSchema) Describe() (args, exports []decode.Field) { return nil, nil }
