package otlpwire

import (
	"fmt"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The benchmarks decode requests shaped like bench/'s realistic load: 500
// items a request, 100 items a resource of ten attributes.

var routes = []string{"/api/v1/users/{id}", "/api/v1/orders", "/health", "/api/v1/cart"}

func fillResource(r pcommon.Resource, i int) {
	for k, key := range []string{"service.name", "service.version", "service.namespace", "service.instance.id",
		"host.name", "host.arch", "os.type", "deployment.environment.name", "k8s.namespace.name", "k8s.pod.name"} {
		r.Attributes().PutStr(key, fmt.Sprintf("resource-value-%d-%d", i, k))
	}
}

func benchTraces(n int) []byte {
	td := ptrace.NewTraces()
	var spans ptrace.SpanSlice
	for i := range n {
		if i%100 == 0 {
			rs := td.ResourceSpans().AppendEmpty()
			fillResource(rs.Resource(), i)
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName("go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp")
			spans = ss.Spans()
		}
		sp := spans.AppendEmpty()
		sp.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, byte(i >> 8), byte(i)})
		sp.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, byte(i >> 8), byte(i)})
		sp.SetParentSpanID([8]byte{1, 2, 3, 4, 5, 7, byte(i >> 8), byte(i)})
		sp.SetStartTimestamp(1234567890)
		sp.SetEndTimestamp(1234567990)
		sp.SetKind(ptrace.SpanKindServer)
		sp.SetName("GET " + routes[i%len(routes)])
		a := sp.Attributes()
		a.PutStr("http.request.method", "GET")
		a.PutStr("http.route", routes[i%len(routes)])
		a.PutInt("http.response.status_code", 200)
		a.PutStr("url.path", fmt.Sprintf("/api/v1/users/%d", i))
		a.PutStr("url.scheme", "https")
		a.PutStr("server.address", "checkout.shop.svc.cluster.local")
		a.PutStr("net.peer.ip", fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		a.PutStr("user.email", fmt.Sprintf("user%d@example.com", i))
		a.PutInt("user.id", int64(i))
		a.PutStr("user_agent.original", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36")
	}
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		panic(err)
	}
	return b
}

func benchMetrics(n int) []byte {
	md := pmetric.NewMetrics()
	var ms pmetric.MetricSlice
	for i := 0; i < n; i += 10 {
		if i%100 == 0 {
			rm := md.ResourceMetrics().AppendEmpty()
			fillResource(rm.Resource(), i)
			ms = rm.ScopeMetrics().AppendEmpty().Metrics()
		}
		m := ms.AppendEmpty()
		m.SetName(fmt.Sprintf("http.server.metric.%d", i))
		m.SetUnit("s")
		m.SetDescription("Duration of HTTP server requests")
		attrs := func(a pcommon.Map, k int) {
			a.PutStr("http.route", routes[k%len(routes)])
			a.PutStr("http.request.method", "GET")
			a.PutInt("http.response.status_code", 200)
		}
		switch (i / 10) % 3 {
		case 0:
			g := m.SetEmptyGauge()
			for k := range 10 {
				dp := g.DataPoints().AppendEmpty()
				dp.SetTimestamp(1234567890)
				dp.SetDoubleValue(float64(k) * 1.5)
				attrs(dp.Attributes(), k)
			}
		case 1:
			s := m.SetEmptySum()
			s.SetIsMonotonic(true)
			s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			for k := range 10 {
				dp := s.DataPoints().AppendEmpty()
				dp.SetStartTimestamp(1234567000)
				dp.SetTimestamp(1234567890)
				dp.SetIntValue(int64(k * 1000))
				attrs(dp.Attributes(), k)
			}
		default:
			h := m.SetEmptyHistogram()
			h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
			for k := range 10 {
				dp := h.DataPoints().AppendEmpty()
				dp.SetStartTimestamp(1234567000)
				dp.SetTimestamp(1234567890)
				dp.ExplicitBounds().FromRaw([]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5})
				dp.BucketCounts().FromRaw([]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, uint64(k)})
				dp.SetCount(uint64(45 + k))
				dp.SetSum(3.5)
				attrs(dp.Attributes(), k)
			}
		}
	}
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		panic(err)
	}
	return b
}

