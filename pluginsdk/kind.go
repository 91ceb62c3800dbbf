package pluginsdk

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/flowlua/flowlua/pluginsdk/confshape"
	"github.com/flowlua/flowlua/pluginsdk/otlpwire"
	"github.com/flowlua/flowlua/pluginsdk/wire"
)

var signalNames = []string{"traces", "metrics", "logs"}

// stabilities is what receiver, processor and exporter factories share.
type stabilities interface {
	TracesStability() component.StabilityLevel
	MetricsStability() component.StabilityLevel
	LogsStability() component.StabilityLevel
}

// kind is one component the plugin serves.
type kind struct {
	name    string
	class   string
	factory component.Factory
	stab    stabilities
	// create makes the component of one signal.
	createSignal func(ctx context.Context, set settings, cfg component.Config, signal string, next *hostConsumer) (component.Component, error)
	// routed: its components serve HTTP routes (Plugin.Routed).
	routed bool
	// feed feeds its targets through files (Plugin.TargetFeeds).
	feed TargetFeed
}

// settings are what every factory's Settings hold.
type settings struct {
	id  component.ID
	tel component.TelemetrySettings
}

func receiverKind(f receiver.Factory) *kind {
	return &kind{name: "otelcol.receiver." + f.Type().String(), class: "receiver", factory: f, stab: f,
		createSignal: func(ctx context.Context, s settings, cfg component.Config, signal string, next *hostConsumer) (component.Component, error) {
			set := receiver.Settings{ID: s.id, TelemetrySettings: s.tel}
			switch signal {
			case "traces":
				return f.CreateTraces(ctx, set, cfg, next)
			case "metrics":
				return f.CreateMetrics(ctx, set, cfg, next)
			default:
				return f.CreateLogs(ctx, set, cfg, next)
			}
		}}
}

func processorKind(f processor.Factory) *kind {
	return &kind{name: "otelcol.processor." + f.Type().String(), class: "processor", factory: f, stab: f,
		createSignal: func(ctx context.Context, s settings, cfg component.Config, signal string, next *hostConsumer) (component.Component, error) {
			set := processor.Settings{ID: s.id, TelemetrySettings: s.tel}
			switch signal {
			case "traces":
				return f.CreateTraces(ctx, set, cfg, next)
			case "metrics":
				return f.CreateMetrics(ctx, set, cfg, next)
			default:
				return f.CreateLogs(ctx, set, cfg, next)
			}
		}}
}

func exporterKind(f exporter.Factory) *kind {
	return &kind{name: "otelcol.exporter." + f.Type().String(), class: "exporter", factory: f, stab: f,
		createSignal: func(ctx context.Context, s settings, cfg component.Config, signal string, _ *hostConsumer) (component.Component, error) {
			set := exporter.Settings{ID: s.id, TelemetrySettings: s.tel}
			switch signal {
			case "traces":
				return f.CreateTraces(ctx, set, cfg)
			case "metrics":
				return f.CreateMetrics(ctx, set, cfg)
			default:
				return f.CreateLogs(ctx, set, cfg)
			}
		}}
}

// levels returns the factory's stability of each signal, in the order of
// signalNames.
func (k *kind) levels() [3]component.StabilityLevel {
	return [3]component.StabilityLevel{k.stab.TracesStability(), k.stab.MetricsStability(), k.stab.LogsStability()}
}

// supports returns the signals the factory has.
func (k *kind) supports() []string {
	var out []string
	for i, st := range k.levels() {
		if st != component.StabilityLevelUndefined {
			out = append(out, signalNames[i])
		}
	}
	return out
}

func (k *kind) describe() wire.Component {
	c := wire.Component{Name: k.name, Class: k.class, Signals: k.supports(), Types: []string{k.factory.Type().String()}, Routes: k.routed}
	if a, ok := k.factory.(interface{ DeprecatedAlias() component.Type }); ok && a.DeprecatedAlias().String() != "" {
		c.Types = append(c.Types, a.DeprecatedAlias().String())
	}
	for _, st := range k.levels() {
		if st != component.StabilityLevelUndefined {
			c.Stability = strings.ToLower(st.String())
			break
		}
	}
	defaults := confmap.New()
	if err := defaults.Marshal(k.factory.CreateDefaultConfig()); err == nil {
		m := defaults.ToStringMap()
		keys := make([]string, 0, len(m))
		for key := range m {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			f := wire.Field{Name: key, Type: typeName(m[key])}
			if v := m[key]; v != nil && !isZero(v) {
				f.Default = v
			}
			c.Fields = append(c.Fields, f)
		}
	}
	return c
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int64, int32, uint64, float64:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "table"
	default:
		return "any"
	}
}

func isZero(v any) bool {
	rv := reflect.ValueOf(v)
	return !rv.IsValid() || rv.IsZero() || (rv.Kind() == reflect.Map || rv.Kind() == reflect.Slice) && rv.Len() == 0
}

// decode makes the component's config from the script's values: the
// factory's defaults with the values unmarshalled over them, validated.
func (k *kind) decode(values map[string]any) (component.Config, []wire.FieldError) {
	cfg := k.factory.CreateDefaultConfig()
	// Lua's {} is an empty table and an empty list: make it what each
	// field takes, as the built-in adapter does.
	shaped, _ := confshape.Shape(values, reflect.TypeOf(cfg)).(map[string]any)
	if err := confmap.NewFromStringMap(shaped).Unmarshal(cfg); err != nil {
		return nil, unmarshalErrors(err, strings.TrimPrefix(fmt.Sprintf("%T", cfg), "*"))
	}
	if v, ok := cfg.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return nil, []wire.FieldError{{Message: err.Error()}}
		}
	}
	return cfg, nil
}

