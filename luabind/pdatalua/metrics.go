package pdatalua

import (
	"strconv"

	"github.com/flowlua/flowlua/engine/component/dataplane"

	lua "github.com/yuin/gopher-lua"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// metricHandle is a metric. One handle serves a whole loop: the iterator, or
// the index access, moves it from metric to metric.
type metricHandle struct {
	handle
	cursor
	ri, si  int
	metrics pmetric.MetricSlice
	metric  pmetric.Metric
	// The handles metric:point(i), metric:resource() and metric:scope()
	// return, made on first use.
	atPoint, atResource, atScope *lua.LUserData
}

func (h *metricHandle) load(i int) { h.metric = h.metrics.At(i) }

func (h *metricHandle) rewind() {
	rewindCursor(&h.cursor)
	h.ri, h.si = 0, -1
}

func (h *metricHandle) nextContainer() bool {
	rms := h.b.metrics.ResourceMetrics()
	for ; h.ri < rms.Len(); h.ri, h.si = h.ri+1, -1 {
		sms := rms.At(h.ri).ScopeMetrics()
		for h.si+1 < sms.Len() {
			h.si++
			if metrics := sms.At(h.si).Metrics(); metrics.Len() > 0 {
				h.metrics, h.n, h.i = metrics, metrics.Len(), 0
				h.metric = metrics.At(0)
				return true
			}
		}
	}
	return false
}

// newFlatMetrics returns an unpositioned handle that walks every metric of
// the batch.
func (b *Batch) newFlatMetrics() (*metricHandle, *lua.LUserData) {
	h := &metricHandle{handle: b.handle(), cursor: cursor{flat: true}}
	h.rewind()
	h.gen = 0
	return h, newUD(h, b.bd.metric)
}

// newScopeMetrics returns an unpositioned handle that walks the metrics of
// one scope.
func (s *scopeHandle) newScopeMetrics() (*metricHandle, *lua.LUserData) {
	h := &metricHandle{handle: s.b.handle(), ri: s.ri, si: s.si, metrics: s.metrics}
	h.i, h.n = -1, s.metrics.Len()
	h.gen = 0
	return h, newUD(h, s.b.bd.metric)
}

// metricsNext is the step of the metric iterators, the step inside a scope
// written out.
func metricsNext(L *lua.LState) int {
	self := L.Get(1)
	if ud, ok := self.(*lua.LUserData); ok {
		if h, ok := ud.Value.(*metricHandle); ok && h.born == h.b.gen {
			if h.i+1 < h.n {
				h.i++
				h.pos++
				h.metric = h.metrics.At(h.i)
				h.gen = h.born
			} else if !advance(h) {
				return 0
			}
			L.Push(self)
			return 1
		}
	}
	checkIter[*metricHandle](L, "metric")
	return 0
}

// pointHandle is a data point of a metric of any type; the slice and point
// of the metric's type are set.
type pointHandle struct {
	handle
	cursor
	ri, si, mi int
	typ        pmetric.MetricType
	nums       pmetric.NumberDataPointSlice
	hists      pmetric.HistogramDataPointSlice
	exps       pmetric.ExponentialHistogramDataPointSlice
	sums       pmetric.SummaryDataPointSlice
	num        pmetric.NumberDataPoint
	hist       pmetric.HistogramDataPoint
	exp        pmetric.ExponentialHistogramDataPoint
	sum        pmetric.SummaryDataPoint
	// atMetric is the handle point:metric() returns, made on first use.
	atMetric *lua.LUserData
}

// enter makes m the container of h and returns its number of points.
func (h *pointHandle) enter(m pmetric.Metric) int {
	h.typ = m.Type()
	switch h.typ {
	case pmetric.MetricTypeGauge:
		h.nums = m.Gauge().DataPoints()
		return h.nums.Len()
	case pmetric.MetricTypeSum:
		h.nums = m.Sum().DataPoints()
		return h.nums.Len()
	case pmetric.MetricTypeHistogram:
		h.hists = m.Histogram().DataPoints()
		return h.hists.Len()
	case pmetric.MetricTypeExponentialHistogram:
		h.exps = m.ExponentialHistogram().DataPoints()
		return h.exps.Len()
	case pmetric.MetricTypeSummary:
		h.sums = m.Summary().DataPoints()
		return h.sums.Len()
	}
	return 0
}

func (h *pointHandle) load(i int) {
	switch h.typ {
	case pmetric.MetricTypeGauge, pmetric.MetricTypeSum:
		h.num = h.nums.At(i)
	case pmetric.MetricTypeHistogram:
		h.hist = h.hists.At(i)
	case pmetric.MetricTypeExponentialHistogram:
		h.exp = h.exps.At(i)
	case pmetric.MetricTypeSummary:
		h.sum = h.sums.At(i)
	}
}

func (h *pointHandle) attributes() pcommon.Map {
	switch h.typ {
	case pmetric.MetricTypeHistogram:
		return h.hist.Attributes()
	case pmetric.MetricTypeExponentialHistogram:
		return h.exp.Attributes()
	case pmetric.MetricTypeSummary:
		return h.sum.Attributes()
	}
	return h.num.Attributes()
}

func (h *pointHandle) rewind() {
	rewindCursor(&h.cursor)
	h.ri, h.si, h.mi = 0, 0, -1
}

func (h *pointHandle) nextContainer() bool {
	rms := h.b.metrics.ResourceMetrics()
	for h.ri < rms.Len() {
		sms := rms.At(h.ri).ScopeMetrics()
		for h.si < sms.Len() {
			ms := sms.At(h.si).Metrics()
			for h.mi+1 < ms.Len() {
				h.mi++
				if n := h.enter(ms.At(h.mi)); n > 0 {
					h.n, h.i = n, 0
					h.load(0)
					return true
				}
			}
			h.si, h.mi = h.si+1, -1
		}
		h.ri, h.si, h.mi = h.ri+1, 0, -1
	}
	return false
}

// newFlatPoints returns an unpositioned handle that walks every data point of
// the batch.
func (b *Batch) newFlatPoints() (*pointHandle, *lua.LUserData) {
	h := &pointHandle{handle: b.handle(), cursor: cursor{flat: true}}
	h.rewind()
	h.gen = 0
	return h, newUD(h, b.bd.point)
}

// newMetricPoints returns an unpositioned handle that walks the points of
// the metric m is at.
func (m *metricHandle) newMetricPoints() (*pointHandle, *lua.LUserData) {
	h := &pointHandle{handle: m.b.handle(), ri: m.ri, si: m.si, mi: m.i}
	h.i, h.n = -1, h.enter(m.metric)
	h.gen = 0
	return h, newUD(h, m.b.bd.point)
}

func pointAttrs(L *lua.LState) (*handle, pcommon.Map) {
	h := checkPoint(L)
	return &h.handle, h.attributes()
}

// pointsNext is the step of the point iterators, the step inside a metric
// written out.
func pointsNext(L *lua.LState) int {
	self := L.Get(1)
	if ud, ok := self.(*lua.LUserData); ok {
		if h, ok := ud.Value.(*pointHandle); ok && h.born == h.b.gen {
			if h.i+1 < h.n {
				h.i++
				h.pos++
				h.load(h.i)
				h.gen = h.born
			} else if !advance(h) {
				return 0
			}
			L.Push(self)
			return 1
		}
	}
	checkIter[*pointHandle](L, "point")
	return 0
}

// pointCount is the number of data points of m.
func pointCount(m pmetric.Metric) int {
	var h pointHandle
	return h.enter(m)
}

var metricBatchMethods = map[string]lua.LGFunction{
	"metric_count": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		L.Push(lua.LNumber(b.metrics.MetricCount()))
		return 1
	},
	"point_count": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		L.Push(lua.LNumber(b.metrics.DataPointCount()))
		return 1
	},
	// metric(i) is the i-th metric of the whole batch; in increasing order
	// of i it costs O(1) per call.
	"metric": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		i := L.CheckInt(2) - 1
		if b.atLeaf == nil {
			_, b.atLeaf = b.newFlatMetrics()
		}
		if !seek(b.atLeaf.Value.(*metricHandle), i) {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(b.atLeaf)
		return 1
	},
	"metrics": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		_, ud := b.newFlatMetrics()
		return iterate(L, b.bd.metricsNext, ud)
	},
	"each_metric": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		fn := L.CheckFunction(2)
		h, ud := b.newFlatMetrics()
		return each(L, h, ud, fn)
	},
	// point(i) is the i-th data point of the whole batch; in increasing
	// order of i it costs O(1) per call.
	"point": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		i := L.CheckInt(2) - 1
		if b.atPoint == nil {
			_, b.atPoint = b.newFlatPoints()
		}
		if !seek(b.atPoint.Value.(*pointHandle), i) {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(b.atPoint)
		return 1
	},
	"points": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		_, ud := b.newFlatPoints()
		return iterate(L, b.bd.pointsNext, ud)
	},
	"each_point": func(L *lua.LState) int {
		b := checkBatch(L, dataplane.Metrics)
		fn := L.CheckFunction(2)
		h, ud := b.newFlatPoints()
		return each(L, h, ud, fn)
	},
}

