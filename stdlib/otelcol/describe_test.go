package otelcol

import (
	"reflect"
	"strings"
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/decode"
)

// describe lists a registered component's fields as `flowlua components`
// does.
func describe(t *testing.T, name string) map[string]decode.Field {
	t.Helper()
	reg, ok := flowcomp.DefaultRegistry.Get(name)
	if !ok {
		t.Fatalf("%s not registered", name)
	}
	fields := map[string]decode.Field{}
	args, _ := reg.Describe()
	for _, f := range args {
		if _, dup := fields[f.Path]; dup {
			t.Errorf("%s: field %s listed twice", name, f.Path)
		}
		fields[f.Path] = f
	}
	return fields
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		comp string
		want []decode.Field
		not  []string
	}{{
		comp: "otelcol.exporter.otlp",
		want: []decode.Field{
			{Path: "endpoint", Type: "string"},
			{Path: "tls.insecure", Type: "boolean"},
			{Path: "timeout", Type: "duration", Default: `"5s"`},
			{Path: "compression", Type: "string", Default: `"gzip"`},
			{Path: "sending_queue.storage", Type: "extension", Doc: "reference otelcol.extension.<type>.<label>.id"},
			{Path: "sending_queue.num_consumers", Type: "integer", Default: "10"},
			{Path: "retry_on_failure.enabled", Type: "boolean", Default: "true"},
		},
		not: []string{"output", "clientconfig"},
	}, {
		comp: "otelcol.receiver.otlp",
		want: []decode.Field{
			{Path: "output", Type: "table", Doc: "where to send each signal"},
			{Path: "output.traces", Type: "list(dataplane.Consumer)", Doc: "consumers of traces"},
			{Path: "protocols.grpc", Type: "table", Doc: "off unless given ({} for the defaults)"},
			{Path: "protocols.grpc.endpoint", Type: "string", Default: `"localhost:4317"`},
			{Path: "protocols.http.traces_url_path", Type: "string", Default: `"/v1/traces"`},
		},
	}, {
		comp: "otelcol.processor.batch",
		want: []decode.Field{
			{Path: "timeout", Type: "duration", Default: `"200ms"`, Doc: "Timeout sets the time after which a batch will be sent regardless of size."},
			{Path: "send_batch_size", Type: "integer", Default: "8192"},
		},
	}, {
		comp: "otelcol.extension.file_storage",
		want: []decode.Field{
			{Path: "directory", Type: "string", Doc: "defaults to the component's directory under --storage.path"},
			{Path: "compaction.on_start", Type: "boolean"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.comp, func(t *testing.T) {
			got := describe(t, tt.comp)
			for _, w := range tt.want {
				if g, ok := got[w.Path]; !ok {
					t.Errorf("no field %s", w.Path)
				} else if w.Doc == "" && g.Doc != "" {
					// An upstream description (fielddoc_gen.go): any text.
					if g.Doc = ""; g != w {
						t.Errorf("field %s = %+v, want %+v", w.Path, g, w)
					}
				} else if g != w {
					t.Errorf("field %s = %+v, want %+v", w.Path, g, w)
				}
			}
			for _, n := range tt.not {
				if _, ok := got[n]; ok {
					t.Errorf("unexpected field %s", n)
				}
			}
		})
	}
}

func TestRegistrations(t *testing.T) {
	names := []string{
		"otelcol.receiver.otlp",
		"otelcol.processor.batch", "otelcol.processor.memory_limiter", "otelcol.processor.attributes",
		"otelcol.processor.filter", "otelcol.processor.transform",
		"otelcol.exporter.otlp", "otelcol.exporter.otlphttp", "otelcol.exporter.debug", "otelcol.exporter.file",
		"otelcol.extension.file_storage",
	}
	for _, n := range names {
		reg, ok := flowcomp.DefaultRegistry.Get(n)
		if !ok {
			t.Errorf("%s is not registered", n)
			continue
		}
		if err := decode.CheckType(reflect.TypeOf(reg.Args)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		types := reg.ExportTypes()
		switch {
		case strings.HasPrefix(n, "otelcol.receiver."):
			if len(types) != 0 {
				t.Errorf("%s exports %v", n, types)
			}
		case strings.HasPrefix(n, "otelcol.extension."):
			if types["id"] != reflect.TypeFor[*Extension]() {
				t.Errorf("%s exports %v, want id", n, types)
			}
		default:
			if types["input"] != reflect.TypeFor[dataplane.Consumer]() {
				t.Errorf("%s exports %v, want input", n, types)
			}
		}
	}
}

func TestCollectorID(t *testing.T) {
	reg, _ := flowcomp.DefaultRegistry.Get("otelcol.exporter.otlp")
	k := reg.Schema.(*kind)
	for flowID, want := range map[string]string{
		"otelcol.exporter.otlp.upstream":            "otlp_grpc/upstream",
		"gateway.eu.otelcol.exporter.otlp.upstream": "otlp_grpc/gateway.eu.upstream",
	} {
		if got := collectorID(k, flowID).String(); got != want {
			t.Errorf("collectorID(%s) = %s, want %s", flowID, got, want)
		}
	}
}

// TestArgsWithoutKind: an Args that no registration made cannot decode
// and says why.
func TestArgsWithoutKind(t *testing.T) {
	var a Args
	if err := a.UnmarshalScript(map[string]any{}); err == nil || !strings.Contains(err.Error(), "not made by a registration") {
		t.Errorf("err = %v", err)
	}
	if a.DescribeFields() != nil {
		t.Error("an Args without kind describes fields")
	}
}