// create builds and starts an instance for the signals it takes: a
// receiver or processor for those it has consumers for on the host, an
// exporter for all it supports.
func (k *kind) create(ctx context.Context, logger *zap.Logger, broker uint32, cfg component.Config, outputs []string, next *hostConsumer) (*instance, error) {
	set := settings{
		id: component.NewID(k.factory.Type()),
		tel: component.TelemetrySettings{
			Logger:         logger.With(zap.String("component_id", next.instance)),
			TracerProvider: tracenoop.NewTracerProvider(),
			MeterProvider:  metricnoop.NewMeterProvider(),
		},
	}
	want := map[string]bool{}
	for _, s := range outputs {
		want[s] = true
	}
	inst := &instance{kind: k, broker: broker}
	for _, sig := range k.supports() {
		if k.class != "exporter" && !want[sig] {
			continue
		}
		c, err := k.createSignal(ctx, set, cfg, sig, next)
		if err != nil {
			_ = inst.shutdown(ctx)
			return nil, fmt.Errorf("creating the %s %s: %w", sig, k.class, err)
		}
		if err := c.Start(ctx, emptyHost{}); err != nil {
			_ = c.Shutdown(ctx)
			_ = inst.shutdown(ctx)
			return nil, fmt.Errorf("starting the %s %s: %w", sig, k.class, err)
		}
		inst.parts = append(inst.parts, c)
		switch sig {
		case "traces":
			inst.traces, _ = c.(consumer.Traces)
		case "metrics":
			inst.metrics, _ = c.(consumer.Metrics)
		case "logs":
			inst.logs, _ = c.(consumer.Logs)
		}
	}
	return inst, nil
}

// instance is a running component: its parts, one per signal (which a
// shared component may make one).
type instance struct {
	kind    *kind
	broker  uint32
	outputs []string
	// dataPath is the component's data path on the host; fed what the
	// instance was created from when its targets are fed through files.
	dataPath string
	fed      *fed
	parts    []component.Component
	traces   consumer.Traces
	metrics  consumer.Metrics
	logs     consumer.Logs
}

// batches decodes the batches the host sends, with the decoder of
// flowlua's OTLP receiver (otlpwire), which builds the same pdata with
// fewer allocations than pdata's own.
var batches = otlpwire.NewUnmarshaler(true)

func (i *instance) consume(ctx context.Context, signal string, b []byte) error {
	var err error
	switch signal {
	case "traces":
		if i.traces == nil {
			return status.Errorf(codes.InvalidArgument, "%s takes no traces here", i.kind.name)
		}
		td, derr := batches.UnmarshalTraces(b)
		if derr != nil {
			return status.Errorf(codes.InvalidArgument, "decoding traces: %v", derr)
		}
		err = i.traces.ConsumeTraces(ctx, td)
	case "metrics":
		if i.metrics == nil {
			return status.Errorf(codes.InvalidArgument, "%s takes no metrics here", i.kind.name)
		}
		md, derr := batches.UnmarshalMetrics(b)
		if derr != nil {
			return status.Errorf(codes.InvalidArgument, "decoding metrics: %v", derr)
		}
		err = i.metrics.ConsumeMetrics(ctx, md)
	case "logs":
		if i.logs == nil {
			return status.Errorf(codes.InvalidArgument, "%s takes no logs here", i.kind.name)
		}
		ld, derr := batches.UnmarshalLogs(b)
		if derr != nil {
			return status.Errorf(codes.InvalidArgument, "decoding logs: %v", derr)
		}
		err = i.logs.ConsumeLogs(ctx, ld)
	default:
		return status.Errorf(codes.InvalidArgument, "unknown signal %q", signal)
	}
	switch {
	case err == nil:
		return nil
	case consumererror.IsPermanent(err):
		return status.Error(codes.InvalidArgument, err.Error())
	default:
		// Aborted, not Unavailable: the host sends a batch again only
		// when the process died with it, not when a consumer refused it.
		return status.Error(codes.Aborted, err.Error())
	}
}

func (i *instance) shutdown(ctx context.Context) error {
	var errs []error
	seen := map[component.Component]bool{}
	for _, c := range i.parts {
		if seen[c] {
			continue
		}
		seen[c] = true
		errs = append(errs, c.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// invalidKeys is how confmap (mapstructure) reports unknown keys: the
// table's path, or the config's type name at the top.
var invalidKeys = regexp.MustCompile(`'([^']*)' has invalid keys: (.+)$`)

// unmarshalErrors turns confmap's unknown-key errors into one field error
// per key; other errors are kept whole.
func unmarshalErrors(err error, typeName string) []wire.FieldError {
	var out []wire.FieldError
	rest := []string{}
	for _, line := range strings.Split(err.Error(), "\n") {
		m := invalidKeys.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "decoding failed due to") {
				rest = append(rest, strings.TrimPrefix(l, "* "))
			}
			continue
		}
		path := m[1]
		if path == typeName {
			path = ""
		}
		for _, key := range strings.Split(m[2], ", ") {
			out = append(out, wire.FieldError{Path: path, Key: key, Message: fmt.Sprintf("unknown field %q", key)})
		}
	}
	if len(rest) > 0 || len(out) == 0 {
		msg := strings.Join(rest, "; ")
		if msg == "" {
			msg = err.Error()
		}
		out = append(out, wire.FieldError{Message: msg})
	}
	return out
}
