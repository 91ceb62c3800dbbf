package otelcol

import (
	"fmt"

	"reflect"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/pipeline"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// class is the collector's kind of component.
type class int

const (
	classReceiver class = iota
	classProcessor
	classExporter
	classExtension
	classConnector
)

// String returns the collector's name for the class.
func (c class) String() string {
	return [...]string{"receiver", "processor", "exporter", "extension", "connector"}[c]
}

// collectorRelease is the upstream release every hosted component is from.
const collectorRelease = "v0.165.0"

// Option changes how a component is hosted.
type Option func(*kind)

// FromRelease says that the component's module is from another release
// than collectorRelease (when the module proxy lacks it at that release).
func FromRelease(release string) Option {
	return func(k *kind) { k.release = release }
}

// FromPackage names the component's Go package, for a component whose
// config type has none to say it (an anonymous struct: the nop ones).
func FromPackage(path string) Option {
	return func(k *kind) { k.pkg = path }
}

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
func signalsOf(f stabilities) [dataplane.NumSignals]bool {
	return [dataplane.NumSignals]bool{
		f.TracesStability() != component.StabilityLevelUndefined,
		f.MetricsStability() != component.StabilityLevelUndefined,
		f.LogsStability() != component.StabilityLevelUndefined,
	}
}

// RegisterReceiver registers an upstream receiver as
// otelcol.receiver.<type>, the type its factory reports; a factory that
// keeps a deprecated type name is registered under that name too (see
// register). It panics if a name is taken.
func RegisterReceiver(f receiver.Factory, opts ...Option) {
	register(classReceiver, f, opts, func(k *kind) {
		k.supports = signalsOf(f)
		k.produces = k.supports
		k.create = func(s settings, cfg component.Config, sig dataplane.Signal, next dataplane.Consumer) (component.Component, error) {
			set := receiver.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case dataplane.Traces:
				return f.CreateTraces(s.ctx, set, cfg, next)
			case dataplane.Metrics:
				return f.CreateMetrics(s.ctx, set, cfg, next)
			default:
				return f.CreateLogs(s.ctx, set, cfg, next)
			}
		}
	})
}

// RegisterProcessor registers an upstream processor as
// otelcol.processor.<type>; see RegisterReceiver.
func RegisterProcessor(f processor.Factory, opts ...Option) {
	register(classProcessor, f, opts, func(k *kind) {
		k.supports = signalsOf(f)
		k.produces = k.supports
		k.create = func(s settings, cfg component.Config, sig dataplane.Signal, next dataplane.Consumer) (component.Component, error) {
			set := processor.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case dataplane.Traces:
				return f.CreateTraces(s.ctx, set, cfg, next)
			case dataplane.Metrics:
				return f.CreateMetrics(s.ctx, set, cfg, next)
			default:
				return f.CreateLogs(s.ctx, set, cfg, next)
			}
		}
	})
}

// RegisterExporter registers an upstream exporter as
// otelcol.exporter.<type>; see RegisterReceiver.
func RegisterExporter(f exporter.Factory, opts ...Option) {
	register(classExporter, f, opts, func(k *kind) {
		k.supports = signalsOf(f)
		k.create = func(s settings, cfg component.Config, sig dataplane.Signal, _ dataplane.Consumer) (component.Component, error) {
			set := exporter.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
			switch sig {
			case dataplane.Traces:
				return f.CreateTraces(s.ctx, set, cfg)
			case dataplane.Metrics:
				return f.CreateMetrics(s.ctx, set, cfg)
			default:
				return f.CreateLogs(s.ctx, set, cfg)
			}
		}
	})
}

// RegisterExtension registers an upstream extension as
// otelcol.extension.<type>; see RegisterReceiver.
func RegisterExtension(f extension.Factory, opts ...Option) {
	register(classExtension, f, opts, func(k *kind) {
		k.createExtension = func(s settings, cfg component.Config) (component.Component, error) {
			return f.Create(s.ctx, extension.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}, cfg)
		}
	})
}

// RegisterConnector registers an upstream connector as
// otelcol.connector.<type>; see RegisterReceiver. Its input takes the
// signals it has a connection from, its output the signals it has a
// connection to (see connector.go).
func RegisterConnector(f connector.Factory, opts ...Option) {
	register(classConnector, f, opts, func(k *kind) {
		k.connects = connectionsOf(f)
		for in := range k.connects {
			for out, ok := range k.connects[in] {
				k.supports[in] = k.supports[in] || ok
				k.produces[out] = k.produces[out] || ok
			}
		}
		k.createConnector = func(s settings, cfg component.Config, in, out dataplane.Signal, next map[pipeline.ID]dataplane.Consumer) (component.Component, error) {
			return createConnector(f, s, cfg, in, out, next)
		}
	})
}

