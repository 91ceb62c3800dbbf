package otelcol

import (
	"slices"
	"strings"
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
)

func TestUpstreamOf(t *testing.T) {
	r, ok := flowcomp.DefaultRegistry.Get("otelcol.exporter.otlp")
	if !ok {
		t.Fatal("otelcol.exporter.otlp is not registered")
	}
	u, ok := UpstreamOf(r)
	if !ok {
		t.Fatal("UpstreamOf: not an otelcol component")
	}
	if u.Class != "exporter" || !slices.Equal(u.Types, []string{"otlp_grpc", "otlp"}) {
		t.Errorf("class %q types %q, want exporter [otlp_grpc otlp]", u.Class, u.Types)
	}
	for path, want := range map[string]string{
		"sending_queue.storage":    FieldExtension,
		"auth.authenticator":       FieldExtension,
		"endpoint":                 FieldString,
		"timeout":                  FieldString,
		"tls.insecure":             FieldBoolean,
		"sending_queue.queue_size": FieldInteger,
		"headers":                  FieldTable,
		"sending_queue":            FieldTable,
		"nope":                     FieldUnknown,
	} {
		if got := u.Field(strings.Split(path, ".")); got != want {
			t.Errorf("Field(%s) = %q, want %q", path, got, want)
		}
	}
	r, _ = flowcomp.DefaultRegistry.Get("otelcol.processor.filter")
	u, _ = UpstreamOf(r)
	if got := u.Field([]string{"traces", "span"}); got != FieldList {
		t.Errorf("filter traces.span = %q, want list", got)
	}
	if _, ok := flowcomp.DefaultRegistry.Get("file.read"); ok {
		r, _ := flowcomp.DefaultRegistry.Get("file.read")
		if _, ok := UpstreamOf(r); ok {
			t.Error("file.read is not an upstream component")
		}
	}
}
