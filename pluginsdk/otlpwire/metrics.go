package otlpwire

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/encoding/protowire"
)

// metrics decodes an ExportMetricsServiceRequest (MetricsData on the wire).
func (d *decoder) metrics(buf []byte) (pmetric.Metrics, error) {
	d.begin()
	md := pmetric.NewMetrics()
	rms := md.ResourceMetrics()
	return md, list(buf, 1, rms.EnsureCapacity, func(b []byte) error { return d.resourceMetrics(rms.AppendEmpty(), b) }, nil)
}

func (d *decoder) resourceMetrics(rm pmetric.ResourceMetrics, buf []byte) error {
	sms := rm.ScopeMetrics()
	return d.envelope(buf, func(b []byte) error { return d.resource(rm.Resource(), b) },
		sms.EnsureCapacity, func(b []byte) error { return d.scopeMetrics(sms.AppendEmpty(), b) }, rm.SetSchemaUrl)
}

func (d *decoder) scopeMetrics(sm pmetric.ScopeMetrics, buf []byte) error {
	ms := sm.Metrics()
	return d.envelope(buf, func(b []byte) error { return d.scope(sm.Scope(), b) },
		ms.EnsureCapacity, func(b []byte) error { return d.metric(ms.AppendEmpty(), b) }, sm.SetSchemaUrl)
}

// metricTypes maps the field numbers of Metric's data oneof to the types.
var metricTypes = [...]pmetric.MetricType{
	5:  pmetric.MetricTypeGauge,
	7:  pmetric.MetricTypeSum,
	9:  pmetric.MetricTypeHistogram,
	10: pmetric.MetricTypeExponentialHistogram,
	11: pmetric.MetricTypeSummary,
}

// setEmptyData sets m's data to a new, empty message of type typ, as
// pdata's SetEmptyGauge and its peers do.
func setEmptyData(m pmetric.Metric, typ pmetric.MetricType) {
	switch typ {
	case pmetric.MetricTypeGauge:
		m.SetEmptyGauge()
	case pmetric.MetricTypeSum:
		m.SetEmptySum()
	case pmetric.MetricTypeHistogram:
		m.SetEmptyHistogram()
	case pmetric.MetricTypeExponentialHistogram:
		m.SetEmptyExponentialHistogram()
	case pmetric.MetricTypeSummary:
		m.SetEmptySummary()
	}
}

