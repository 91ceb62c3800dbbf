package otelcol

import (
	"fmt"
	"reflect"
	"sync"

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

// Option changes how a component is hosted.
type Option func(*kind)

// WithDataDir names config keys ("directory", "compaction.directory")
// that, when the script leaves them unset, default to the component's
// data directory (under --storage.path), created before the component.
func WithDataDir(keys ...string) Option {
	return func(k *kind) { k.dataDirKeys = append(k.dataDirKeys, keys...) }
}

// RegisterReceiver registers an upstream receiver as
// otelcol.receiver.<typ>. C is the factory's config type (a pointer, as
// CreateDefaultConfig returns it); a mismatch panics.
func RegisterReceiver[C component.Config](typ string, f receiver.Factory, opts ...Option) {
	register[C](typ, classReceiver, f, opts, func(k *kind) {
		k.supports = [numSignals]bool{
			f.TracesStability() != component.StabilityLevelUndefined,
			f.MetricsStability() != component.StabilityLevelUndefined,
			f.LogsStability() != component.StabilityLevelUndefined,
		}
		k.create = func(s settings, cfg component.Config, sig signal, next telemetry.Consumer) (component.Component, error) {
			set := receiver.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case signalTraces:
				return f.CreateTraces(s.ctx, set, cfg, next)
			case signalMetrics:
				return f.CreateMetrics(s.ctx, set, cfg, next)
			default:
				return f.CreateLogs(s.ctx, set, cfg, next)
			}
		}
	})
}

// RegisterProcessor registers an upstream processor as
// otelcol.processor.<typ>; see RegisterReceiver.
func RegisterProcessor[C component.Config](typ string, f processor.Factory, opts ...Option) {
	register[C](typ, classProcessor, f, opts, func(k *kind) {
		k.supports = [numSignals]bool{
			f.TracesStability() != component.StabilityLevelUndefined,
			f.MetricsStability() != component.StabilityLevelUndefined,
			f.LogsStability() != component.StabilityLevelUndefined,
		}
		k.create = func(s settings, cfg component.Config, sig signal, next telemetry.Consumer) (component.Component, error) {
			set := processor.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case signalTraces:
				return f.CreateTraces(s.ctx, set, cfg, next)
			case signalMetrics:
				return f.CreateMetrics(s.ctx, set, cfg, next)
			default:
				return f.CreateLogs(s.ctx, set, cfg, next)
			}
		}
	})
}

// RegisterExporter registers an upstream exporter as
// otelcol.exporter.<typ>; see RegisterReceiver.
func RegisterExporter[C component.Config](typ string, f exporter.Factory, opts ...Option) {
	register[C](typ, classExporter, f, opts, func(k *kind) {
		k.supports = [numSignals]bool{
			f.TracesStability() != component.StabilityLevelUndefined,
			f.MetricsStability() != component.StabilityLevelUndefined,
			f.LogsStability() != component.StabilityLevelUndefined,
		}
		k.create = func(s settings, cfg component.Config, sig signal, _ telemetry.Consumer) (component.Component, error) {
			set := exporter.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case signalTraces:
				return f.CreateTraces(s.ctx, set, cfg)
			case signalMetrics:
				return f.CreateMetrics(s.ctx, set, cfg)
			default:
				return f.CreateLogs(s.ctx, set, cfg)
			}
		}
	})
}

// RegisterExtension registers an upstream extension as
// otelcol.extension.<typ>; see RegisterReceiver.
func RegisterExtension[C component.Config](typ string, f extension.Factory, opts ...Option) {
	register[C](typ, classExtension, f, opts, func(k *kind) {
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
	supports    [numSignals]bool
	dataDirKeys []string

	// create makes a receiver, processor or exporter for one signal.
	create func(s settings, cfg component.Config, sig signal, next telemetry.Consumer) (component.Component, error)
	// createExtension makes an extension.
	createExtension func(s settings, cfg component.Config) (component.Component, error)
	// decoded extracts the content of the kind's Args.
	decoded func(args any) (decoded, error)
}

// hasOutput reports whether the kind takes `output`.
func (k *kind) hasOutput() bool { return k.class == classReceiver || k.class == classProcessor }

// hasInput reports whether the kind exports `input`.
func (k *kind) hasInput() bool { return k.class == classProcessor || k.class == classExporter }

// kinds maps each Args[C] type to its kind.
var kinds sync.Map // reflect.Type → *kind

// kindOf returns the kind registered for Args type t.
func kindOf(t reflect.Type) *kind {
	if k, ok := kinds.Load(t); ok {
		return k.(*kind)
	}
	return nil
}

func register[C component.Config](typ string, cl class, f component.Factory, opts []Option, setup func(*kind)) {
	k := &kind{
		name:       "otelcol." + cl.String() + "." + typ,
		class:      cl,
		factory:    f,
		configType: reflect.TypeFor[C](),
	}
	if got := reflect.TypeOf(f.CreateDefaultConfig()); got != k.configType {
		panic(fmt.Sprintf("%s: factory config is %v, registered as %v", k.name, got, k.configType))
	}
	setup(k)
	k.decoded = argsFrom[C]
	for _, o := range opts {
		o(k)
	}
	argsType := reflect.TypeFor[Args[C]]()
	if _, dup := kinds.LoadOrStore(argsType, k); dup {
		panic(fmt.Sprintf("%s: config type %v is already registered", k.name, k.configType))
	}
	var exports flowcomp.Exports
	switch {
	case k.hasInput():
		exports = telemetry.Exports{}
	case cl == classExtension:
		exports = ExtensionExports{}
	}
	flowcomp.Register(flowcomp.Registration{
		Name:    k.name,
		Args:    Args[C]{},
		Exports: exports,
		Build: func(opts flowcomp.Options, args flowcomp.Arguments) (flowcomp.Component, error) {
			a, err := k.decoded(args)
			if err != nil {
				return nil, err
			}
			return newAdapter(k, opts, a)
		},
	})
}

// ExtensionExports is what an otelcol.extension.* component exports.
type ExtensionExports struct {
	ID string `lua:"id" doc:"the extension's collector id, for the config keys that name an extension (sending_queue.storage, auth.authenticator)"`
}