// kind is one registered upstream component.
type kind struct {
	name        string // flowlua name: otelcol.exporter.otlp
	class       class
	factory     component.Factory
	configType  reflect.Type
	aliasOf     string                     // the current name, when name is a deprecated alias
	release     string                     // the upstream release, when not collectorRelease
	supports    [dataplane.NumSignals]bool // the signals accepted as input (receivers: produced)
	produces    [dataplane.NumSignals]bool // the signals output may take
	dataDirKeys []string
	pkg         string // the Go package (FromPackage), when the config type has none

	// connects says, for a connector, which input signal it turns into
	// which output signal: connects[in][out].
	connects [dataplane.NumSignals][dataplane.NumSignals]bool

	// create makes a receiver, processor or exporter for one signal.
	create func(s settings, cfg component.Config, sig dataplane.Signal, next dataplane.Consumer) (component.Component, error)
	// createConnector makes a connector from one signal to another.
	// next holds the output pipelines of signal out by collector id.
	createConnector func(s settings, cfg component.Config, in, out dataplane.Signal, next map[pipeline.ID]dataplane.Consumer) (component.Component, error)
	// createExtension makes an extension.
	createExtension func(s settings, cfg component.Config) (component.Component, error)
	// exports is a zero value of the exports type, nil for receivers.
	exports flowcomp.Exports

	// takeOver, for a receiver, splits a config into the config the
	// upstream component is created from and a part flowlua serves
	// itself (nil: none), such as the otlp receiver's http protocol
	// (otlphttp.go). Nil for every other kind.
	takeOver func(s settings, cfg component.Config) (component.Config, receiverPart, error)
}

// receiverPart is what flowlua serves of a receiver instead of the
// upstream component (see kind.takeOver). The instance hands it each
// signal's consumer before starting it after the upstream components,
// and shuts it down before them.
type receiverPart interface {
	component.Component
	setConsumer(sig dataplane.Signal, next dataplane.Consumer)
}

// hasOutput reports whether the kind takes `output`.
func (k *kind) hasOutput() bool {
	return k.class == classReceiver || k.class == classProcessor || k.class == classConnector
}

// hasInput reports whether the kind exports `input`.
func (k *kind) hasInput() bool {
	return k.class == classProcessor || k.class == classExporter || k.class == classConnector
}

// deprecatedAlias is what the factories of renamed components implement:
// the type name they kept as a deprecated alias (otlp for otlp_grpc).
type deprecatedAlias interface {
	DeprecatedAlias() component.Type
}

// register registers the kind of factory f under the type f reports and,
// as the collector does, under the deprecated type name f keeps, if any.
// Both names make the same component, whose collector id has f's type;
// their docs name each other, for `flowlua components`.
func register(cl class, f component.Factory, opts []Option, setup func(*kind)) {
	typ := f.Type().String()
	alias := ""
	if a, ok := f.(deprecatedAlias); ok {
		alias = a.DeprecatedAlias().String()
	}
	probe := &kind{release: collectorRelease}
	for _, o := range opts {
		o(probe)
	}
	doc := fmt.Sprintf("The OpenTelemetry Collector's %s %s (collector %s).", typ, cl, probe.release)
	if alias != "" {
		doc += fmt.Sprintf(" Also otelcol.%s.%s, its deprecated type name.", cl, alias)
	}
	registerKind(typ, "", cl, f, opts, setup, doc)
	if alias != "" {
		doc := fmt.Sprintf("Alias of otelcol.%s.%s: %s is the deprecated type name of the OpenTelemetry Collector's %s %s (collector %s).", cl, typ, alias, typ, cl, probe.release)
		registerKind(alias, typ, cl, f, opts, setup, doc)
	}
}

// registerKind registers one name of factory f: typ, or the deprecated
// alias typ of current.
func registerKind(typ, current string, cl class, f component.Factory, opts []Option, setup func(*kind), doc string) {
	k := &kind{
		name:    "otelcol." + cl.String() + "." + typ,
		class:   cl,
		factory: f,
	}
	if ct, ok := f.(configTyper); ok {
		k.configType = ct.ConfigType() // without building a lazy factory
	} else {
		k.configType = reflect.TypeOf(f.CreateDefaultConfig())
	}
	if current != "" {
		k.aliasOf = "otelcol." + cl.String() + "." + current
	}
	setup(k)
	for _, o := range opts {
		o(k)
	}
	switch {
	case k.hasInput():
		k.exports = dataplane.Exports{}
	case cl == classExtension:
		k.exports = ExtensionExports{}
	}
	var accepts func(dataplane.Signal, [dataplane.NumSignals]bool) error
	if k.hasInput() {
		accepts = k.accepts
	}
	flowcomp.Register(flowcomp.Registration{
		Name:    k.name,
		Doc:     doc,
		Args:    Args{kind: k},
		Exports: k.exports,
		Schema:  k,
		Accepts: accepts,
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
