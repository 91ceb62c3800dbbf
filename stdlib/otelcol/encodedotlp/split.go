package encodedotlp

import (
	"fmt"

	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pipeline"
)

// batch is a decoded request being cut into pieces.
type batch interface {
	// items returns the spans, data points or log records left.
	items() int
	// extract moves up to n items from the front into a new batch, with
	// copies of the resources and scopes they belong to.
	extract(n int) batch
	// encode returns the encoding of the batch's export request.
	encode() ([]byte, error)
}

// decode returns the batch that r's payload encodes.
func decode(r *request) (batch, error) {
	switch r.signal {
	case pipeline.SignalTraces:
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(r.bytes())
		return traces{td}, err
	case pipeline.SignalMetrics:
		md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(r.bytes())
		return metrics{md}, err
	case pipeline.SignalLogs:
		ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(r.bytes())
		return logs{ld}, err
	}
	return nil, fmt.Errorf("encoded OTLP requests of %v are not supported", r.signal)
}

// split cuts r into requests of at most maxSize items, or bytes, in
// order, every one but the last full. In bytes, a piece is cut by an
// estimate of the items that fit and halved until it fits; a single item
// larger than maxSize is a request of its own rather than lost.
func split(r *request, maxSize int, szt exporterhelper.RequestSizerType) ([]*request, error) {
	b, err := decode(r)
	if err != nil {
		return nil, fmt.Errorf("decoding an encoded %v request to split it: %w", r.signal, err)
	}
	var out []*request
	emit := func(p batch) error {
		payload, err := p.encode()
		if err != nil {
			return err
		}
		out = append(out, newRequest(r.signal, payload, p.items()))
		return nil
	}
	if szt == exporterhelper.RequestSizerTypeItems {
		for b.items() > maxSize {
			if err := emit(b.extract(maxSize)); err != nil {
				return nil, err
			}
		}
		if b.items() > 0 {
			if err := emit(b); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	// Bytes: start from the items an average item's size lets fit.
	per := max(1, maxSize*r.items/max(1, r.nbytes))
	var fit func(p batch) error
	fit = func(p batch) error {
		payload, err := p.encode()
		if err != nil {
			return err
		}
		if len(payload) <= maxSize || p.items() <= 1 {
			out = append(out, newRequest(r.signal, payload, p.items()))
			return nil
		}
		half := p.extract(p.items() / 2)
		if err := fit(half); err != nil {
			return err
		}
		return fit(p)
	}
	for b.items() > 0 {
		if err := fit(b.extract(per)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// moveFront moves up to n elements from the front of a pdata slice (by
// its RemoveIf) to the end of another (by its AppendEmpty) and returns
// how many it moved.
func moveFront[E interface{ MoveTo(E) }](n int, removeIf func(func(E) bool), appendEmpty func() E) int {
	moved := 0
	removeIf(func(e E) bool {
		if moved == n {
			return false
		}
		e.MoveTo(appendEmpty())
		moved++
		return true
	})
	return moved
}

type traces struct{ td ptrace.Traces }

func (t traces) items() int { return t.td.SpanCount() }

func (t traces) encode() ([]byte, error) { return (&ptrace.ProtoMarshaler{}).MarshalTraces(t.td) }

func (t traces) extract(n int) batch {
	dst := ptrace.NewTraces()
	left := n
	t.td.ResourceSpans().RemoveIf(func(rs ptrace.ResourceSpans) bool {
		if left == 0 {
			return false
		}
		count := 0
		for _, ss := range rs.ScopeSpans().All() {
			count += ss.Spans().Len()
		}
		if count <= left {
			left -= count
			rs.MoveTo(dst.ResourceSpans().AppendEmpty())
			return true
		}
		drs := dst.ResourceSpans().AppendEmpty()
		rs.Resource().CopyTo(drs.Resource())
		drs.SetSchemaUrl(rs.SchemaUrl())
		rs.ScopeSpans().RemoveIf(func(ss ptrace.ScopeSpans) bool {
			if left == 0 {
				return false
			}
			if ss.Spans().Len() <= left {
				left -= ss.Spans().Len()
				ss.MoveTo(drs.ScopeSpans().AppendEmpty())
				return true
			}
			dss := drs.ScopeSpans().AppendEmpty()
			ss.Scope().CopyTo(dss.Scope())
			dss.SetSchemaUrl(ss.SchemaUrl())
			left -= moveFront(left, ss.Spans().RemoveIf, dss.Spans().AppendEmpty)
			return false
		})
		return false
	})
	return traces{dst}
}

type logs struct{ ld plog.Logs }

func (l logs) items() int { return l.ld.LogRecordCount() }

func (l logs) encode() ([]byte, error) { return (&plog.ProtoMarshaler{}).MarshalLogs(l.ld) }

func (l logs) extract(n int) batch {
	dst := plog.NewLogs()
	left := n
	l.ld.ResourceLogs().RemoveIf(func(rl plog.ResourceLogs) bool {
		if left == 0 {
			return false
		}
		count := 0
		for _, sl := range rl.ScopeLogs().All() {
			count += sl.LogRecords().Len()
		}
		if count <= left {
			left -= count
			rl.MoveTo(dst.ResourceLogs().AppendEmpty())
			return true
		}
		drl := dst.ResourceLogs().AppendEmpty()
		rl.Resource().CopyTo(drl.Resource())
		drl.SetSchemaUrl(rl.SchemaUrl())
		rl.ScopeLogs().RemoveIf(func(sl plog.ScopeLogs) bool {
			if left == 0 {
				return false
			}
			if sl.LogRecords().Len() <= left {
				left -= sl.LogRecords().Len()
				sl.MoveTo(drl.ScopeLogs().AppendEmpty())
				return true
			}
			dsl := drl.ScopeLogs().AppendEmpty()
			sl.Scope().CopyTo(dsl.Scope())
			dsl.SetSchemaUrl(sl.SchemaUrl())
			left -= moveFront(left, sl.LogRecords().RemoveIf, dsl.LogRecords().AppendEmpty)
			return false
		})
		return false
	})
	return logs{dst}
}

type metrics struct{ md pmetric.Metrics }

func (m metrics) items() int { return m.md.DataPointCount() }

func (m metrics) encode() ([]byte, error) { return (&pmetric.ProtoMarshaler{}).MarshalMetrics(m.md) }

func (m metrics) extract(n int) batch {
	dst := pmetric.NewMetrics()
	left := n
	m.md.ResourceMetrics().RemoveIf(func(rm pmetric.ResourceMetrics) bool {
		if left == 0 {
			return false
		}
		count := 0
		for _, sm := range rm.ScopeMetrics().All() {
			count += scopeDataPoints(sm)
		}
		if count <= left {
			left -= count
			rm.MoveTo(dst.ResourceMetrics().AppendEmpty())
			return true
		}
		drm := dst.ResourceMetrics().AppendEmpty()
		rm.Resource().CopyTo(drm.Resource())
		drm.SetSchemaUrl(rm.SchemaUrl())
		rm.ScopeMetrics().RemoveIf(func(sm pmetric.ScopeMetrics) bool {
			if left == 0 {
				return false
			}
			if c := scopeDataPoints(sm); c <= left {
				left -= c
				sm.MoveTo(drm.ScopeMetrics().AppendEmpty())
				return true
			}
			dsm := drm.ScopeMetrics().AppendEmpty()
			sm.Scope().CopyTo(dsm.Scope())
			dsm.SetSchemaUrl(sm.SchemaUrl())
			sm.Metrics().RemoveIf(func(mt pmetric.Metric) bool {
				if left == 0 {
					return false
				}
				if c := dataPoints(mt); c <= left {
					left -= c
					mt.MoveTo(dsm.Metrics().AppendEmpty())
					return true
				}
				left -= moveDataPoints(mt, dsm.Metrics().AppendEmpty(), left)
				return false
			})
			return false
		})
		return false
	})
	return metrics{dst}
}

func scopeDataPoints(sm pmetric.ScopeMetrics) int {
	n := 0
	for _, mt := range sm.Metrics().All() {
		n += dataPoints(mt)
	}
	return n
}

func dataPoints(mt pmetric.Metric) int {
	switch mt.Type() {
	case pmetric.MetricTypeGauge:
		return mt.Gauge().DataPoints().Len()
	case pmetric.MetricTypeSum:
		return mt.Sum().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		return mt.Histogram().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		return mt.ExponentialHistogram().DataPoints().Len()
	case pmetric.MetricTypeSummary:
		return mt.Summary().DataPoints().Len()
	}
	return 0
}

// moveDataPoints makes dst a copy of src without data points and moves
// the first n of src's data points into it; it returns how many it moved.
func moveDataPoints(src, dst pmetric.Metric, n int) int {
	dst.SetName(src.Name())
	dst.SetDescription(src.Description())
	dst.SetUnit(src.Unit())
	src.Metadata().CopyTo(dst.Metadata())
	switch src.Type() {
	case pmetric.MetricTypeGauge:
		g := dst.SetEmptyGauge()
		return moveFront(n, src.Gauge().DataPoints().RemoveIf, g.DataPoints().AppendEmpty)
	case pmetric.MetricTypeSum:
		s := dst.SetEmptySum()
		s.SetAggregationTemporality(src.Sum().AggregationTemporality())
		s.SetIsMonotonic(src.Sum().IsMonotonic())
		return moveFront(n, src.Sum().DataPoints().RemoveIf, s.DataPoints().AppendEmpty)
	case pmetric.MetricTypeHistogram:
		h := dst.SetEmptyHistogram()
		h.SetAggregationTemporality(src.Histogram().AggregationTemporality())
		return moveFront(n, src.Histogram().DataPoints().RemoveIf, h.DataPoints().AppendEmpty)
	case pmetric.MetricTypeExponentialHistogram:
		h := dst.SetEmptyExponentialHistogram()
		h.SetAggregationTemporality(src.ExponentialHistogram().AggregationTemporality())
		return moveFront(n, src.ExponentialHistogram().DataPoints().RemoveIf, h.DataPoints().AppendEmpty)
	case pmetric.MetricTypeSummary:
		s := dst.SetEmptySummary()
		return moveFront(n, src.Summary().DataPoints().RemoveIf, s.DataPoints().AppendEmpty)
	}
	return 0
}