func (d *decoder) metric(m pmetric.Metric, buf []byte) error {
	data := false
	var meta repeated
	f := fields(buf)
	for f.next() {
		if f.typ != protowire.BytesType {
			return errUnsupported
		}
		switch f.num {
		case 1:
			m.SetName(d.str(f.data()))
		case 2:
			m.SetDescription(d.str(f.data()))
		case 3:
			m.SetUnit(d.str(f.data()))
		case 5, 7, 9, 10, 11:
			// The data is a oneof; a second one is left to pdata.
			if data {
				return errUnsupported
			}
			data = true
			typ := metricTypes[f.num]
			setEmptyData(m, typ)
			var err error
			switch typ {
			case pmetric.MetricTypeGauge:
				err = d.gauge(m.Gauge(), f.data())
			case pmetric.MetricTypeSum:
				err = d.sum(m.Sum(), f.data())
			case pmetric.MetricTypeHistogram:
				err = d.histogram(m.Histogram(), f.data())
			case pmetric.MetricTypeExponentialHistogram:
				err = d.expHistogram(m.ExponentialHistogram(), f.data())
			case pmetric.MetricTypeSummary:
				err = d.summary(m.Summary(), f.data())
			}
			if err != nil {
				return err
			}
		case 12:
			meta.add(f.lo, f.hi)
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	return d.attributes(m.Metadata(), buf, 12, &meta)
}

func (d *decoder) gauge(g pmetric.Gauge, buf []byte) error {
	dps := g.DataPoints()
	return list(buf, 1, dps.EnsureCapacity, func(b []byte) error { return d.numberPoint(dps.AppendEmpty(), b) }, nil)
}

func (d *decoder) sum(s pmetric.Sum, buf []byte) error {
	dps := s.DataPoints()
	return list(buf, 1, dps.EnsureCapacity, func(b []byte) error { return d.numberPoint(dps.AppendEmpty(), b) }, func(f field) error {
		switch {
		case f.num == 2 && f.typ == protowire.VarintType:
			s.SetAggregationTemporality(pmetric.AggregationTemporality(int32(f.u)))
		case f.num == 3 && f.typ == protowire.VarintType:
			s.SetIsMonotonic(f.u != 0)
		default:
			return errUnsupported
		}
		return nil
	})
}

func (d *decoder) histogram(h pmetric.Histogram, buf []byte) error {
	dps := h.DataPoints()
	return list(buf, 1, dps.EnsureCapacity, func(b []byte) error { return d.histogramPoint(dps.AppendEmpty(), b) },
		temporality(h.SetAggregationTemporality))
}

// temporality decodes the aggregation temporality (field 2) of a histogram
// or an exponential histogram.
func temporality(set func(pmetric.AggregationTemporality)) func(field) error {
	return func(f field) error {
		if f.num != 2 || f.typ != protowire.VarintType {
			return errUnsupported
		}
		set(pmetric.AggregationTemporality(int32(f.u)))
		return nil
	}
}

func (d *decoder) expHistogram(h pmetric.ExponentialHistogram, buf []byte) error {
	dps := h.DataPoints()
	return list(buf, 1, dps.EnsureCapacity, func(b []byte) error { return d.expHistogramPoint(dps.AppendEmpty(), b) },
		temporality(h.SetAggregationTemporality))
}

func (d *decoder) summary(s pmetric.Summary, buf []byte) error {
	dps := s.DataPoints()
	return list(buf, 1, dps.EnsureCapacity, func(b []byte) error { return d.summaryPoint(dps.AppendEmpty(), b) }, nil)
}

func (d *decoder) numberPoint(dp pmetric.NumberDataPoint, buf []byte) error {
	nex := 0
	var kvs repeated
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 7 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 2 && f.typ == protowire.Fixed64Type:
			dp.SetStartTimestamp(pcommon.Timestamp(f.u))
		case f.num == 3 && f.typ == protowire.Fixed64Type:
			dp.SetTimestamp(pcommon.Timestamp(f.u))
		case f.num == 4 && f.typ == protowire.Fixed64Type:
			dp.SetDoubleValue(math.Float64frombits(f.u))
		case f.num == 6 && f.typ == protowire.Fixed64Type:
			dp.SetIntValue(int64(f.u))
		case f.num == 5 && f.typ == protowire.BytesType:
			nex++
		case f.num == 8 && f.typ == protowire.VarintType:
			dp.SetFlags(pmetric.DataPointFlags(uint32(f.u)))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	if err := d.exemplars(dp.Exemplars(), buf, 5, nex); err != nil {
		return err
	}
	return d.attributes(dp.Attributes(), buf, 7, &kvs)
}

func (d *decoder) histogramPoint(dp pmetric.HistogramDataPoint, buf []byte) error {
	nex := 0
	var kvs repeated
	var once singular
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 9 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 2 && f.typ == protowire.Fixed64Type:
			dp.SetStartTimestamp(pcommon.Timestamp(f.u))
		case f.num == 3 && f.typ == protowire.Fixed64Type:
			dp.SetTimestamp(pcommon.Timestamp(f.u))
		case f.num == 4 && f.typ == protowire.Fixed64Type:
			dp.SetCount(f.u)
		case f.num == 5 && f.typ == protowire.Fixed64Type:
			dp.SetSum(math.Float64frombits(f.u))
		case f.num == 6 && f.typ == protowire.BytesType:
			if err := once.first(6); err != nil {
				return err
			}
			counts, err := d.fixed64s(f.data())
			if err != nil {
				return err
			}
			dp.BucketCounts().FromRaw(counts)
		case f.num == 7 && f.typ == protowire.BytesType:
			if err := once.first(7); err != nil {
				return err
			}
			bounds, err := d.doubles(f.data())
			if err != nil {
				return err
			}
			dp.ExplicitBounds().FromRaw(bounds)
		case f.num == 8 && f.typ == protowire.BytesType:
			nex++
		case f.num == 10 && f.typ == protowire.VarintType:
			dp.SetFlags(pmetric.DataPointFlags(uint32(f.u)))
		case f.num == 11 && f.typ == protowire.Fixed64Type:
			dp.SetMin(math.Float64frombits(f.u))
		case f.num == 12 && f.typ == protowire.Fixed64Type:
			dp.SetMax(math.Float64frombits(f.u))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	if err := d.exemplars(dp.Exemplars(), buf, 8, nex); err != nil {
		return err
	}
	return d.attributes(dp.Attributes(), buf, 9, &kvs)
}

func (d *decoder) expHistogramPoint(dp pmetric.ExponentialHistogramDataPoint, buf []byte) error {
	nex := 0
	var kvs repeated
	var once singular
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 2 && f.typ == protowire.Fixed64Type:
			dp.SetStartTimestamp(pcommon.Timestamp(f.u))
		case f.num == 3 && f.typ == protowire.Fixed64Type:
			dp.SetTimestamp(pcommon.Timestamp(f.u))
		case f.num == 4 && f.typ == protowire.Fixed64Type:
			dp.SetCount(f.u)
		case f.num == 5 && f.typ == protowire.Fixed64Type:
			dp.SetSum(math.Float64frombits(f.u))
		case f.num == 6 && f.typ == protowire.VarintType:
			dp.SetScale(int32(protowire.DecodeZigZag(f.u)))
		case f.num == 7 && f.typ == protowire.Fixed64Type:
			dp.SetZeroCount(f.u)
		case (f.num == 8 || f.num == 9) && f.typ == protowire.BytesType:
			if err := once.first(f.num); err != nil {
				return err
			}
			b := dp.Positive()
			if f.num == 9 {
				b = dp.Negative()
			}
			if err := d.buckets(b, f.data()); err != nil {
				return err
			}
		case f.num == 10 && f.typ == protowire.VarintType:
			dp.SetFlags(pmetric.DataPointFlags(uint32(f.u)))
		case f.num == 11 && f.typ == protowire.BytesType:
			nex++
		case f.num == 12 && f.typ == protowire.Fixed64Type:
			dp.SetMin(math.Float64frombits(f.u))
		case f.num == 13 && f.typ == protowire.Fixed64Type:
			dp.SetMax(math.Float64frombits(f.u))
		case f.num == 14 && f.typ == protowire.Fixed64Type:
			dp.SetZeroThreshold(math.Float64frombits(f.u))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	if err := d.exemplars(dp.Exemplars(), buf, 11, nex); err != nil {
		return err
	}
	return d.attributes(dp.Attributes(), buf, 1, &kvs)
}

func (d *decoder) buckets(b pmetric.ExponentialHistogramDataPointBuckets, buf []byte) error {
	once := singular(0)
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.VarintType:
			b.SetOffset(int32(protowire.DecodeZigZag(f.u)))
		case f.num == 2 && f.typ == protowire.BytesType:
			if err := once.first(2); err != nil {
				return err
			}
			counts := d.u64[:0]
			for p := f.data(); len(p) > 0; {
				v, n := protowire.ConsumeVarint(p)
				if n < 0 {
					return errUnsupported
				}
				counts = append(counts, v)
				p = p[n:]
			}
			d.u64 = counts
			b.BucketCounts().FromRaw(counts)
		default:
			return errUnsupported
		}
	}
	return f.err()
}