var metricScopeMethods = map[string]lua.LGFunction{
	"metric_count": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Metrics)
		L.Push(lua.LNumber(s.metrics.Len()))
		return 1
	},
	"metric": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Metrics)
		i, ok := checkIndex(L, 2, s.metrics.Len())
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		if s.atLeaf == nil {
			_, s.atLeaf = s.newScopeMetrics()
		}
		h := s.atLeaf.Value.(*metricHandle)
		h.ri, h.si, h.metrics, h.n, h.i = s.ri, s.si, s.metrics, s.metrics.Len(), i
		h.load(i)
		h.gen = h.born
		L.Push(s.atLeaf)
		return 1
	},
	"metrics": func(L *lua.LState) int {
		s := checkScopeOf(L, dataplane.Metrics)
		_, ud := s.newScopeMetrics()
		return iterate(L, s.b.bd.metricsNext, ud)
	},
}

// checkMetric returns the live metric that is argument 1, or raises an
// error.
func checkMetric(L *lua.LState) *metricHandle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*metricHandle); ok && h.gen == h.b.gen {
			return h
		}
	}
	return check[*metricHandle](L, "metric")
}

// checkMetricW is checkMetric for a method that writes.
func checkMetricW(L *lua.LState) *metricHandle {
	h := checkMetric(L)
	h.b.writable(L)
	return h
}