func benchLogs(n int) []byte {
	ld := plog.NewLogs()
	var lrs plog.LogRecordSlice
	for i := range n {
		if i%100 == 0 {
			rl := ld.ResourceLogs().AppendEmpty()
			fillResource(rl.Resource(), i)
			sl := rl.ScopeLogs().AppendEmpty()
			sl.Scope().SetName("checkout/logger")
			lrs = sl.LogRecords()
		}
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(1234567890)
		lr.SetObservedTimestamp(1234567890)
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		lr.SetSeverityText("INFO")
		lr.Body().SetStr(fmt.Sprintf("GET %s completed status=200 duration_ms=%d user_id=%d request_id=%016x", routes[i%len(routes)], i%250, i*7, i*7919))
		lr.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, byte(i >> 8), byte(i)})
		lr.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, byte(i >> 8), byte(i)})
		a := lr.Attributes()
		a.PutStr("http.route", routes[i%len(routes)])
		a.PutStr("http.request.method", "GET")
		a.PutInt("http.response.status_code", 200)
		a.PutStr("code.function.name", "checkout.(*Handler).ServeHTTP")
		a.PutStr("thread.name", fmt.Sprintf("worker-%d", i%16))
	}
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		panic(err)
	}
	return b
}

// smallLogs is bench/'s "small" logs payload: one resource attribute, a
// short body and one attribute a record.
func smallLogs(n int) []byte {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "telemetrygen")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for range n {
		lr := lrs.AppendEmpty()
		lr.SetTimestamp(1234567890)
		lr.SetSeverityNumber(plog.SeverityNumberInfo)
		lr.SetSeverityText("Info")
		lr.Body().SetStr("the message")
		lr.Attributes().PutStr("app", "server")
	}
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkDecode compares pdata's decoder with this package's on one
// request of 500 items of each signal.
func BenchmarkDecode(b *testing.B) {
	cases := []struct {
		signal string
		buf    []byte
		pdata  func([]byte) error
		fast   func(*decoder, []byte) error
	}{
		{"traces", benchTraces(500),
			func(in []byte) error { _, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(in); return err },
			func(d *decoder, in []byte) error { _, err := d.traces(in); return err }},
		{"metrics", benchMetrics(500),
			func(in []byte) error { _, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(in); return err },
			func(d *decoder, in []byte) error { _, err := d.metrics(in); return err }},
		{"logs", benchLogs(500),
			func(in []byte) error { _, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(in); return err },
			func(d *decoder, in []byte) error { _, err := d.logs(in); return err }},
		{"logs-small", smallLogs(500),
			func(in []byte) error { _, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(in); return err },
			func(d *decoder, in []byte) error { _, err := d.logs(in); return err }},
	}
	for _, c := range cases {
		b.Run(c.signal+"/pdata", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.buf)))
			for b.Loop() {
				if err := c.pdata(c.buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.signal+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.buf)))
			d := newDecoder()
			for b.Loop() {
				if err := c.fast(d, c.buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// oneAttr* are bench/'s "oneattr" payloads: one resource attribute, items
// with one attribute each (key=value); metrics as one Sum of all points.
func oneAttrTraces(n int) []byte {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "oneattr")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("oneattr")
	for j := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID([16]byte{1, byte(j), byte(j >> 8), byte(j >> 16)})
		sp.SetSpanID([8]byte{2, byte(j), byte(j >> 8), byte(j >> 16)})
		sp.SetName("span")
		sp.SetKind(ptrace.SpanKindServer)
		sp.SetStartTimestamp(1234567890)
		sp.SetEndTimestamp(1234568890)
		sp.Attributes().PutStr("key", "value")
	}
	b, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		panic(err)
	}
	return b
}

