package otelcol

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// failingConsumer returns err from every call.
type failingConsumer struct{ err error }

func (f *failingConsumer) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }
func (f *failingConsumer) ConsumeTraces(context.Context, ptrace.Traces) error {
	return f.err
}
func (f *failingConsumer) ConsumeMetrics(context.Context, pmetric.Metrics) error {
	return f.err
}
func (f *failingConsumer) ConsumeLogs(context.Context, plog.Logs) error { return f.err }

// TestRefusingConsumer checks that what a receiver's output refuses is
// counted, with its last error (URL userinfo redacted), passed back
// unchanged, and unhealthy until refusalHold after the last refusal.
func TestRefusingConsumer(t *testing.T) {
	next := &failingConsumer{}
	r := &refusing{}
	c := refusingConsumer{next: next, r: r}
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	ss.Spans().AppendEmpty()
	ss.Spans().AppendEmpty()
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()

	if err := c.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if msg, _, bad := r.problem(time.Now()); bad {
		t.Fatalf("unhealthy after an accepted request: %q", msg)
	}

	next.err = errors.New(`data refused due to high memory usage`)
	if err := c.ConsumeTraces(context.Background(), td); err != next.err {
		t.Fatalf("the error passed back is %v, want %v", err, next.err)
	}
	next.err = errors.New(`Post "http://alice:pa55word@127.0.0.1:1/v1/logs": connection refused`)
	if err := c.ConsumeLogs(context.Background(), ld); err != next.err {
		t.Fatalf("the error passed back is %v", err)
	}
	now := time.Now()
	msg, since, bad := r.problem(now)
	want := regexp.MustCompile(`^refusing data: Post "http://\(secret\)@127\.0\.0\.1:1/v1/logs": connection refused \(3 items refused since \d\d:\d\d:\d\d\)$`)
	if !bad || !want.MatchString(msg) || strings.Contains(msg, "alice") {
		t.Fatalf("after 2 refusals: %q (unhealthy %v), want %s", msg, bad, want)
	}
	if since.IsZero() || since.After(now) {
		t.Fatalf("since %v", since)
	}
	if _, _, bad := r.problem(now.Add(refusalHold - time.Millisecond)); !bad {
		t.Fatal("healthy before refusalHold passed")
	}
	if msg, _, bad := r.problem(now.Add(refusalHold + time.Millisecond)); bad {
		t.Fatalf("still unhealthy once refusalHold passed: %q", msg)
	}
}