var metricTypes = [...]string{
	pmetric.MetricTypeEmpty:                "empty",
	pmetric.MetricTypeGauge:                "gauge",
	pmetric.MetricTypeSum:                  "sum",
	pmetric.MetricTypeHistogram:            "histogram",
	pmetric.MetricTypeExponentialHistogram: "exponential_histogram",
	pmetric.MetricTypeSummary:              "summary",
}

func metricTypeToLua(t pmetric.MetricType) lua.LValue {
	if int(t) < len(metricTypes) {
		return lua.LString(metricTypes[t])
	}
	return lua.LString("empty")
}

func temporalityToLua(t pmetric.AggregationTemporality) lua.LValue {
	switch t {
	case pmetric.AggregationTemporalityDelta:
		return lua.LString("delta")
	case pmetric.AggregationTemporalityCumulative:
		return lua.LString("cumulative")
	}
	return lua.LString("unspecified")
}

var metricMethods = map[string]lua.LGFunction{
	"name": func(L *lua.LState) int {
		L.Push(lua.LString(checkMetric(L).metric.Name()))
		return 1
	},
	"set_name": func(L *lua.LState) int {
		checkMetricW(L).metric.SetName(checkStr(L, 2))
		return 0
	},
	"type": func(L *lua.LState) int {
		L.Push(metricTypeToLua(checkMetric(L).metric.Type()))
		return 1
	},
	"unit": func(L *lua.LState) int {
		L.Push(lua.LString(checkMetric(L).metric.Unit()))
		return 1
	},
	"set_unit": func(L *lua.LState) int {
		checkMetricW(L).metric.SetUnit(checkStr(L, 2))
		return 0
	},
	"description": func(L *lua.LState) int {
		L.Push(lua.LString(checkMetric(L).metric.Description()))
		return 1
	},
	"set_description": func(L *lua.LState) int {
		checkMetricW(L).metric.SetDescription(checkStr(L, 2))
		return 0
	},
	// temporality is "delta", "cumulative" or "unspecified" for sums and
	// histograms, nil for gauges and summaries.
	"temporality": func(L *lua.LState) int {
		m := checkMetric(L).metric
		switch m.Type() {
		case pmetric.MetricTypeSum:
			L.Push(temporalityToLua(m.Sum().AggregationTemporality()))
		case pmetric.MetricTypeHistogram:
			L.Push(temporalityToLua(m.Histogram().AggregationTemporality()))
		case pmetric.MetricTypeExponentialHistogram:
			L.Push(temporalityToLua(m.ExponentialHistogram().AggregationTemporality()))
		default:
			L.Push(lua.LNil)
		}
		return 1
	},
	// is_monotonic is a boolean for sums, nil for other types.
	"is_monotonic": func(L *lua.LState) int {
		m := checkMetric(L).metric
		if m.Type() != pmetric.MetricTypeSum {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LBool(m.Sum().IsMonotonic()))
		return 1
	},
	"point_count": func(L *lua.LState) int {
		L.Push(lua.LNumber(pointCount(checkMetric(L).metric)))
		return 1
	},
	"point": func(L *lua.LState) int {
		m := checkMetric(L)
		if m.atPoint == nil {
			_, m.atPoint = m.newMetricPoints()
		}
		h := m.atPoint.Value.(*pointHandle)
		h.ri, h.si, h.mi = m.ri, m.si, m.i
		h.n = h.enter(m.metric)
		i, ok := checkIndex(L, 2, h.n)
		if !ok {
			L.Push(lua.LNil)
			return 1
		}
		h.i = i
		h.load(i)
		h.gen = h.born
		L.Push(m.atPoint)
		return 1
	},
	"points": func(L *lua.LState) int {
		m := checkMetric(L)
		_, ud := m.newMetricPoints()
		return iterate(L, m.b.bd.pointsNext, ud)
	},
	"resource": func(L *lua.LState) int {
		h := checkMetric(L)
		L.Push(h.b.moveResource(&h.atResource, h.ri))
		return 1
	},
	"scope": func(L *lua.LState) int {
		h := checkMetric(L)
		L.Push(h.b.moveScope(&h.atScope, h.ri, h.si))
		return 1
	},
	"drop": func(L *lua.LState) int {
		h := checkMetric(L)
		markDrop(L, &h.handle, itemsKey(h.ri, h.si), h.i)
		return 0
	},
	"dropped": func(L *lua.LState) int {
		h := checkMetric(L)
		L.Push(lua.LBool(h.b.drops.dropped(h.ri, h.si, -1, h.i)))
		return 1
	},
}

