package pdatalua

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Extract moves the records of data (a ptrace.Traces, pmetric.Metrics or
// plog.Logs: spans, log records, metric data points) whose attribute key
// equals value (the record's own attribute, else its resource's; compared
// as strings, pcommon.Value.AsString) out of data into a new batch of the
// same signal, which it returns with the number of records moved. Records
// move, they are not copied; their resource, scope (and metric) are
// copied. It returns nil, 0 when nothing matches or data is no batch.
func Extract(data any, key, value string) (any, int) {
	match := func(res, rec pcommon.Map) bool {
		a, ok := rec.Get(key)
		if !ok {
			a, ok = res.Get(key)
		}
		return ok && a.AsString() == value
	}
	var out any
	var n int
	switch d := data.(type) {
	case ptrace.Traces:
		out, n = extractTraces(d, match)
	case plog.Logs:
		out, n = extractLogs(d, match)
	case pmetric.Metrics:
		out, n = extractMetrics(d, match)
	}
	if n == 0 {
		return nil, 0
	}
	return out, n
}

// matcher selects a record by the attributes of its resource and its own.
type matcher func(res, rec pcommon.Map) bool

// extractTraces moves the matching spans of td into a new batch.
func extractTraces(td ptrace.Traces, match matcher) (ptrace.Traces, int) {
	out := ptrace.NewTraces()
	n := 0
	td.ResourceSpans().RemoveIf(func(rs ptrace.ResourceSpans) bool {
		res := rs.Resource().Attributes()
		var ors ptrace.ResourceSpans
		moved := false
		rs.ScopeSpans().RemoveIf(func(ss ptrace.ScopeSpans) bool {
			var oss ptrace.ScopeSpans
			scopeMoved := false
			ss.Spans().RemoveIf(func(sp ptrace.Span) bool {
				if !match(res, sp.Attributes()) {
					return false
				}
				if !moved {
					ors = out.ResourceSpans().AppendEmpty()
					rs.Resource().CopyTo(ors.Resource())
					ors.SetSchemaUrl(rs.SchemaUrl())
					moved = true
				}
				if !scopeMoved {
					oss = ors.ScopeSpans().AppendEmpty()
					ss.Scope().CopyTo(oss.Scope())
					oss.SetSchemaUrl(ss.SchemaUrl())
					scopeMoved = true
				}
				sp.MoveTo(oss.Spans().AppendEmpty())
				n++
				return true
			})
			return scopeMoved && ss.Spans().Len() == 0
		})
		return moved && rs.ScopeSpans().Len() == 0
	})
	return out, n
}

// extractLogs moves the matching log records of ld into a new batch.
func extractLogs(ld plog.Logs, match matcher) (plog.Logs, int) {
	out := plog.NewLogs()
	n := 0
	ld.ResourceLogs().RemoveIf(func(rl plog.ResourceLogs) bool {
		res := rl.Resource().Attributes()
		var orl plog.ResourceLogs
		moved := false
		rl.ScopeLogs().RemoveIf(func(sl plog.ScopeLogs) bool {
			var osl plog.ScopeLogs
			scopeMoved := false
			sl.LogRecords().RemoveIf(func(rec plog.LogRecord) bool {
				if !match(res, rec.Attributes()) {
					return false
				}
				if !moved {
					orl = out.ResourceLogs().AppendEmpty()
					rl.Resource().CopyTo(orl.Resource())
					orl.SetSchemaUrl(rl.SchemaUrl())
					moved = true
				}
				if !scopeMoved {
					osl = orl.ScopeLogs().AppendEmpty()
					sl.Scope().CopyTo(osl.Scope())
					osl.SetSchemaUrl(sl.SchemaUrl())
					scopeMoved = true
				}
				rec.MoveTo(osl.LogRecords().AppendEmpty())
				n++
				return true
			})
			return scopeMoved && sl.LogRecords().Len() == 0
		})
		return moved && rl.ScopeLogs().Len() == 0
	})
	return out, n
}

// extractMetrics moves the matching data points of md into a new batch,
// under copies of their metric's name, description, unit and type.
func extractMetrics(md pmetric.Metrics, match matcher) (pmetric.Metrics, int) {
	out := pmetric.NewMetrics()
	n := 0
	md.ResourceMetrics().RemoveIf(func(rm pmetric.ResourceMetrics) bool {
		res := rm.Resource().Attributes()
		var orm pmetric.ResourceMetrics
		moved := false
		rm.ScopeMetrics().RemoveIf(func(sm pmetric.ScopeMetrics) bool {
			var osm pmetric.ScopeMetrics
			scopeMoved := false
			sm.Metrics().RemoveIf(func(m pmetric.Metric) bool {
				var om pmetric.Metric
				metricMoved := false
				target := func() pmetric.Metric {
					if !moved {
						orm = out.ResourceMetrics().AppendEmpty()
						rm.Resource().CopyTo(orm.Resource())
						orm.SetSchemaUrl(rm.SchemaUrl())
						moved = true
					}
					if !scopeMoved {
						osm = orm.ScopeMetrics().AppendEmpty()
						sm.Scope().CopyTo(osm.Scope())
						osm.SetSchemaUrl(sm.SchemaUrl())
						scopeMoved = true
					}
					if !metricMoved {
						om = osm.Metrics().AppendEmpty()
						copyMetricHeader(m, om)
						metricMoved = true
					}
					return om
				}
				k := 0
				switch m.Type() {
				case pmetric.MetricTypeGauge:
					k = movePoints(m.Gauge().DataPoints(), func() pmetric.NumberDataPointSlice { return target().Gauge().DataPoints() }, res, match)
				case pmetric.MetricTypeSum:
					k = movePoints(m.Sum().DataPoints(), func() pmetric.NumberDataPointSlice { return target().Sum().DataPoints() }, res, match)
				case pmetric.MetricTypeHistogram:
					k = movePoints(m.Histogram().DataPoints(), func() pmetric.HistogramDataPointSlice { return target().Histogram().DataPoints() }, res, match)
				case pmetric.MetricTypeExponentialHistogram:
					k = movePoints(m.ExponentialHistogram().DataPoints(), func() pmetric.ExponentialHistogramDataPointSlice {
						return target().ExponentialHistogram().DataPoints()
					}, res, match)
				case pmetric.MetricTypeSummary:
					k = movePoints(m.Summary().DataPoints(), func() pmetric.SummaryDataPointSlice { return target().Summary().DataPoints() }, res, match)
				}
				n += k
				return k > 0 && dataPointCount(m) == 0
			})
			return scopeMoved && sm.Metrics().Len() == 0
		})
		return moved && rm.ScopeMetrics().Len() == 0
	})
	return out, n
}

// pointSlice and dataPoint are what movePoints needs of the data point
// slices and data points of pmetric.
type pointSlice[D any] interface {
	RemoveIf(func(D) bool)
	AppendEmpty() D
}

type dataPoint[D any] interface {
	Attributes() pcommon.Map
	MoveTo(D)
}

// movePoints moves the matching points of src to the slice dst returns
// (created on the first match) and returns how many moved.
func movePoints[S pointSlice[D], D dataPoint[D]](src S, dst func() S, res pcommon.Map, match matcher) int {
	n := 0
	var to S
	src.RemoveIf(func(dp D) bool {
		if !match(res, dp.Attributes()) {
			return false
		}
		if n == 0 {
			to = dst()
		}
		dp.MoveTo(to.AppendEmpty())
		n++
		return true
	})
	return n
}

// copyMetricHeader copies a metric's name, description, unit, metadata
// and type (with a sum's temporality and monotonicity, a histogram's
// temporality) to an empty metric.
func copyMetricHeader(from, to pmetric.Metric) {
	to.SetName(from.Name())
	to.SetDescription(from.Description())
	to.SetUnit(from.Unit())
	from.Metadata().CopyTo(to.Metadata())
	switch from.Type() {
	case pmetric.MetricTypeGauge:
		to.SetEmptyGauge()
	case pmetric.MetricTypeSum:
		s := to.SetEmptySum()
		s.SetAggregationTemporality(from.Sum().AggregationTemporality())
		s.SetIsMonotonic(from.Sum().IsMonotonic())
	case pmetric.MetricTypeHistogram:
		to.SetEmptyHistogram().SetAggregationTemporality(from.Histogram().AggregationTemporality())
	case pmetric.MetricTypeExponentialHistogram:
		to.SetEmptyExponentialHistogram().SetAggregationTemporality(from.ExponentialHistogram().AggregationTemporality())
	case pmetric.MetricTypeSummary:
		to.SetEmptySummary()
	}
}

// dataPointCount counts a metric's data points.
func dataPointCount(m pmetric.Metric) int {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len()
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len()
	case pmetric.MetricTypeHistogram:
		return m.Histogram().DataPoints().Len()
	case pmetric.MetricTypeExponentialHistogram:
		return m.ExponentialHistogram().DataPoints().Len()
	case pmetric.MetricTypeSummary:
		return m.Summary().DataPoints().Len()
	}
	return 0
}
