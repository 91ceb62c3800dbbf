// Package gen builds the realistic OTLP payloads the load generator sends:
// traces whose spans carry about ten attributes, metrics with gauges, sums and
// histograms, and log records with bodies and attributes, all under resources
// with typical resource attributes. Payloads are built once with pdata and
// marshalled to protobuf; the load generator resends the same bytes.
//
// Every span carries "user.email" and "net.peer.ip", the attributes the
// redact pipeline rewrites and deletes.
package gen

import (
	"fmt"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/flowlua/flowlua/bench/internal/wire"
)

// PerResource is how many items share one resource (and one scope) in a
// generated batch: a batch of 500 items carries 5 resources.
const PerResource = 100

var routes = []string{"/api/v1/users/{id}", "/api/v1/orders", "/api/v1/orders/{id}", "/health", "/api/v1/cart", "/api/v1/search"}
var methods = []string{"GET", "POST", "PUT", "DELETE"}

func fillResource(r pcommon.Resource, i int) {
	a := r.Attributes()
	a.EnsureCapacity(10)
	a.PutStr("service.name", fmt.Sprintf("checkout-%d", i%4))
	a.PutStr("service.version", "1.24.3")
	a.PutStr("service.namespace", "shop")
	a.PutStr("service.instance.id", fmt.Sprintf("5f8c2a1e-%04d-4b7e-9d3c-0a1b2c3d4e5f", i))
	a.PutStr("host.name", fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i%8, 10+i))
	a.PutStr("host.arch", "amd64")
	a.PutStr("os.type", "linux")
	a.PutStr("deployment.environment.name", "production")
	a.PutStr("k8s.namespace.name", "shop")
	a.PutStr("k8s.pod.name", fmt.Sprintf("checkout-7d9f8b6c5-%05d", i))
}

func fillScope(s pcommon.InstrumentationScope) {
	s.SetName("go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp")
	s.SetVersion("0.63.0")
}

func chunks(n int, fn func(res, count int)) {
	for res := 0; n > 0; res++ {
		c := min(n, PerResource)
		fn(res, c)
		n -= c
	}
}

// Traces returns n spans spread over resources of PerResource spans each.
func Traces(n int) ptrace.Traces {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	td := ptrace.NewTraces()
	chunks(n, func(res, count int) {
		rs := td.ResourceSpans().AppendEmpty()
		fillResource(rs.Resource(), res)
		ss := rs.ScopeSpans().AppendEmpty()
		fillScope(ss.Scope())
		ss.Spans().EnsureCapacity(count)
		for j := range count {
			sp := ss.Spans().AppendEmpty()
			var tid [16]byte
			var sid, pid [8]byte
			for k := range 2 {
				v := rng.Uint64()
				for b := range 8 {
					tid[k*8+b] = byte(v >> (8 * b))
				}
			}
			v, w := rng.Uint64(), rng.Uint64()
			for b := range 8 {
				sid[b], pid[b] = byte(v>>(8*b)), byte(w>>(8*b))
			}
			route := routes[j%len(routes)]
			method := methods[j%len(methods)]
			sp.SetTraceID(tid)
			sp.SetSpanID(sid)
			sp.SetParentSpanID(pid)
			sp.SetName(method + " " + route)
			sp.SetKind(ptrace.SpanKindServer)
			start := base.Add(time.Duration(j) * time.Millisecond)
			sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
			sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(1+rng.IntN(250)) * time.Millisecond)))
			status := int64(200)
			if j%50 == 0 {
				status = 500
				sp.Status().SetCode(ptrace.StatusCodeError)
				sp.Status().SetMessage("internal error")
			}
			a := sp.Attributes()
			a.EnsureCapacity(10)
			a.PutStr("http.request.method", method)
			a.PutStr("http.route", route)
			a.PutInt("http.response.status_code", status)
			a.PutStr("url.path", fmt.Sprintf("/api/v1/users/%d", rng.IntN(100000)))
			a.PutStr("url.scheme", "https")
			a.PutStr("server.address", "checkout.shop.svc.cluster.local")
			a.PutStr("net.peer.ip", fmt.Sprintf("10.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256)))
			a.PutStr("user.email", fmt.Sprintf("user%d@example.com", rng.IntN(100000)))
			a.PutInt("user.id", int64(rng.IntN(1000000)))
			a.PutStr("user_agent.original", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36")
		}
	})
	return td
}

