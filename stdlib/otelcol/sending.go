package otelcol

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/flowlua/flowlua/engine/redact"
)

// An exporter's health follows its sends.
//
// The collector's exporters report no status when sending fails: an
// exporter whose endpoint is down retries, queues, drops, and stays
// "healthy". flowlua watches what the exporterhelper already tells about
// each send through the telemetry it is given (one sending per instance):
//
//   - every failed attempt is logged, once: "Exporting failed. Will retry
//     the request after interval." for an attempt that will be retried,
//     "Exporting failed. Dropping data." (from the queue) or "Exporting
//     failed. Rejecting data." (without a queue) for the last one, each
//     with the error. The instance's logger observes these entries,
//     whatever the log level (sendingCore);
//   - a request the queue refuses is logged as rejected with
//     exporterhelper.ErrQueueIsFull;
//   - a request sent counts its items in otelcol_exporter_sent_*, which
//     the instance's probe observes (drain.go).
//
// The exporter is unhealthy from the first failed attempt until a request
// is sent, and while its queue refused a request in the last
// refusalHold.

// exportFailedPrefix starts the exporterhelper's log messages of a failed
// attempt.
const exportFailedPrefix = "Exporting failed."

// sending tracks the outcome of one exporter instance's sends. Safe for
// concurrent use.
type sending struct {
	mu       sync.Mutex
	failures int       // consecutive failed attempts since the last request sent
	since    time.Time // the first of them
	lastErr  string

	refused refusals // by the queue
}

// failed records a failed attempt.
func (s *sending) failed(err string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failures == 0 {
		s.since = time.Now()
	}
	s.failures++
	s.lastErr = err
}

// sent records a request sent.
func (s *sending) sent() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = 0
	s.lastErr = ""
}

// queueFull records n items the queue refused.
func (s *sending) queueFull(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused.add(n, time.Now())
}

// problem says what is wrong with the sends at now, and since when; ok is
// false when nothing is.
func (s *sending) problem(now time.Time) (msg string, since time.Time, bad bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	if s.refused.active(now) {
		parts = append(parts, fmt.Sprintf("sending queue full (%d items refused since %s)", s.refused.items, s.refused.since.Format(time.TimeOnly)))
		since = s.refused.since
	}
	if s.failures > 0 {
		what := "failure"
		if s.failures > 1 {
			what = "consecutive failures"
		}
		parts = append(parts, fmt.Sprintf("sending failed: %s (%d %s since %s)", s.lastErr, s.failures, what, s.since.Format(time.TimeOnly)))
		if since.IsZero() || s.since.Before(since) {
			since = s.since
		}
	}
	return strings.Join(parts, "; "), since, len(parts) > 0
}

// sendingLogger returns l with its entries about failed attempts also
// recorded in s.
func sendingLogger(l *zap.Logger, s *sending) *zap.Logger {
	return l.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return &sendingCore{Core: c, s: s}
	}))
}

// sendingCore is a zapcore.Core that hands the entries of failed attempts
// to a sending, besides writing what its own core enables.
type sendingCore struct {
	zapcore.Core
	s *sending
}

// Enabled is true from Info up, where failed attempts are logged, so that
// they reach Check at any log level.
func (c *sendingCore) Enabled(l zapcore.Level) bool {
	return l >= zapcore.InfoLevel || c.Core.Enabled(l)
}

// With keeps observing.
func (c *sendingCore) With(fields []zapcore.Field) zapcore.Core {
	return &sendingCore{Core: c.Core.With(fields), s: c.s}
}

// Check adds the observer for a failed attempt's entry, and the core for
// what it enables.
func (c *sendingCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if strings.HasPrefix(e.Message, exportFailedPrefix) {
		ce = ce.AddCore(e, sendingObserver{c.s})
	}
	return c.Core.Check(e, ce)
}

// sendingObserver records the failed attempt an entry tells of.
type sendingObserver struct{ s *sending }

func (o sendingObserver) Enabled(zapcore.Level) bool        { return true }
func (o sendingObserver) With([]zapcore.Field) zapcore.Core { return o }
func (o sendingObserver) Sync() error                       { return nil }
func (o sendingObserver) Check(_ zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	return ce
}

// Write records the entry's error: a refusal of a full queue, or a failed
// attempt.
func (o sendingObserver) Write(_ zapcore.Entry, fields []zapcore.Field) error {
	var err error
	items := 0
	for _, f := range fields {
		switch {
		case f.Type == zapcore.ErrorType:
			err, _ = f.Interface.(error)
		case f.Key == "rejected_items":
			items = int(f.Integer)
		}
	}
	switch {
	case err == nil:
		o.s.failed("unknown error")
	case errors.Is(err, exporterhelper.ErrQueueIsFull):
		o.s.queueFull(items)
	default:
		// The message is shown on /-/healthy, which needs no
		// credentials: the userinfo of a URL the error quotes goes.
		o.s.failed(redact.URLs(err.Error()))
	}
	return nil
}