// checkPoint returns the live data point that is argument 1, or raises an
// error.
func checkPoint(L *lua.LState) *pointHandle {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if h, ok := ud.Value.(*pointHandle); ok && h.gen == h.b.gen {
			return h
		}
	}
	return check[*pointHandle](L, "point")
}

var pointMethods = map[string]lua.LGFunction{
	// value is the value of a gauge or sum point: a number (an int beyond
	// 2^53 as a string), nil if unset or for other types.
	"value": func(L *lua.LState) int {
		h := checkPoint(L)
		if h.typ != pmetric.MetricTypeGauge && h.typ != pmetric.MetricTypeSum {
			L.Push(lua.LNil)
			return 1
		}
		switch h.num.ValueType() {
		case pmetric.NumberDataPointValueTypeInt:
			L.Push(intToLua(h.num.IntValue()))
		case pmetric.NumberDataPointValueTypeDouble:
			L.Push(lua.LNumber(h.num.DoubleValue()))
		default:
			L.Push(lua.LNil)
		}
		return 1
	},
	// set_value keeps the type of the value: an int point takes an integral
	// number or a string of digits, a double point any number. A point
	// without a value becomes an int if the number is integral.
	"set_value": func(L *lua.LState) int {
		h := checkPoint(L)
		h.b.writable(L)
		if h.typ != pmetric.MetricTypeGauge && h.typ != pmetric.MetricTypeSum {
			L.RaiseError("set_value: a %s point has no value (only gauge and sum points have)", metricTypes[h.typ])
		}
		switch v := L.Get(2).(type) {
		case lua.LNumber:
			i, integral := exactInt(float64(v))
			switch h.num.ValueType() {
			case pmetric.NumberDataPointValueTypeDouble:
				h.num.SetDoubleValue(float64(v))
			case pmetric.NumberDataPointValueTypeInt:
				if !integral {
					L.ArgError(2, "the point's value is an int: integral number expected")
				}
				h.num.SetIntValue(i)
			default:
				if integral {
					h.num.SetIntValue(i)
				} else {
					h.num.SetDoubleValue(float64(v))
				}
			}
		case lua.LString:
			if h.num.ValueType() == pmetric.NumberDataPointValueTypeDouble {
				L.ArgError(2, "the point's value is a double: number expected")
			}
			i, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				L.ArgError(2, "int expected: "+err.Error())
			}
			h.num.SetIntValue(i)
		default:
			L.ArgError(2, "number expected, got "+v.Type().String())
		}
		return 0
	},
	// count is the count of a histogram, exponential histogram or summary
	// point, nil for other types.
	"count": func(L *lua.LState) int {
		h := checkPoint(L)
		switch h.typ {
		case pmetric.MetricTypeHistogram:
			L.Push(uintToLua(h.hist.Count()))
		case pmetric.MetricTypeExponentialHistogram:
			L.Push(uintToLua(h.exp.Count()))
		case pmetric.MetricTypeSummary:
			L.Push(uintToLua(h.sum.Count()))
		default:
			L.Push(lua.LNil)
		}
		return 1
	},
	// sum is the sum of a histogram, exponential histogram or summary point,
	// nil if unset or for other types.
	"sum": func(L *lua.LState) int {
		h := checkPoint(L)
		switch {
		case h.typ == pmetric.MetricTypeHistogram && h.hist.HasSum():
			L.Push(lua.LNumber(h.hist.Sum()))
		case h.typ == pmetric.MetricTypeExponentialHistogram && h.exp.HasSum():
			L.Push(lua.LNumber(h.exp.Sum()))
		case h.typ == pmetric.MetricTypeSummary:
			L.Push(lua.LNumber(h.sum.Sum()))
		default:
			L.Push(lua.LNil)
		}
		return 1
	},
	"time": func(L *lua.LState) int {
		h := checkPoint(L)
		switch h.typ {
		case pmetric.MetricTypeHistogram:
			L.Push(timeToLua(h.hist.Timestamp()))
		case pmetric.MetricTypeExponentialHistogram:
			L.Push(timeToLua(h.exp.Timestamp()))
		case pmetric.MetricTypeSummary:
			L.Push(timeToLua(h.sum.Timestamp()))
		default:
			L.Push(timeToLua(h.num.Timestamp()))
		}
		return 1
	},
	"start_time": func(L *lua.LState) int {
		h := checkPoint(L)
		switch h.typ {
		case pmetric.MetricTypeHistogram:
			L.Push(timeToLua(h.hist.StartTimestamp()))
		case pmetric.MetricTypeExponentialHistogram:
			L.Push(timeToLua(h.exp.StartTimestamp()))
		case pmetric.MetricTypeSummary:
			L.Push(timeToLua(h.sum.StartTimestamp()))
		default:
			L.Push(timeToLua(h.num.StartTimestamp()))
		}
		return 1
	},
	"metric": func(L *lua.LState) int {
		h := checkPoint(L)
		if h.atMetric == nil {
			_, h.atMetric = h.b.newFlatMetrics()
		}
		m := h.atMetric.Value.(*metricHandle)
		m.flat = false
		m.ri, m.si = h.ri, h.si
		m.metrics = h.b.metrics.ResourceMetrics().At(h.ri).ScopeMetrics().At(h.si).Metrics()
		m.n, m.i = m.metrics.Len(), h.mi
		m.load(h.mi)
		m.gen = m.born
		L.Push(h.atMetric)
		return 1
	},
	"drop": func(L *lua.LState) int {
		h := checkPoint(L)
		markDrop(L, &h.handle, pointsKey(h.ri, h.si, h.mi), h.i)
		return 0
	},
	"dropped": func(L *lua.LState) int {
		h := checkPoint(L)
		L.Push(lua.LBool(h.b.drops.dropped(h.ri, h.si, h.mi, h.i)))
		return 1
	},
}