// Metrics returns n data points: per resource, metrics of ten points each,
// cycling gauge (double), monotonic cumulative sum (int) and histogram
// (ten buckets); every point has three attributes.
func Metrics(n int) pmetric.Metrics {
	rng := rand.New(rand.NewPCG(3, 4))
	now := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	startTS := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	md := pmetric.NewMetrics()
	chunks(n, func(res, count int) {
		rm := md.ResourceMetrics().AppendEmpty()
		fillResource(rm.Resource(), res)
		sm := rm.ScopeMetrics().AppendEmpty()
		fillScope(sm.Scope())
		for m := 0; count > 0; m++ {
			pts := min(count, 10)
			count -= pts
			metric := sm.Metrics().AppendEmpty()
			attrs := func(a pcommon.Map, k int) {
				a.EnsureCapacity(3)
				a.PutStr("http.route", routes[k%len(routes)])
				a.PutStr("http.request.method", methods[k%len(methods)])
				a.PutInt("http.response.status_code", 200)
			}
			switch m % 3 {
			case 0:
				metric.SetName(fmt.Sprintf("process.runtime.go.mem.heap_alloc.%d", m))
				metric.SetUnit("By")
				metric.SetDescription("Bytes of allocated heap objects")
				g := metric.SetEmptyGauge()
				for k := range pts {
					dp := g.DataPoints().AppendEmpty()
					dp.SetTimestamp(now)
					dp.SetDoubleValue(rng.Float64() * 1e6)
					attrs(dp.Attributes(), k)
				}
			case 1:
				metric.SetName(fmt.Sprintf("http.server.request.count.%d", m))
				metric.SetUnit("{request}")
				metric.SetDescription("Number of HTTP requests served")
				s := metric.SetEmptySum()
				s.SetIsMonotonic(true)
				s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
				for k := range pts {
					dp := s.DataPoints().AppendEmpty()
					dp.SetStartTimestamp(startTS)
					dp.SetTimestamp(now)
					dp.SetIntValue(int64(rng.IntN(1 << 20)))
					attrs(dp.Attributes(), k)
				}
			default:
				metric.SetName(fmt.Sprintf("http.server.request.duration.%d", m))
				metric.SetUnit("s")
				metric.SetDescription("Duration of HTTP server requests")
				h := metric.SetEmptyHistogram()
				h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
				for k := range pts {
					dp := h.DataPoints().AppendEmpty()
					dp.SetStartTimestamp(startTS)
					dp.SetTimestamp(now)
					dp.ExplicitBounds().FromRaw([]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5})
					var total uint64
					counts := make([]uint64, 10)
					for b := range counts {
						counts[b] = uint64(rng.IntN(100))
						total += counts[b]
					}
					dp.BucketCounts().FromRaw(counts)
					dp.SetCount(total)
					dp.SetSum(float64(total) * 0.07)
					attrs(dp.Attributes(), k)
				}
			}
		}
	})
	return md
}

