// Package otelcol hosts the upstream OpenTelemetry Collector's components
// (core and contrib) as flowlua components, through one generic adapter:
// otelcol.receiver.*, otelcol.processor.*, otelcol.exporter.*,
// otelcol.connector.* and otelcol.extension.*. Adding an upstream
// component is one registration line (see components.go):
//
//	RegisterProcessor(batchprocessor.NewFactory())
//
// A component is named by the type its factory reports at the pinned
// release (otelcol.exporter.otlp_grpc). Where upstream renamed a type and
// kept the old name as a deprecated alias, flowlua registers the old name
// too (otelcol.exporter.otlp), as the collector accepts it: both make the
// same component, with the factory's type in its collector id, and
// `flowlua components` says which is the alias of which.
//
// A connector (see connector.go) is an exporter of one signal and a
// receiver of another: `input` takes the signals it has a connection
// from, `output` the signals it makes (spanmetrics: traces in, metrics
// out).
//
// Each registration tells the engine which signals its `input` takes
// (component.Registration.Accepts; signal.go): the factory's, and for a
// processor or a connector only what it can pass on to its output, so
// that a script sending traces to a metrics-only exporter is refused at
// load, as the collector refuses such a pipeline at start. An exporter's
// health follows its sends (sending.go): unhealthy from its first failed
// attempt until a request goes through, and while its queue refuses
// requests.
//
// Each registration's Schema (component.Schema) is the upstream factory:
// it decodes arguments into an Args that knows its factory, names the
// exports and describes the upstream config's keys.
//
// # Arguments
//
// A component's arguments are the upstream component's own configuration
// keys, as in the collector's YAML, plus `output` for receivers,
// processors and connectors. Decoding (Schema.DecodeArgs, then Args.UnmarshalScript):
//
//  1. `output` decodes into a telemetry.Output.
//  2. Every other value is converted to a plain value (integral numbers
//     become ints, so that attributes keep their YAML types; empty tables
//     become what the config field holds) and unmarshalled over the
//     factory's default config with confmap, as the collector does.
//  3. Keys that confmap let through but that name no config field are
//     errors too (confmap ignores them inside some squashed structs).
//  4. The config is validated by the collector's own confmap.Validate,
//     unless a *script.Placeholder was present (check mode).
//
// An extension is referenced through the `id` export of its
// otelcol.extension.* component (an *Extension), never by a string: the
// reference is a graph edge. Where the config takes an extension (a
// component.ID field such as sending_queue.storage), the handle becomes
// its collector id and is remembered; a string there is an error telling
// how to reference it.
//
// Errors become *decode.Error with the field path and a "did you mean"
// hint built from the config's mapstructure tags.
//
// # Life of a component
//
//  1. Build creates the upstream component(s) for the signals in use (a
//     receiver's and a processor's: those with consumers in output; an
//     exporter's: every signal it supports; a connector's: its
//     connections to the signals with consumers in output), from one
//     config pointer, and publishes the exports: `input` (a
//     telemetry.Indirect) for processors, exporters and connectors, `id`
//     for extensions.
//  2. Run waits for the extensions the config references to start (the
//     engine runs them first, but their Run starts them concurrently),
//     starts the instance with a Host that serves exactly those
//     extensions, points `input` at it, and on cancellation stops it:
//     `input` is cleared, the queue drains until component.DrainDeadline,
//     in-flight calls return, then Shutdown; what fails then is counted
//     as dropped (drain_timeout).
//  3. Update applies new arguments: new outputs alone are swapped in
//     place; a new config (or new extension handles) builds and starts a
//     new instance, swaps it in, then drains the old one (until its
//     exporter queue is empty, within Options.DrainTimeout; drain.go) and
//     shuts it down. Receivers and
//     extensions (which hold ports and files) stop the old instance before
//     starting the new one; an extension's new instance is exported as a
//     new handle, so that the components referencing it are updated too.
//     Arguments referencing an extension not started yet are applied once
//     it has started.
//  4. When Run returns, the component's metrics are unregistered and its
//     MeterProvider shut down.
//
// One receiver is not wholly upstream: flowlua serves the http protocol
// of otelcol.receiver.otlp itself (otlphttp.go), so that protobuf bodies
// are decoded by otlpwire, and creates the upstream receiver without it.
// The kind's takeOver hook splits the config; everything else is generic.
//
// Components log through the component's slog logger (a zap core bridges
// them) and their own metrics (accepted/refused/sent/failed, queue size)
// reach the component's Prometheus registerer.
package otelcol
