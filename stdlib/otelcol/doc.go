// Package otelcol hosts the upstream OpenTelemetry Collector's components
// (core and contrib) as flowlua components, through one generic adapter:
// otelcol.receiver.*, otelcol.processor.*, otelcol.exporter.* and
// otelcol.extension.*. Adding an upstream component is one registration
// line (see components.go):
//
//	RegisterProcessor("batch", batchprocessor.NewFactory())
//
// Each registration's Schema (component.Schema) is the upstream factory:
// it decodes arguments into an Args that knows its factory, names the
// exports and describes the upstream config's keys.
//
// # Arguments
//
// A component's arguments are the upstream component's own configuration
// keys, as in the collector's YAML, plus `output` for receivers and
// processors. Decoding (Schema.DecodeArgs, then Args.UnmarshalScript):
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
// Errors become *decode.Error with the field path and a "did you mean"
// hint built from the config's mapstructure tags.
//
// # Life of a component
//
//  1. Build creates the upstream component(s) for the signals in use (a
//     receiver's and a processor's: those with consumers in output; an
//     exporter's: every signal it supports), from one config pointer, and
//     publishes the exports: `input` (a telemetry.Indirect) for processors
//     and exporters, `id` for extensions.
//  2. Run waits for the extensions the config names, starts the instance
//     with a Host that serves flowlua's running extensions, points `input`
//     at it, and on cancellation stops it: `input` is cleared, in-flight
//     calls return, then Shutdown drains.
//  3. Update applies new arguments: new outputs alone are swapped in
//     place; a new config builds and starts a new instance, swaps it in,
//     then shuts the old one down. Receivers and extensions (which hold
//     ports and files) stop the old instance before starting the new one.
//
// Components log through the component's slog logger (a zap core bridges
// them) and their own metrics (accepted/refused/sent/failed, queue size)
// reach the component's Prometheus registerer.
package otelcol
