package otlpwire

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"
)

// traces decodes an ExportTraceServiceRequest (TracesData on the wire).
func (d *decoder) traces(buf []byte) (ptrace.Traces, error) {
	d.begin()
	td := ptrace.NewTraces()
	rss := td.ResourceSpans()
	return td, list(buf, 1, rss.EnsureCapacity, func(b []byte) error { return d.resourceSpans(rss.AppendEmpty(), b) }, nil)
}

func (d *decoder) resourceSpans(rs ptrace.ResourceSpans, buf []byte) error {
	sss := rs.ScopeSpans()
	return d.envelope(buf, func(b []byte) error { return d.resource(rs.Resource(), b) },
		sss.EnsureCapacity, func(b []byte) error { return d.scopeSpans(sss.AppendEmpty(), b) }, rs.SetSchemaUrl)
}

func (d *decoder) scopeSpans(ss ptrace.ScopeSpans, buf []byte) error {
	spans := ss.Spans()
	return d.envelope(buf, func(b []byte) error { return d.scope(ss.Scope(), b) },
		spans.EnsureCapacity, func(b []byte) error { return d.span(spans.AppendEmpty(), b) }, ss.SetSchemaUrl)
}

// span decodes a Span: one walk sets the scalar fields, collects the
// attributes and counts events and links, which a second walk (only when
// there are any) decodes into slices sized once.
func (d *decoder) span(sp ptrace.Span, buf []byte) error {
	var kvs repeated
	var nevents, nlinks int
	var once singular
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			id, err := traceID(f.data())
			if err != nil {
				return err
			}
			sp.SetTraceID(id)
		case f.num == 2 && f.typ == protowire.BytesType:
			id, err := spanID(f.data())
			if err != nil {
				return err
			}
			sp.SetSpanID(id)
		case f.num == 3 && f.typ == protowire.BytesType:
			sp.TraceState().FromRaw(d.str(f.data()))
		case f.num == 4 && f.typ == protowire.BytesType:
			id, err := spanID(f.data())
			if err != nil {
				return err
			}
			sp.SetParentSpanID(id)
		case f.num == 16 && f.typ == protowire.Fixed32Type:
			sp.SetFlags(uint32(f.u))
		case f.num == 5 && f.typ == protowire.BytesType:
			sp.SetName(d.str(f.data()))
		case f.num == 6 && f.typ == protowire.VarintType:
			sp.SetKind(ptrace.SpanKind(int32(f.u)))
		case f.num == 7 && f.typ == protowire.Fixed64Type:
			sp.SetStartTimestamp(pcommon.Timestamp(f.u))
		case f.num == 8 && f.typ == protowire.Fixed64Type:
			sp.SetEndTimestamp(pcommon.Timestamp(f.u))
		case f.num == 9 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 10 && f.typ == protowire.VarintType:
			sp.SetDroppedAttributesCount(uint32(f.u))
		case f.num == 11 && f.typ == protowire.BytesType:
			nevents++
		case f.num == 12 && f.typ == protowire.VarintType:
			sp.SetDroppedEventsCount(uint32(f.u))
		case f.num == 13 && f.typ == protowire.BytesType:
			nlinks++
		case f.num == 14 && f.typ == protowire.VarintType:
			sp.SetDroppedLinksCount(uint32(f.u))
		case f.num == 15 && f.typ == protowire.BytesType:
			if err := once.first(15); err != nil {
				return err
			}
			if err := d.status(sp.Status(), f.data()); err != nil {
				return err
			}
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	if err := d.attributes(sp.Attributes(), buf, 9, &kvs); err != nil {
		return err
	}
	if nevents+nlinks == 0 {
		return nil
	}
	events, links := sp.Events(), sp.Links()
	events.EnsureCapacity(nevents)
	links.EnsureCapacity(nlinks)
	f = fields(buf)
	for f.next() {
		var err error
		switch f.num {
		case 11:
			err = d.event(events.AppendEmpty(), f.data())
		case 13:
			err = d.link(links.AppendEmpty(), f.data())
		}
		if err != nil {
			return err
		}
	}
	return f.err()
}

func (d *decoder) status(s ptrace.Status, buf []byte) error {
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 2 && f.typ == protowire.BytesType:
			s.SetMessage(d.str(f.data()))
		case f.num == 3 && f.typ == protowire.VarintType:
			s.SetCode(ptrace.StatusCode(int32(f.u)))
		default:
			return errUnsupported
		}
	}
	return f.err()
}

func (d *decoder) event(e ptrace.SpanEvent, buf []byte) error {
	var kvs repeated
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.Fixed64Type:
			e.SetTimestamp(pcommon.Timestamp(f.u))
		case f.num == 2 && f.typ == protowire.BytesType:
			e.SetName(d.str(f.data()))
		case f.num == 3 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 4 && f.typ == protowire.VarintType:
			e.SetDroppedAttributesCount(uint32(f.u))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	return d.attributes(e.Attributes(), buf, 3, &kvs)
}

func (d *decoder) link(l ptrace.SpanLink, buf []byte) error {
	var kvs repeated
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.BytesType:
			id, err := traceID(f.data())
			if err != nil {
				return err
			}
			l.SetTraceID(id)
		case f.num == 2 && f.typ == protowire.BytesType:
			id, err := spanID(f.data())
			if err != nil {
				return err
			}
			l.SetSpanID(id)
		case f.num == 3 && f.typ == protowire.BytesType:
			l.TraceState().FromRaw(d.str(f.data()))
		case f.num == 4 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 5 && f.typ == protowire.VarintType:
			l.SetDroppedAttributesCount(uint32(f.u))
		case f.num == 6 && f.typ == protowire.Fixed32Type:
			l.SetFlags(uint32(f.u))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	return d.attributes(l.Attributes(), buf, 4, &kvs)
}
