package otelcol

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// BenchmarkOTLPHTTP posts the same 500-span protobuf request (five
// resources of a hundred spans, ten attributes each, as bench/internal/gen
// builds them) over loopback HTTP to the collector's otlp receiver and to
// flowlua's server of the same config (fast decoding on and off), both
// sending to a no-op consumer. The client's costs are in every figure,
// alike: compare the differences.
func BenchmarkOTLPHTTP(b *testing.B) {
	body, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(realisticTraces(500))
	if err != nil {
		b.Fatal(err)
	}
	cfg := map[string]any{"endpoint": "127.0.0.1:0"}
	servers := []struct {
		name  string
		start func(b *testing.B) *side
	}{
		{"upstream", func(b *testing.B) *side { return startUpstream(b, cfg, consumertest.NewNop()) }},
		{"flowlua", func(b *testing.B) *side { return startFlowlua(b, cfg, consumertest.NewNop(), newHTTPDecoding(true)) }},
		{"flowlua-pdata", func(b *testing.B) *side {
			return startFlowlua(b, cfg, consumertest.NewNop(), newHTTPDecoding(false))
		}},
	}
	for _, srv := range servers {
		b.Run(srv.name, func(b *testing.B) {
			s := srv.start(b)
			url := s.url + "/v1/traces"
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				resp, err := s.http.Post(url, pbContentType, bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

// realisticTraces is n spans in resources of a hundred, shaped as the
// bench harness's payloads (bench/internal/gen, another module).
func realisticTraces(n int) ptrace.Traces {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	routes := []string{"/api/v1/users/{id}", "/api/v1/orders", "/api/v1/orders/{id}", "/health", "/api/v1/cart", "/api/v1/search"}
	methods := []string{"GET", "POST", "PUT", "DELETE"}
	td := ptrace.NewTraces()
	for res := 0; n > 0; res++ {
		count := min(n, 100)
		n -= count
		rs := td.ResourceSpans().AppendEmpty()
		a := rs.Resource().Attributes()
		a.PutStr("service.name", fmt.Sprintf("checkout-%d", res%4))
		a.PutStr("service.version", "1.24.3")
		a.PutStr("service.instance.id", fmt.Sprintf("5f8c2a1e-%04d-4b7e-9d3c-0a1b2c3d4e5f", res))
		a.PutStr("host.name", fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", res%8, 10+res))
		a.PutStr("k8s.pod.name", fmt.Sprintf("checkout-7d9f8b6c5-%05d", res))
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp")
		ss.Scope().SetVersion("0.63.0")
		for j := range count {
			sp := ss.Spans().AppendEmpty()
			k := res*100 + j
			sp.SetTraceID(pcommon.TraceID([16]byte{byte(k), byte(k >> 8), 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}))
			sp.SetSpanID(pcommon.SpanID([8]byte{byte(k), byte(k >> 8), 3, 4, 5, 6, 7, 8}))
			sp.SetParentSpanID(pcommon.SpanID([8]byte{8, 7, 6, 5, 4, 3, byte(k >> 8), byte(k)}))
			route, method := routes[j%len(routes)], methods[j%len(methods)]
			sp.SetName(method + " " + route)
			sp.SetKind(ptrace.SpanKindServer)
			start := base.Add(time.Duration(j) * time.Millisecond)
			sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
			sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(1+k%250) * time.Millisecond)))
			a := sp.Attributes()
			a.PutStr("http.request.method", method)
			a.PutStr("http.route", route)
			a.PutInt("http.response.status_code", 200)
			a.PutStr("url.path", fmt.Sprintf("/api/v1/users/%d", k*7919%100000))
			a.PutStr("url.scheme", "https")
			a.PutStr("server.address", "checkout.shop.svc.cluster.local")
			a.PutStr("net.peer.ip", fmt.Sprintf("10.%d.%d.%d", k%256, k*7%256, k*13%256))
			a.PutStr("user.email", fmt.Sprintf("user%d@example.com", k*104729%100000))
			a.PutInt("user.id", int64(k*31337%1000000))
			a.PutStr("user_agent.original", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36")
		}
	}
	return td
}
