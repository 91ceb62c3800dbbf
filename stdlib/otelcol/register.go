package otelcol

import (
	"fmt"

	"reflect"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/telemetry"
)

// class is the collector's kind of component.
type class int

const (
	classReceiver class = iota
	classProcessor
	classExporter
	classExtension
)

// String returns the collector's name for the class.
func (c class) String() string {
	return [...]string{"receiver", "processor", "exporter", "extension"}[c]
}

// collectorRelease is the upstream release every hosted component is from.
const collectorRelease = "collector v0.158.0"

// Option changes how a component is hosted.
type Option func(*kind)

// WithDataDir names config keys ("directory", "compaction.directory")
// that, when the script leaves them unset, default to the component's
// data directory (under --storage.path), created before the component.
func WithDataDir(keys ...string) Option {
	return func(k *kind) { k.dataDirKeys = append(k.dataDirKeys, keys...) }
}

// stabilities is what receiver, processor and exporter factories share.
type stabilities interface {
	TracesStability() component.StabilityLevel
	MetricsStability() component.StabilityLevel
	LogsStability() component.StabilityLevel
}

// signalsOf returns which signals a factory supports.
func signalsOf(f stabilities) [telemetry.NumSignals]bool {
	return [telemetry.NumSignals]bool{
		f.TracesStability() != component.StabilityLevelUndefined,
		f.MetricsStability() != component.StabilityLevelUndefined,
		f.LogsStability() != component.StabilityLevelUndefined,
	}
}

// RegisterReceiver registers an upstream receiver as
// otelcol.receiver.<typ>. It panics if the name is taken.
func RegisterReceiver(typ string, f receiver.Factory, opts ...Option) {
	register(typ, classReceiver, f, opts, func(k *kind) {
		k.supports = signalsOf(f)
		k.create = func(s settings, cfg component.Config, sig telemetry.Signal, next telemetry.Consumer) (component.Component, error) {
			set := receiver.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case telemetry.Traces:
				return f.CreateTraces(s.ctx, set, cfg, next)
			case telemetry.Metrics:
				return f.CreateMetrics(s.ctx, set, cfg, next)
			default:
				return f.CreateLogs(s.ctx, set, cfg, next)
			}
		}
	})
}

// RegisterProcessor registers an upstream processor as
// otelcol.processor.<typ>; see RegisterReceiver.
func RegisterProcessor(typ string, f processor.Factory, opts ...Option) {
	register(typ, classProcessor, f, opts, func(k *kind) {
		k.supports = signalsOf(f)
		k.create = func(s settings, cfg component.Config, sig telemetry.Signal, next telemetry.Consumer) (component.Component, error) {
			set := processor.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case telemetry.Traces:
				return f.CreateTraces(s.ctx, set, cfg, next)
			case telemetry.Metrics:
				return f.CreateMetrics(s.ctx, set, cfg, next)
			default:
				return f.CreateLogs(s.ctx, set, cfg, next)
			}
		}
	})
}

// RegisterExporter registers an upstream exporter as
// otelcol.exporter.<typ>; see RegisterReceiver.
func RegisterExporter(typ string, f exporter.Factory, opts ...Option) {
	register(typ, classExporter, f, opts, func(k *kind) {
		k.supports = signalsOf(f)
		k.create = func(s settings, cfg component.Config, sig telemetry.Signal, _ telemetry.Consumer) (component.Component, error) {
			set := exporter.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case telemetry.Traces:
				return f.CreateTraces(s.ctx, set, cfg)
			case telemetry.Metrics:
				return f.CreateMetrics(s.ctx, set, cfg)
			default:
				return f.CreateLogs(s.ctx, set, cfg)
			}
		}
	})
}

// RegisterExtension registers an upstream extension as
// otelcol.extension.<typ>; see RegisterReceiver.
func RegisterExtension(typ string, f extension.Factory, opts ...Option) {
	register(typ, classExtension, f, opts, func(k *kind) {
		k.createExtension = func(s settings, cfg component.Config) (component.Component, error) {
			return f.Create(s.ctx, extension.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}, cfg)
		}
	})
}

// kind is one registered upstream component.
type kind struct {
	name        string // flowlua name: otelcol.exporter.otlp
	class       class
	factory     component.Factory
	configType  reflect.Type
	supports    [telemetry.NumSignals]bool
	dataDirKeys []string

	// create makes a receiver, processor or exporter for one signal.
	create func(s settings, cfg component.Config, sig telemetry.Signal, next telemetry.Consumer) (component.Component, error)
	// createExtension makes an extension.
	createExtension func(s settings, cfg component.Config) (component.Component, error)
	// exports is a zero value of the exports type, nil for receivers.
	exports flowcomp.Exports
}

// hasOutput reports whether the kind takes `output`.
func (k *kind) hasOutput() bool { return k.class == classReceiver || k.class == classProcessor }

// hasInput reports whether the kind exports `input`.
func (k *kind) hasInput() bool { return k.class == classProcessor || k.class == classExporter }

func register(typ string, cl class, f component.Factory, opts []Option, setup func(*kind)) {
	k := &kind{
		name:       "otelcol." + cl.String() + "." + typ,
		class:      cl,
		factory:    f,
		configType: reflect.TypeOf(f.CreateDefaultConfig()),
	}
	setup(k)
	for _, o := range opts {
		o(k)
	}
	switch {
	case k.hasInput():
		k.exports = telemetry.Exports{}
	case cl == classExtension:
		k.exports = ExtensionExports{}
	}
	flowcomp.Register(flowcomp.Registration{
		Name:    k.name,
		Doc:     fmt.Sprintf("The OpenTelemetry Collector's %s %s (%s).", typ, cl, collectorRelease),
		Args:    Args{kind: k},
		Exports: k.exports,
		Schema:  k,
		Build: func(opts flowcomp.Options, args flowcomp.Arguments) (flowcomp.Component, error) {
			d, err := k.decoded(args)
			if err != nil {
				return nil, err
			}
			return newAdapter(k, opts, d)
		},
	})
}

// ExtensionExports is what an otelcol.extension.* component exports.
type ExtensionExports struct {
	ID *Extension `lua:"id" doc:"the extension, for the config keys that name one (sending_queue.storage, auth.authenticator): referencing it makes the extension a dependency"`
}
