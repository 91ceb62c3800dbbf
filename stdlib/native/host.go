package native

import (
	"context"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// hostServiceDesc is the host's callback service, served to one plugin
// process through its broker: the plugin's receivers and processors send
// their batches to it, and a call returns when the host's consumers have.
// A permanent error answers InvalidArgument, any other Unavailable, so
// that the plugin's component retries or drops as it would in process.
func hostServiceDesc(p *Plugin) *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: wire.HostService,
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{
			MethodName: wire.MethodConsume,
			Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				in := new(wire.Frame)
				if err := dec(in); err != nil {
					return nil, err
				}
				md, _ := metadata.FromIncomingContext(ctx)
				id, sig := first(md, wire.MetaInstance), first(md, wire.MetaSignal)
				px := p.instance(id)
				if px == nil {
					return nil, status.Errorf(codes.InvalidArgument, "no component instance %q runs in flowlua", id)
				}
				if err := px.deliver(ctx, sig, in.Value); err != nil {
					if consumererror.IsPermanent(err) {
						return nil, status.Error(codes.InvalidArgument, err.Error())
					}
					return nil, status.Error(codes.Unavailable, err.Error())
				}
				return new(wire.Frame), nil
			},
		}},
	}
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}
