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
// items in the last refuseHold, with the last error, and healthy again
// once that long passed without a refusal.

// refuseHold is how long after its output last refused items a receiver
// stays unhealthy.
const refuseHold = queueFullHold

// refusing tracks the refusals of one receiver's output. Safe for
// concurrent use.
type refusing struct {
	mu      sync.Mutex
	refused int       // items refused since since
	since   time.Time // the first refusal of the current episode
	last    time.Time
	lastErr string
}

// refuse records n items refused with err.
func (r *refusing) refuse(n int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if now.Sub(r.last) > refuseHold {
		r.refused, r.since = 0, now
	}
	r.refused += n
	r.last = now
	// The message is shown on /-/healthy, which needs no credentials:
	// the userinfo of a URL the error quotes goes.
	r.lastErr = redact.URLs(err.Error())
}

// problem says what the output refused at now, and since when; bad is
// false when it refused nothing in the last refuseHold.
func (r *refusing) problem(now time.Time) (msg string, since time.Time, bad bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last.IsZero() || now.Sub(r.last) > refuseHold {
		return "", time.Time{}, false
	}
	return fmt.Sprintf("refusing data: %s (%d items refused since %s)", r.lastErr, r.refused, r.since.Format(time.TimeOnly)), r.since, true
}

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
