package otlpwire

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"google.golang.org/protobuf/encoding/protowire"
)

// logs decodes an ExportLogsServiceRequest (LogsData on the wire).
func (d *decoder) logs(buf []byte) (plog.Logs, error) {
	d.begin()
	ld := plog.NewLogs()
	rls := ld.ResourceLogs()
	return ld, list(buf, 1, rls.EnsureCapacity, func(b []byte) error { return d.resourceLogs(rls.AppendEmpty(), b) }, nil)
}

func (d *decoder) resourceLogs(rl plog.ResourceLogs, buf []byte) error {
	sls := rl.ScopeLogs()
	return d.envelope(buf, func(b []byte) error { return d.resource(rl.Resource(), b) },
		sls.EnsureCapacity, func(b []byte) error { return d.scopeLogs(sls.AppendEmpty(), b) }, rl.SetSchemaUrl)
}

func (d *decoder) scopeLogs(sl plog.ScopeLogs, buf []byte) error {
	records := sl.LogRecords()
	return d.envelope(buf, func(b []byte) error { return d.scope(sl.Scope(), b) },
		records.EnsureCapacity, func(b []byte) error { return d.logRecord(records.AppendEmpty(), b) }, sl.SetSchemaUrl)
}

func (d *decoder) logRecord(lr plog.LogRecord, buf []byte) error {
	var once singular
	var kvs repeated
	f := fields(buf)
	for f.next() {
		switch {
		case f.num == 1 && f.typ == protowire.Fixed64Type:
			lr.SetTimestamp(pcommon.Timestamp(f.u))
		case f.num == 11 && f.typ == protowire.Fixed64Type:
			lr.SetObservedTimestamp(pcommon.Timestamp(f.u))
		case f.num == 2 && f.typ == protowire.VarintType:
			lr.SetSeverityNumber(plog.SeverityNumber(int32(f.u)))
		case f.num == 3 && f.typ == protowire.BytesType:
			lr.SetSeverityText(d.str(f.data()))
		case f.num == 5 && f.typ == protowire.BytesType:
			if err := once.first(5); err != nil {
				return err
			}
			if err := d.value(lr.Body(), f.data()); err != nil {
				return err
			}
		case f.num == 6 && f.typ == protowire.BytesType:
			kvs.add(f.lo, f.hi)
		case f.num == 7 && f.typ == protowire.VarintType:
			lr.SetDroppedAttributesCount(uint32(f.u))
		case f.num == 8 && f.typ == protowire.Fixed32Type:
			lr.SetFlags(plog.LogRecordFlags(uint32(f.u)))
		case f.num == 9 && f.typ == protowire.BytesType:
			id, err := traceID(f.data())
			if err != nil {
				return err
			}
			lr.SetTraceID(id)
		case f.num == 10 && f.typ == protowire.BytesType:
			id, err := spanID(f.data())
			if err != nil {
				return err
			}
			lr.SetSpanID(id)
		case f.num == 12 && f.typ == protowire.BytesType:
			lr.SetEventName(d.str(f.data()))
		default:
			return errUnsupported
		}
	}
	if f.bad {
		return errUnsupported
	}
	return d.attributes(lr.Attributes(), buf, 6, &kvs)
}
