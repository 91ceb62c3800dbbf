package otelcol

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.uber.org/zap"
)

// TestSendingFromLogs checks that the exporterhelper's entries about
// failed attempts reach the sending whatever the log level, that a sent
// request clears the failures, and that a full queue is unhealthy for
// refusalHold after its last refusal.
func TestSendingFromLogs(t *testing.T) {
	var logs strings.Builder
	base := newZapLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError})))
	s := &sending{}
	l := sendingLogger(base, s).With(zap.String("exporter", "otlp"))

	if _, _, bad := s.problem(time.Now()); bad {
		t.Fatal("unhealthy before any send")
	}
	refused := errors.New(`rpc error: code = Unavailable desc = dial tcp 127.0.0.1:1: connect: connection refused`)
	for range 3 {
		l.Info("Exporting failed. Will retry the request after interval.", zap.Error(refused), zap.String("interval", "50ms"))
	}
	msg, _, bad := s.problem(time.Now())
	want := regexp.MustCompile(`^sending failed: rpc error: .*connection refused \(3 consecutive failures since \d\d:\d\d:\d\d\)$`)
	if !bad || !want.MatchString(msg) {
		t.Fatalf("after 3 failed attempts: %q (unhealthy %v), want %s", msg, bad, want)
	}
	if logs.Len() != 0 {
		t.Fatalf("an info entry was written at level error: %s", logs.String())
	}
	l.Info("Exporting failed, unrelated")
	l.Info("something else", zap.Error(errors.New("not a send")))
	if msg2, _, _ := s.problem(time.Now()); msg2 != msg {
		t.Fatalf("other entries changed the state: %q", msg2)
	}

	s.sent()
	if msg, _, bad := s.problem(time.Now()); bad {
		t.Fatalf("unhealthy after a request was sent: %q", msg)
	}

	// The message goes to /-/healthy: no URL userinfo in it.
	l.Error("Exporting failed. Dropping data.", zap.Error(errors.New(`Post "http://alice:pa55word@127.0.0.1:1/v1/traces": connection refused`)))
	if msg, _, _ := s.problem(time.Now()); strings.Contains(msg, "alice") || !strings.Contains(msg, "http://(secret)@127.0.0.1:1/") {
		t.Fatalf("the message shows the URL's userinfo: %q", msg)
	}
	s.sent()

	l.Error("Exporting failed. Rejecting data.", zap.Error(fmt.Errorf("wrapped: %w", exporterhelper.ErrQueueIsFull)), zap.Int("rejected_items", 7))
	msg, since, bad := s.problem(time.Now())
	if !bad || !strings.HasPrefix(msg, "sending queue full (7 items refused since ") || since.IsZero() {
		t.Fatalf("after a refusal: %q (unhealthy %v)", msg, bad)
	}
	if _, _, bad := s.problem(time.Now().Add(refusalHold + time.Second)); bad {
		t.Fatal("still unhealthy once the queue refused nothing for refusalHold")
	}
	if !strings.Contains(logs.String(), "Rejecting data") {
		t.Fatalf("the error entry was not written: %q", logs.String())
	}
}
