package otelcol

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/redact"
)

// A receiver's health follows what its output refuses.
//
// A receiver whose consumers return an error (a memory_limiter over its
// limit, an exporter's full queue, an exporter without a queue whose send
// failed) hands the error back to its clients: it refuses their data. The
// collector's receivers report no status for it. flowlua watches the
// errors the receiver's output returns (refusingConsumer, between the
// receiver and its fan-out): the receiver is unhealthy while it refused
// items in the last refusalHold, with the last error, and healthy again
// once that long passed without a refusal.

// refusalHold is how long after its last refusal a component stays
// unhealthy: a receiver whose output refused items, an exporter whose
// queue refused a request.
const refusalHold = 5 * time.Second

// refusals counts the items refused in one episode: refusals less than
// refusalHold apart. Its owner guards it.
type refusals struct {
	items int       // refused since since
	since time.Time // the episode's first refusal
	last  time.Time
}

// add records n items refused at now.
func (r *refusals) add(n int, now time.Time) {
	if now.Sub(r.last) > refusalHold {
		r.items, r.since = 0, now
	}
	r.items += n
	r.last = now
}

// active reports whether the episode still holds at now.
func (r *refusals) active(now time.Time) bool {
	return !r.last.IsZero() && now.Sub(r.last) <= refusalHold
}

// refusing tracks the refusals of one receiver's output. Safe for
// concurrent use.
type refusing struct {
	mu      sync.Mutex
	refused refusals
	lastErr string
}

// refuse records n items refused with err.
func (r *refusing) refuse(n int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refused.add(n, time.Now())
	// The message is shown on /-/healthy, which needs no credentials:
	// the userinfo of a URL the error quotes goes.
	r.lastErr = redact.URLs(err.Error())
}

// problem says what the output refused at now, and since when; bad is
// false when it refused nothing in the last refusalHold.
func (r *refusing) problem(now time.Time) (msg string, since time.Time, bad bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.refused.active(now) {
		return "", time.Time{}, false
	}
	return fmt.Sprintf("refusing data: %s (%d items refused since %s)", r.lastErr, r.refused.items, r.refused.since.Format(time.TimeOnly)), r.refused.since, true
}

// refusingConsumer takes batches encoded when what is behind does, so that
// a receiver feeding only native plugins still decodes nothing.
var _ dataplane.EncodedConsumer = refusingConsumer{}

// refusingConsumer passes data on to next and records in r what next
// refuses.
type refusingConsumer struct {
	next dataplane.Consumer
	r    *refusing
}

// Capabilities are those of the consumer behind.
func (c refusingConsumer) Capabilities() consumer.Capabilities { return c.next.Capabilities() }

// ConsumeTraces passes td on; the items are counted before, while the
// caller still owns them.
func (c refusingConsumer) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	n := td.SpanCount()
	err := c.next.ConsumeTraces(ctx, td)
	if err != nil {
		c.r.refuse(n, err)
	}
	return err
}

// ConsumeMetrics passes md on.
func (c refusingConsumer) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	n := md.DataPointCount()
	err := c.next.ConsumeMetrics(ctx, md)
	if err != nil {
		c.r.refuse(n, err)
	}
	return err
}

// ConsumeLogs passes ld on.
func (c refusingConsumer) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	n := ld.LogRecordCount()
	err := c.next.ConsumeLogs(ctx, ld)
	if err != nil {
		c.r.refuse(n, err)
	}
	return err
}

// TakesEncoded is true when the consumer behind takes batches of s
// encoded: the receiver then hands on the request's bytes, undecoded.
func (c refusingConsumer) TakesEncoded(s dataplane.Signal) bool {
	return dataplane.TakesEncoded(c.next, s)
}

// ConsumeEncoded passes b, a batch of s holding items items, on.
func (c refusingConsumer) ConsumeEncoded(ctx context.Context, s dataplane.Signal, b []byte, items int) error {
	err := dataplane.ConsumeEncoded(ctx, c.next, s, b, items)
	if err != nil {
		c.r.refuse(items, err)
	}
	return err
}
