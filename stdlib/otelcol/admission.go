package otelcol

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// DecodingBudget is how many bytes of request bodies one otlp receiver's
// OTLP/HTTP server decodes and hands on at once: a body holds its share
// from the moment it has been read until its data has been consumed (or
// refused) downstream. A request that would take the total past it is
// refused as retryable (HTTP 503 with Retry-After, the OTLP
// specification's answer to an overloaded server), and counted in
// flowlua_otlp_receiver_throttled_requests_total.
//
// Decoded, a protobuf body takes several times its size (about 4 to 10
// times for ordinary telemetry, more for bodies made of empty items), so
// without a bound a handful of concurrent bodies at the body size limit
// (20 MiB by default) take gigabytes. 64 MiB admits three bodies at that
// limit, or dozens of ordinary ones (a few hundred kilobytes to a few
// megabytes each), at once. A single body larger than the budget is
// admitted when nothing else is in flight, so that any body under the
// size limit can be delivered.
const DecodingBudget = 64 << 20

// throttleRetryAfter is the delay a refused client is told to wait.
const throttleRetryAfter = time.Second

// admission bounds the bytes decoded at once (DecodingBudget). Its
// methods are safe for concurrent use.
type admission struct {
	budget    int64
	inFlight  atomic.Int64
	throttled metric.Int64Counter // nil: not counted
	attrs     metric.MeasurementOption
}

// newAdmission returns an admission of budget bytes that counts the
// requests it refuses with mp (nil: uncounted).
func newAdmission(budget int64, mp metric.MeterProvider, transport string) *admission {
	a := &admission{budget: budget, attrs: metric.WithAttributeSet(attribute.NewSet(attribute.String("transport", transport)))}
	if mp != nil {
		c, err := mp.Meter("github.com/flowlua/flowlua/stdlib/otelcol").Int64Counter(
			"flowlua_otlp_receiver_throttled_requests",
			metric.WithDescription("OTLP export requests refused as retryable because the receiver was already decoding its budget of bytes (DecodingBudget, 64 MiB), by transport."),
		)
		if err == nil {
			a.throttled = c
		}
	}
	return a
}

// take admits a request of n bytes and returns its cost, which release
// gives back; ok is false when the request is refused (and counted).
func (a *admission) take(n int) (cost int64, ok bool) {
	cost = min(int64(n), a.budget)
	for {
		cur := a.inFlight.Load()
		if cur > 0 && cur+cost > a.budget {
			if a.throttled != nil {
				a.throttled.Add(context.Background(), 1, a.attrs)
			}
			return 0, false
		}
		if a.inFlight.CompareAndSwap(cur, cur+cost) {
			return cost, true
		}
	}
}

// open reports whether a request of a size not known yet is admitted:
// whether less than the budget is held. A refusal is counted.
func (a *admission) open() bool {
	if a.inFlight.Load() < a.budget {
		return true
	}
	if a.throttled != nil {
		a.throttled.Add(context.Background(), 1, a.attrs)
	}
	return false
}

// release gives back what take admitted.
func (a *admission) release(cost int64) { a.inFlight.Add(-cost) }

// errThrottled is the status of a refused request: Unavailable, which
// OTLP clients retry, with a RetryInfo, which the HTTP server writes as
// Retry-After (503).
var errThrottled = func() error {
	s := status.New(codes.Unavailable, "the receiver is decoding as much data as it admits at once; retry later")
	if d, err := s.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(throttleRetryAfter)}); err == nil {
		s = d
	}
	return s.Err()
}()