// Logs returns n log records with a ~100-byte body, severity, trace context
// and five attributes.
func Logs(n int) plog.Logs {
	rng := rand.New(rand.NewPCG(5, 6))
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ld := plog.NewLogs()
	chunks(n, func(res, count int) {
		rl := ld.ResourceLogs().AppendEmpty()
		fillResource(rl.Resource(), res)
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName("checkout/logger")
		sl.LogRecords().EnsureCapacity(count)
		for j := range count {
			lr := sl.LogRecords().AppendEmpty()
			ts := pcommon.NewTimestampFromTime(base.Add(time.Duration(j) * time.Millisecond))
			lr.SetTimestamp(ts)
			lr.SetObservedTimestamp(ts)
			lr.SetSeverityNumber(plog.SeverityNumberInfo)
			lr.SetSeverityText("INFO")
			route, method := routes[j%len(routes)], methods[j%len(methods)]
			lr.Body().SetStr(fmt.Sprintf("%s %s completed status=200 duration_ms=%d user_id=%d request_id=%016x",
				method, route, rng.IntN(250), rng.IntN(1000000), rng.Uint64()))
			var tid [16]byte
			var sid [8]byte
			v, w := rng.Uint64(), rng.Uint64()
			for b := range 8 {
				tid[b], tid[8+b], sid[b] = byte(v>>(8*b)), byte(w>>(8*b)), byte(w>>(8*b))
			}
			lr.SetTraceID(tid)
			lr.SetSpanID(sid)
			a := lr.Attributes()
			a.EnsureCapacity(5)
			a.PutStr("http.route", route)
			a.PutStr("http.request.method", method)
			a.PutInt("http.response.status_code", 200)
			a.PutStr("code.function.name", "checkout.(*Handler).ServeHTTP")
			a.PutStr("thread.name", fmt.Sprintf("worker-%d", j%16))
		}
	})
	return ld
}

// Payload names a kind of generated data.
type Payload string

// The payloads.
const (
	// Realistic is the default: about ten attributes per span (~500 bytes
	// per span on the wire), metrics with gauges, sums and histograms and
	// three attributes per point, logs with ~100-byte bodies and five
	// attributes.
	Realistic Payload = "realistic"
	// Small resembles what telemetrygen sends: one resource attribute, spans
	// with two attributes (user.email, net.peer.ip), gauge points with one
	// attribute, logs with a short body and one attribute. It shows how
	// much of a figure is per-item overhead rather than per-byte work.
	Small Payload = "small"
	// OneAttr is small items of every signal carrying one attribute each:
	// one resource attribute; spans with one attribute; metrics as ONE
	// monotonic cumulative int Sum per request whose points carry one
	// attribute each; logs with a short body and one attribute.
	OneAttr Payload = "oneattr"
)

// ParsePayload validates a payload name.
func ParsePayload(s string) (Payload, error) {
	switch Payload(s) {
	case Realistic, Small, OneAttr:
		return Payload(s), nil
	}
	return "", fmt.Errorf("unknown payload %q (want realistic, small or oneattr)", s)
}

// SmallTraces returns n small spans under one resource and scope.
func SmallTraces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "telemetrygen")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("telemetrygen")
	now := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	for j := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID([16]byte{1, byte(j), byte(j >> 8), byte(j >> 16)})
		sp.SetSpanID([8]byte{2, byte(j), byte(j >> 8), byte(j >> 16)})
		sp.SetName("okey-dokey-0")
		sp.SetKind(ptrace.SpanKindClient)
		sp.SetStartTimestamp(now)
		sp.SetEndTimestamp(now + 123456)
		sp.Attributes().PutStr("user.email", "someone@example.com")
		sp.Attributes().PutStr("net.peer.ip", "1.2.3.4")
	}
	return td
}

// SmallMetrics returns n gauge points with one attribute each, ten per metric.
func SmallMetrics(n int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "telemetrygen")
	sm := rm.ScopeMetrics().AppendEmpty()
	now := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var g pmetric.Gauge
	for j := range n {
		if j%10 == 0 {
			m := sm.Metrics().AppendEmpty()
			m.SetName(fmt.Sprintf("gen.%d", j/10))
			g = m.SetEmptyGauge()
		}
		dp := g.DataPoints().AppendEmpty()
		dp.SetTimestamp(now)
		dp.SetDoubleValue(float64(j))
		dp.Attributes().PutInt("index", int64(j%10))
	}
	return md
}

