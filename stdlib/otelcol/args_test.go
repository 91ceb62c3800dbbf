package otelcol

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/attributesprocessor"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/processor/batchprocessor"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// decodeErrors decodes args and returns the errors as "path: message".
func decodeErrors(t *testing.T, name string, args map[string]any) []string {
	t.Helper()
	_, _, err := decodeFor(t, name, args)
	if err == nil {
		return nil
	}
	var es decode.Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T is not decode.Errors: %v", err, err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Error())
	}
	return out
}

func TestArgsErrors(t *testing.T) {
	tests := []struct {
		name string
		comp string
		args map[string]any
		want []string
	}{{
		name: "unknown nested key",
		comp: "otelcol.receiver.otlp",
		args: map[string]any{"protocols": map[string]any{"grpc": map[string]any{"endpont": "127.0.0.1:4317"}}},
		want: []string{`protocols.grpc: unknown field "endpont" (did you mean "endpoint"?)`},
	}, {
		name: "unknown top-level key",
		comp: "otelcol.processor.batch",
		args: map[string]any{"timout": "1s"},
		want: []string{`unknown field "timout" (did you mean "timeout"?)`},
	}, {
		name: "unknown key in a list element",
		comp: "otelcol.processor.attributes",
		args: map[string]any{"actions": []any{map[string]any{"key": "a", "action": "delete"}, map[string]any{"key": "b", "acton": "delete"}}},
		want: []string{`actions[2]: unknown field "acton" (did you mean "action"?)`},
	}, {
		name: "wrong type",
		comp: "otelcol.exporter.otlp",
		args: map[string]any{"endpoint": "127.0.0.1:4317", "tls": map[string]any{"insecure": "yes"}},
		want: []string{`tls.insecure: expected boolean, got string`},
	}, {
		name: "bad duration",
		comp: "otelcol.processor.batch",
		args: map[string]any{"timeout": "2 seconds"},
		want: []string{`timeout: invalid duration "2 seconds": unknown unit (use a number with a unit: "200ms", "1m30s")`},
	}, {
		name: "table for a list",
		comp: "otelcol.processor.attributes",
		args: map[string]any{"actions": map[string]any{"key": "a"}},
		want: []string{`actions: expected list, got table`},
	}, {
		name: "validate: component's own rule",
		comp: "otelcol.processor.batch",
		args: map[string]any{"send_batch_size": 100.0, "send_batch_max_size": 10.0},
		want: []string{`send_batch_max_size must be greater or equal to send_batch_size`},
	}, {
		name: "validate: nested rule and missing endpoint",
		comp: "otelcol.exporter.otlp",
		args: map[string]any{"sending_queue": map[string]any{"num_consumers": -1.0}},
		want: []string{`requires a non-empty "endpoint"`, "sending_queue: `num_consumers` must be positive"},
	}, {
		name: "output entry that is no consumer",
		comp: "otelcol.processor.batch",
		args: map[string]any{"output": map[string]any{"traces": []any{newSink(), "nope"}}},
		want: []string{`output.traces[2]: expected dataplane.Consumer, got string`},
	}, {
		name: "unknown output signal",
		comp: "otelcol.processor.batch",
		args: map[string]any{"output": map[string]any{"trace": []any{newSink()}}},
		want: []string{`output: unknown field "trace" (did you mean "traces"?)`},
	}, {
		name: "exporters take no output",
		comp: "otelcol.exporter.debug",
		args: map[string]any{"output": map[string]any{}},
		want: []string{`unknown field "output"`},
	}, {
		name: "an extension named by a string",
		comp: "otelcol.exporter.otlp",
		args: map[string]any{"endpoint": "a:1", "sending_queue": map[string]any{"storage": "file_storage/q"}},
		want: []string{`sending_queue.storage: expected an extension, got string "file_storage/q": reference it as otelcol.extension.<type>.<label>.id`},
	}, {
		name: "a consumer where a string goes",
		comp: "otelcol.exporter.otlp",
		args: map[string]any{"endpoint": newSink()},
		want: []string{`endpoint: expected a string, number, boolean or table, got *otelcol.sink`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeErrors(t, tt.comp, tt.args)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestArgsDecodeConfig(t *testing.T) {
	_, v, err := decodeFor(t, "otelcol.processor.batch", map[string]any{
		"timeout":         "200ms",
		"send_batch_size": 8192.0,
		"output":          map[string]any{"traces": []any{newSink()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := v.(Args)
	cfg := a.Config.(*batchprocessor.Config)
	if cfg.Timeout.String() != "200ms" || cfg.SendBatchSize != 8192 {
		t.Errorf("config = %+v", a.Config)
	}
	if len(a.Output.Traces) != 1 || len(a.Output.Metrics) != 0 {
		t.Errorf("output = %+v", a.Output)
	}

	// Integral Lua numbers become ints, as YAML types them: an attribute
	// inserted from 42 is an integer, from 1.5 a double.
	_, v, err = decodeFor(t, "otelcol.processor.attributes", map[string]any{
		"actions": []any{
			map[string]any{"key": "i", "value": 42.0, "action": "insert"},
			map[string]any{"key": "f", "value": 1.5, "action": "insert"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	acts := v.(Args).Config.(*attributesprocessor.Config).Settings.Actions
	if _, ok := acts[0].Value.(int); !ok {
		t.Errorf("42 decoded as %T, want int", acts[0].Value)
	}
	if _, ok := acts[1].Value.(float64); !ok {
		t.Errorf("1.5 decoded as %T, want float64", acts[1].Value)
	}

	// Lua's {} arrives as an empty list: it enables a protocol with its
	// defaults, and is an empty list where a list goes.
	_, _, err = decodeFor(t, "otelcol.receiver.otlp", map[string]any{"protocols": map[string]any{"grpc": []any{}}})
	if err != nil {
		t.Errorf("grpc = {}: %v", err)
	}
	// An empty table that arrives as one with keys is an empty list too.
	if _, _, err = decodeFor(t, "otelcol.processor.filter", map[string]any{"traces": map[string]any{"span": map[string]any{}}}); err != nil {
		t.Errorf("span = {}: %v", err)
	}
	if _, _, err = decodeFor(t, "otelcol.extension.file_storage", nil); err != nil {
		t.Errorf("file_storage without arguments: %v", err)
	}
}

// TestArgsCheckMode decodes arguments holding placeholders, as `flowlua
// check` does: values of the right type pass, the collector's Validate
// (which would refuse the unknown endpoint) is skipped, wrong types fail.
func TestArgsCheckMode(t *testing.T) {
	str := &script.Placeholder{Type: reflect.TypeFor[string](), From: "file.read.token.content"}
	consumerT := &script.Placeholder{Type: reflect.TypeFor[dataplane.Consumer](), From: "otelcol.exporter.otlp.x.input"}
	boolean := &script.Placeholder{Type: reflect.TypeFor[bool](), From: "x.y.flag"}
	extension := &script.Placeholder{Type: reflect.TypeFor[*Extension](), From: "otelcol.extension.file_storage.q.id"}

	_, v, err := decodeFor(t, "otelcol.exporter.otlp", map[string]any{
		"endpoint":      str,
		"headers":       map[string]any{"authorization": &script.Expr{Op: ".."}}, // never reaches decode in practice
		"tls":           map[string]any{"insecure": boolean},
		"sending_queue": map[string]any{"storage": extension},
	})
	if err == nil || !strings.Contains(err.Error(), "headers.authorization") {
		t.Errorf("an unevaluated expression was accepted: %v", err)
	}
	_, v, err = decodeFor(t, "otelcol.exporter.otlp", map[string]any{
		"endpoint":      str,
		"headers":       map[string]any{"authorization": str},
		"tls":           map[string]any{"insecure": boolean},
		"sending_queue": map[string]any{"storage": extension},
	})
	if err != nil {
		t.Fatalf("placeholders of the right types: %v", err)
	}
	if got := *v.(Args).Config.(*otlpexporter.Config).QueueConfig.Get().StorageID; got.String() != "file_storage/q" {
		t.Errorf("storage = %s, want the id the reference names", got)
	}
	if !v.(Args).partial {
		t.Error("args with placeholders not marked partial")
	}

	_, _, err = decodeFor(t, "otelcol.processor.batch", map[string]any{
		"output": map[string]any{"traces": []any{consumerT}, "logs": []any{str}},
	})
	if got := errString(err); got != "output.logs[1]: expected dataplane.Consumer, got string (from file.read.token.content)" {
		t.Errorf("placeholder in output: %s", got)
	}
	_, _, err = decodeFor(t, "otelcol.exporter.otlp", map[string]any{"endpoint": "a:1", "compression": consumerT})
	if got := errString(err); got != "compression: expected a string, number, boolean or table, got dataplane.Consumer (from otelcol.exporter.otlp.x.input)" {
		t.Errorf("consumer placeholder in config: %s", got)
	}
	_, _, err = decodeFor(t, "otelcol.exporter.otlp", map[string]any{"endpoint": "a:1", "sending_queue": map[string]any{"storage": str}})
	if got := errString(err); got != "sending_queue.storage: expected an extension, got string (from file.read.token.content): reference it as otelcol.extension.<type>.<label>.id" {
		t.Errorf("string placeholder for an extension: %s", got)
	}
	_, _, err = decodeFor(t, "otelcol.exporter.otlp", map[string]any{"endpoint": "a:1", "compression": boolean})
	if got := errString(err); got != "compression: expected string, got boolean" {
		t.Errorf("boolean placeholder for a string: %s", got)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