func (d *decoder) summaryPoint(dp pmetric.SummaryDataPoint, buf []byte) error {
	nq := 0
	var kvs repeated
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 7 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 2 && f.typ == protowire.Fixed64Type:
			dp.SetStartTimestamp(pcommon.Timestamp(f.u))
		case f.num == 3 && f.typ == protowire.Fixed64Type:
			dp.SetTimestamp(pcommon.Timestamp(f.u))
		case f.num == 4 && f.typ == protowire.Fixed64Type:
			dp.SetCount(f.u)
		case f.num == 5 && f.typ == protowire.Fixed64Type:
			dp.SetSum(math.Float64frombits(f.u))
		case f.num == 6 && f.typ == protowire.BytesType:
			nq++
		case f.num == 8 && f.typ == protowire.VarintType:
			dp.SetFlags(pmetric.DataPointFlags(uint32(f.u)))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	if nq > 0 {
		qs := dp.QuantileValues()
		qs.EnsureCapacity(nq)
		f = fields(buf)
		for f.next() {
			if f.num != 6 {
				continue
			}
			q := qs.AppendEmpty()
			g := fields(f.data())
			for g.next() {
				switch {
				case g.num == 1 && g.typ == protowire.Fixed64Type:
					q.SetQuantile(math.Float64frombits(g.u))
				case g.num == 2 && g.typ == protowire.Fixed64Type:
					q.SetValue(math.Float64frombits(g.u))
				default:
					return errUnsupported
				}
			}
			if g.bad {
				return errUnsupported
			}
		}
	}
	return d.attributes(dp.Attributes(), buf, 7, &kvs)
}