// SmallLogs returns n log records with a short body and one attribute.
func SmallLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "telemetrygen")
	sl := rl.ScopeLogs().AppendEmpty()
	now := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	for range n {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(now)
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		lr.SetSeverityText("Info")
		lr.Body().SetStr("the message")
		lr.Attributes().PutStr("app", "server")
	}
	return ld
}

// OneAttrTraces returns n spans with one attribute each under one resource
// (one attribute) and scope.
func OneAttrTraces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "oneattr")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("oneattr")
	now := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	ss.Spans().EnsureCapacity(n)
	for j := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID([16]byte{1, byte(j), byte(j >> 8), byte(j >> 16)})
		sp.SetSpanID([8]byte{2, byte(j), byte(j >> 8), byte(j >> 16)})
		sp.SetName("span")
		sp.SetKind(ptrace.SpanKindServer)
		sp.SetStartTimestamp(now)
		sp.SetEndTimestamp(now + 1000)
		sp.Attributes().PutStr("key", "value")
	}
	return td
}

// OneAttrMetrics returns ONE monotonic cumulative int Sum of n points,
// each with one attribute.
func OneAttrMetrics(n int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "oneattr")
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("oneattr")
	now := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	m := sm.Metrics().AppendEmpty()
	m.SetName("requests")
	s := m.SetEmptySum()
	s.SetIsMonotonic(true)
	s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	s.DataPoints().EnsureCapacity(n)
	for j := range n {
		dp := s.DataPoints().AppendEmpty()
		dp.SetStartTimestamp(now - 1000)
		dp.SetTimestamp(now)
		dp.SetIntValue(int64(j))
		dp.Attributes().PutStr("key", "value")
	}
	return md
}

// OneAttrLogs returns n log records with a short body and one attribute.
func OneAttrLogs(n int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "oneattr")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("oneattr")
	now := pcommon.NewTimestampFromTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	sl.LogRecords().EnsureCapacity(n)
	for range n {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(now)
		lr.Body().SetStr("hello world")
		lr.Attributes().PutStr("key", "value")
	}
	return ld
}

// RequestPayload returns the encoded OTLP export request of n items of
// signal s with payload p.
func RequestPayload(s wire.Signal, p Payload, n int) ([]byte, error) {
	if p == OneAttr {
		switch s {
		case wire.Traces:
			return ptraceotlp.NewExportRequestFromTraces(OneAttrTraces(n)).MarshalProto()
		case wire.Metrics:
			return pmetricotlp.NewExportRequestFromMetrics(OneAttrMetrics(n)).MarshalProto()
		case wire.Logs:
			return plogotlp.NewExportRequestFromLogs(OneAttrLogs(n)).MarshalProto()
		}
		return nil, fmt.Errorf("gen: unknown signal %q", s)
	}
	if p != Small {
		return Request(s, n)
	}
	switch s {
	case wire.Traces:
		return ptraceotlp.NewExportRequestFromTraces(SmallTraces(n)).MarshalProto()
	case wire.Metrics:
		return pmetricotlp.NewExportRequestFromMetrics(SmallMetrics(n)).MarshalProto()
	case wire.Logs:
		return plogotlp.NewExportRequestFromLogs(SmallLogs(n)).MarshalProto()
	}
	return nil, fmt.Errorf("gen: unknown signal %q", s)
}

// Request returns the encoded OTLP export request of n items of signal s
// with the realistic payload.
func Request(s wire.Signal, n int) ([]byte, error) {
	switch s {
	case wire.Traces:
		return ptraceotlp.NewExportRequestFromTraces(Traces(n)).MarshalProto()
	case wire.Metrics:
		return pmetricotlp.NewExportRequestFromMetrics(Metrics(n)).MarshalProto()
	case wire.Logs:
		return plogotlp.NewExportRequestFromLogs(Logs(n)).MarshalProto()
	}
	return nil, fmt.Errorf("gen: unknown signal %q", s)
}
