package otelcol

import (
	"fmt"
	"reflect"
	"strings"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// The names of the components each smaller build leaves out (aliases
// included), registered by components_absent_*.go in those builds.
// TestSmallerBuilds (cmd/flowlua) requires every build to list the same
// names as the default build, so a component added to
// components_standard.go or components_full.go must be added here.
var (
	// leftOutByLean are the components of components_full.go.
	leftOutByLean = []string{
		"otelcol.receiver.prometheus",
		"otelcol.processor.resource_detection",
		"otelcol.processor.resourcedetection",
		"otelcol.exporter.load_balancing",
		"otelcol.exporter.loadbalancing",
	}
	// leftOutByMinimal are the components of components_standard.go.
	leftOutByMinimal = []string{
		"otelcol.receiver.file_log",
		"otelcol.receiver.filelog",
		"otelcol.receiver.host_metrics",
		"otelcol.receiver.hostmetrics",
		"otelcol.receiver.kafka",
		"otelcol.receiver.journald",
		"otelcol.receiver.redis",
		"otelcol.processor.probabilistic_sampler",
		"otelcol.processor.tail_sampling",
		"otelcol.processor.redaction",
		"otelcol.processor.cumulative_to_delta",
		"otelcol.processor.cumulativetodelta",
		"otelcol.exporter.file",
		"otelcol.exporter.prometheus",
		"otelcol.exporter.prometheus_remote_write",
		"otelcol.exporter.prometheusremotewrite",
		"otelcol.exporter.kafka",
		"otelcol.connector.count",
		"otelcol.connector.routing",
		"otelcol.connector.span_metrics",
		"otelcol.connector.spanmetrics",
		"otelcol.connector.service_graph",
		"otelcol.connector.servicegraph",
		"otelcol.extension.file_storage",
		"otelcol.extension.basicauth",
		"otelcol.extension.bearertokenauth",
	}
)

// registerAbsent registers names (otelcol.<class>.<type>) that this build
// leaves out, so that a script using one gets an error saying so, with
// its file and line, rather than an unknown name.
func registerAbsent(tags string, names ...string) {
	for _, name := range names {
		s := absentSchema{name: name, tags: tags}
		flowcomp.Register(flowcomp.Registration{
			Name:   name,
			Doc:    fmt.Sprintf("Not in this build of flowlua (built with -tags %s); the default build (make build) has it.", tags),
			Source: "not in this build",
			Schema: s,
			Build: func(flowcomp.Options, flowcomp.Arguments) (flowcomp.Component, error) {
				return nil, s.err()
			},
		})
	}
}

// absentSchema is the schema of a component this build leaves out: it
// refuses any arguments, and exports what the component would.
type absentSchema struct{ name, tags string }

func (s absentSchema) err() error {
	return fmt.Errorf("%s is not in this build of flowlua (built with -tags %s, which leaves it out to save memory); use the default build (make build)", s.name, s.tags)
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
