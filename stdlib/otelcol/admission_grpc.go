package otelcol

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/tap"
)

// grpcAdmission bounds the bytes an otlp receiver's OTLP/gRPC server holds
// at once (DecodingBudget, counted apart from OTLP/HTTP's): a request
// counts from the moment its headers arrive until its RPC ends, after its
// data was consumed downstream. gRPC tells a message's size only once it
// has been received, so a request first holds the most a message may be
// (max_recv_msg_size_mib, 4 MiB by default) and, once its message is in,
// what it really is. A request that would take the total past the budget
// is refused before any of its message is read, with Unavailable, which
// OTLP clients retry (gRPC writes a tap's status without details, so
// without a RetryInfo). A lone request is always admitted.
//
// flowlua's OTLP/gRPC server (otlpgrpc.go) is built with its options.
type grpcAdmission struct {
	a           *admission
	provisional int64 // what a request holds until its message is in
}

var _ stats.Handler = (*grpcAdmission)(nil)

// newGRPCAdmission returns the admission of a grpc protocol whose
// messages are at most maxMsg bytes.
func newGRPCAdmission(budget, maxMsg int64, mp metric.MeterProvider) *grpcAdmission {
	return &grpcAdmission{a: newAdmission(budget, mp, "grpc"), provisional: maxMsg}
}

// serverOptions returns the tap that refuses new requests while the
// budget is held and the stats handler that counts received messages.
func (g *grpcAdmission) serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.InTapHandle(g.tap), grpc.StatsHandler(g)}
}

// admittedKey is the context key of a request's *admitted.
type admittedKey struct{}

// admitted is what one admitted request holds of the budget.
type admitted struct {
	g    *grpcAdmission
	cost atomic.Int64
	stop func() bool // unregisters release from the stream's context
}

// release gives back what the request holds.
func (r *admitted) release() { r.g.a.release(r.cost.Swap(0)) }

// tap runs when a request's headers arrive, before its message is read.
// What it admits is given back when the RPC ends (HandleRPC's stats.End),
// or else when the stream's context ends: gRPC cancels it however the
// stream closes, also for a request that never reaches a handler.
func (g *grpcAdmission) tap(ctx context.Context, _ *tap.Info) (context.Context, error) {
	cost, ok := g.a.take(int(g.provisional))
	if !ok {
		return nil, errThrottled
	}
	r := &admitted{g: g}
	r.cost.Store(cost)
	r.stop = context.AfterFunc(ctx, r.release)
	return context.WithValue(ctx, admittedKey{}, r), nil
}

// HandleRPC turns what a request holds into its message's size once the
// message has been received, and gives it back when the RPC ends.
func (g *grpcAdmission) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if s.IsClient() {
		return
	}
	r, ok := ctx.Value(admittedKey{}).(*admitted)
	if !ok {
		return
	}
	switch s := s.(type) {
	case *stats.InPayload:
		diff := min(int64(s.Length), g.a.budget) - r.cost.Load()
		g.a.inFlight.Add(diff)
		r.cost.Add(diff)
	case *stats.End:
		if r.stop() { // the context's release will not run
			r.release()
		}
	}
}

// TagRPC leaves the context as it is.
func (g *grpcAdmission) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return ctx
}

// TagConn leaves the context as it is.
func (g *grpcAdmission) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}

// HandleConn does nothing.
func (g *grpcAdmission) HandleConn(context.Context, stats.ConnStats) {}