// exemplars decodes the n Exemplar payloads numbered num in buf into es.
func (d *decoder) exemplars(es pmetric.ExemplarSlice, buf []byte, num protowire.Number, n int) error {
	if n == 0 {
		return nil
	}
	es.EnsureCapacity(n)
	f := fields(buf)
	for f.next() {
		if f.num != num {
			continue
		}
		e := es.AppendEmpty()
		var kvs repeated
		g := fields(f.data())
		for g.next() {
			switch {
			case g.num == 7 && g.typ == protowire.BytesType:
				kvs.add(g.lo, g.hi)
			case g.num == 2 && g.typ == protowire.Fixed64Type:
				e.SetTimestamp(pcommon.Timestamp(g.u))
			case g.num == 3 && g.typ == protowire.Fixed64Type:
				e.SetDoubleValue(math.Float64frombits(g.u))
			case g.num == 6 && g.typ == protowire.Fixed64Type:
				e.SetIntValue(int64(g.u))
			case g.num == 4 && g.typ == protowire.BytesType:
				id, err := spanID(g.data())
				if err != nil {
					return err
				}
				e.SetSpanID(id)
			case g.num == 5 && g.typ == protowire.BytesType:
				id, err := traceID(g.data())
				if err != nil {
					return err
				}
				e.SetTraceID(id)
			default:
				return errUnsupported
			}
		}
		if g.bad {
			return errUnsupported
		}
		if err := d.attributes(e.FilteredAttributes(), f.data(), 7, &kvs); err != nil {
			return err
		}
	}
	return f.err()
}

// fixed64s decodes a packed repeated fixed64 into the decoder's scratch
// slice; the caller copies it out (FromRaw copies).
func (d *decoder) fixed64s(b []byte) ([]uint64, error) {
	if len(b)%8 != 0 {
		return nil, errUnsupported
	}
	out := d.u64[:0]
	for ; len(b) > 0; b = b[8:] {
		out = append(out, binary.LittleEndian.Uint64(b))
	}
	d.u64 = out
	return out, nil
}

// doubles decodes a packed repeated double into the decoder's scratch
// slice; the caller copies it out (FromRaw copies).
func (d *decoder) doubles(b []byte) ([]float64, error) {
	if len(b)%8 != 0 {
		return nil, errUnsupported
	}
	out := d.f64[:0]
	for ; len(b) > 0; b = b[8:] {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	d.f64 = out
	return out, nil
}
