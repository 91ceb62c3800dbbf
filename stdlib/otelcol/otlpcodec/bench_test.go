package otlpcodec

import (
	"fmt"
	"reflect"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc/encoding"
)

// BenchmarkCodec compares this codec with pdata's (the one it replaced) on
// what an OTLP pipeline does per request: unmarshal a received request of
// 500 spans (read in 16 KiB frames) and marshal an exported batch of 8192.
// Run: go test -run '^$' -bench Codec -benchmem ./stdlib/otelcol/otlpcodec/
func BenchmarkCodec(b *testing.B) {
	t := &testing.T{}
	received, exported := spans(500), spans(8192)
	wire, err := ptraceotlp.NewExportRequestFromTraces(received).MarshalProto()
	if err != nil {
		b.Fatal(err)
	}
	frames := split(wire, (len(wire)+16<<10-1)/(16<<10))
	orig := origOf(t, ptraceotlp.NewExportRequestFromTraces(exported))
	typ := reflect.TypeOf(orig).Elem()
	ours := encoding.GetCodecV2("proto").(*Codec)
	for _, c := range []struct {
		name  string
		codec encoding.CodecV2
	}{{"pdata", ours.fallback}, {"flowlua", ours}} {
		b.Run(c.name+"/unmarshal-500", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := reflect.New(typ).Interface()
				if err := c.codec.Unmarshal(frames, req); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/marshal-8192", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := c.codec.Marshal(orig)
				if err != nil {
					b.Fatal(err)
				}
				out.Free()
			}
		})
	}
}

// spans is n spans of about 500 bytes on the wire, 100 per resource.
func spans(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	var ss ptrace.SpanSlice
	for i := range n {
		if i%100 == 0 {
			rs := td.ResourceSpans().AppendEmpty()
			for k := range 10 {
				rs.Resource().Attributes().PutStr(fmt.Sprintf("resource.attr.%d", k), "some resource value")
			}
			ss = rs.ScopeSpans().AppendEmpty().Spans()
		}
		sp := ss.AppendEmpty()
		sp.SetName("GET /api/v1/users/{id}")
		sp.SetTraceID([16]byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
		sp.SetSpanID([8]byte{byte(i), 1, 2, 3, 4, 5, 6, 7})
		for k := range 10 {
			sp.Attributes().PutStr(fmt.Sprintf("http.attribute.%d", k), "a typical attribute value")
		}
	}
	return td
}