// removePoints removes the marked points of m and reports whether it lost any.
func removePoints(m pmetric.Metric, marks bitset) bool {
	i := -1
	drop := func() bool { i++; return marks.has(i) }
	n := pointCount(m)
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		m.Gauge().DataPoints().RemoveIf(func(pmetric.NumberDataPoint) bool { return drop() })
	case pmetric.MetricTypeSum:
		m.Sum().DataPoints().RemoveIf(func(pmetric.NumberDataPoint) bool { return drop() })
	case pmetric.MetricTypeHistogram:
		m.Histogram().DataPoints().RemoveIf(func(pmetric.HistogramDataPoint) bool { return drop() })
	case pmetric.MetricTypeExponentialHistogram:
		m.ExponentialHistogram().DataPoints().RemoveIf(func(pmetric.ExponentialHistogramDataPoint) bool { return drop() })
	case pmetric.MetricTypeSummary:
		m.Summary().DataPoints().RemoveIf(func(pmetric.SummaryDataPoint) bool { return drop() })
	}
	return pointCount(m) < n
}

// applyMetricDrops removes the marked points, metrics, scopes and resources,
// and the containers that lost everything they held.
func (b *Batch) applyMetricDrops() {
	d := &b.drops
	resMarks := d.get(resourcesKey)
	ri := -1
	b.metrics.ResourceMetrics().RemoveIf(func(rm pmetric.ResourceMetrics) bool {
		ri++
		if resMarks.has(ri) {
			return true
		}
		scopeMarks := d.get(scopesKey(ri))
		si, lostScope := -1, false
		rm.ScopeMetrics().RemoveIf(func(sm pmetric.ScopeMetrics) bool {
			si++
			if scopeMarks.has(si) {
				lostScope = true
				return true
			}
			metricMarks := d.get(itemsKey(ri, si))
			mi, lostMetric := -1, false
			sm.Metrics().RemoveIf(func(m pmetric.Metric) bool {
				mi++
				gone := metricMarks.has(mi)
				if !gone {
					lostPoint := false
					if marks := d.get(pointsKey(ri, si, mi)); marks != nil {
						lostPoint = removePoints(m, marks)
					}
					gone = b.emptied(lostPoint, pointCount(m))
				}
				lostMetric = lostMetric || gone
				return gone
			})
			gone := b.emptied(lostMetric, sm.Metrics().Len())
			lostScope = lostScope || gone
			return gone
		})
		return b.emptied(lostScope, rm.ScopeMetrics().Len())
	})
}

// walkMetrics calls fn with the attributes of every data point w selects.
func (b *Batch) walkMetrics(L *lua.LState, w *where, fn visit) {
	var t ticker
	var ph pointHandle
	rms := b.metrics.ResourceMetrics()
	for ri := 0; ri < rms.Len(); ri++ {
		rm := rms.At(ri)
		if !w.matchResource(rm.Resource()) {
			continue
		}
		sms := rm.ScopeMetrics()
		for si := 0; si < sms.Len(); si++ {
			sm := sms.At(si)
			if !w.matchScope(sm.Scope()) {
				continue
			}
			ms := sm.Metrics()
			for mi := 0; mi < ms.Len(); mi++ {
				m := ms.At(mi)
				if !w.matchMetric(m) {
					continue
				}
				k := pointsKey(ri, si, mi)
				for i, n := 0, ph.enter(m); i < n; i++ {
					ph.load(i)
					attrs := ph.attributes()
					if w.hasItem() && !w.matchAttrs(attrs) {
						continue
					}
					fn(attrs, k, i)
					t.tick(L)
				}
			}
		}
	}
}