func oneAttrMetrics(n int) []byte {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "oneattr")
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("oneattr")
	m := sm.Metrics().AppendEmpty()
	m.SetName("requests")
	s := m.SetEmptySum()
	s.SetIsMonotonic(true)
	s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	for j := range n {
		dp := s.DataPoints().AppendEmpty()
		dp.SetStartTimestamp(1234566890)
		dp.SetTimestamp(1234567890)
		dp.SetIntValue(int64(j))
		dp.Attributes().PutStr("key", "value")
	}
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		panic(err)
	}
	return b
}

func oneAttrLogs(n int) []byte {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "oneattr")
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("oneattr")
	for range n {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(1234567890)
		lr.Body().SetStr("hello world")
		lr.Attributes().PutStr("key", "value")
	}
	b, err := (&plog.ProtoMarshaler{}).MarshalLogs(ld)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkDecodeSmall is BenchmarkDecode on requests of 500 small items
// (bench/'s "oneattr" payload and the "small" logs).
func BenchmarkDecodeSmall(b *testing.B) {
	cases := []struct {
		signal string
		buf    []byte
		pdata  func([]byte) error
		fast   func(*decoder, []byte) error
	}{
		{"traces-oneattr", oneAttrTraces(500),
			func(in []byte) error { _, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(in); return err },
			func(d *decoder, in []byte) error { _, err := d.traces(in); return err }},
		{"metrics-oneattr", oneAttrMetrics(500),
			func(in []byte) error { _, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(in); return err },
			func(d *decoder, in []byte) error { _, err := d.metrics(in); return err }},
		{"logs-oneattr", oneAttrLogs(500),
			func(in []byte) error { _, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(in); return err },
			func(d *decoder, in []byte) error { _, err := d.logs(in); return err }},
		{"metrics-small", smallMetrics(500),
			func(in []byte) error { _, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(in); return err },
			func(d *decoder, in []byte) error { _, err := d.metrics(in); return err }},
		{"logs-small", smallLogs(500),
			func(in []byte) error { _, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(in); return err },
			func(d *decoder, in []byte) error { _, err := d.logs(in); return err }},
	}
	for _, c := range cases {
		b.Run(c.signal+"/pdata", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.buf)))
			for b.Loop() {
				if err := c.pdata(c.buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.signal+"/fast", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.buf)))
			d := newDecoder()
			for b.Loop() {
				if err := c.fast(d, c.buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// smallMetrics is bench/'s "small" metrics payload: gauges of ten double
// points, each with one int attribute.
func smallMetrics(n int) []byte {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "telemetrygen")
	sm := rm.ScopeMetrics().AppendEmpty()
	var g pmetric.Gauge
	for j := range n {
		if j%10 == 0 {
			m := sm.Metrics().AppendEmpty()
			m.SetName(fmt.Sprintf("gen.%d", j/10))
			g = m.SetEmptyGauge()
		}
		dp := g.DataPoints().AppendEmpty()
		dp.SetTimestamp(1234567890)
		dp.SetDoubleValue(float64(j))
		dp.Attributes().PutInt("index", int64(j%10))
	}
	b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkDecodeJSON decodes 500-item OTLP/JSON requests (pdata's JSON
// encoding of BenchmarkDecode's) with pdata's JSON decoder and with a
// JSONUnmarshaler's fast path: transcoding, then the fast decoder.
func BenchmarkDecodeJSON(b *testing.B) {
	for i, s := range jsonSignals {
		in := [][]byte{benchTraces(500), benchMetrics(500), benchLogs(500)}[i]
		js, err := s.toJSON(in)
		if err != nil {
			b.Fatal(err)
		}
		for _, fast := range []bool{false, true} {
			name := s.name + "/pdata"
			if fast {
				name = s.name + "/fast"
			}
			b.Run(name, func(b *testing.B) {
				u := NewJSONUnmarshaler(fast)
				b.ReportAllocs()
				b.SetBytes(int64(len(js)))
				for b.Loop() {
					var err error
					switch s.name {
					case "traces":
						_, err = u.UnmarshalTraces(js)
					case "metrics":
						_, err = u.UnmarshalMetrics(js)
					default:
						_, err = u.UnmarshalLogs(js)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if fast && u.StatsOf(s.name).Pdata.Load() != 0 {
					b.Fatal("left to pdata")
				}
			})
		}
	}
}
