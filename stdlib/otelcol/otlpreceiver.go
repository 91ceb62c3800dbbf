package otelcol

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configgrpc"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// ownOTLP makes flowlua serve both protocols of the otlp receiver: gRPC
// (otlpgrpc.go) and HTTP (otlphttp.go), from the receiver's own config.
func ownOTLP() Option {
	return func(k *kind) { k.takeOver = takeOverOTLP }
}

// takeOverOTLP splits an otlp receiver config: flowlua serves its grpc and
// http protocols, and the upstream receiver is created from a copy with
// neither, so that it serves nothing (it is still created and started,
// which keeps the receiver's lifecycle the collector's). A config with
// neither protocol is left whole (its validation refuses it).
func takeOverOTLP(s settings, cfg component.Config) (component.Config, receiverPart, error) {
	oc, ok := cfg.(*otlpreceiver.Config)
	if !ok || !oc.Protocols.HTTP.HasValue() && !oc.Protocols.GRPC.HasValue() {
		return cfg, nil, nil
	}
	upstream := *oc
	upstream.Protocols.GRPC = configoptional.None[configgrpc.ServerConfig]()
	upstream.Protocols.HTTP = configoptional.None[otlpreceiver.HTTPConfig]()
	set := receiver.Settings{ID: s.id, TelemetrySettings: s.tel, BuildInfo: s.build}
	decoding := currentOTLPDecoding()
	part := &otlpParts{}
	if oc.Protocols.GRPC.HasValue() {
		g, err := newOTLPGRPC(*oc.Protocols.GRPC.Get(), set, decoding.grpc)
		if err != nil {
			return nil, nil, fmt.Errorf("serving the grpc protocol of %s: %w", s.id, err)
		}
		part.grpc = g
	}
	if oc.Protocols.HTTP.HasValue() {
		h, err := newOTLPHTTP(*oc.Protocols.HTTP.Get(), set, decoding.http)
		if err != nil {
			return nil, nil, fmt.Errorf("serving the http protocol of %s: %w", s.id, err)
		}
		part.http = h
	}
	return &upstream, part, nil
}

// otlpParts is what flowlua serves of an otlp receiver: its grpc and http
// protocols (nil when the config has none). They start in that order and
// stop in the reverse, as the collector's receiver orders its servers.
type otlpParts struct {
	grpc *otlpGRPC
	http *otlpHTTP
}

var _ receiverPart = (*otlpParts)(nil)

func (p *otlpParts) setConsumer(sig dataplane.Signal, next dataplane.Consumer) {
	if p.grpc != nil {
		p.grpc.setConsumer(sig, next)
	}
	if p.http != nil {
		p.http.setConsumer(sig, next)
	}
}

// Start starts the grpc server, then the http server; when the second
// fails, the first is stopped.
func (p *otlpParts) Start(ctx context.Context, host component.Host) error {
	if p.grpc != nil {
		if err := p.grpc.Start(ctx, host); err != nil {
			return err
		}
	}
	if p.http != nil {
		if err := p.http.Start(ctx, host); err != nil {
			if p.grpc != nil {
				err = errors.Join(err, p.grpc.Shutdown(ctx))
			}
			return err
		}
	}
	return nil
}

// Shutdown stops the http server, then the grpc server.
func (p *otlpParts) Shutdown(ctx context.Context) error {
	var errs []error
	if p.http != nil {
		errs = append(errs, p.http.Shutdown(ctx))
	}
	if p.grpc != nil {
		errs = append(errs, p.grpc.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// otlpConsumers are the consumers an OTLP server sends each signal to.
type otlpConsumers struct {
	traces  consumer.Traces
	metrics consumer.Metrics
	logs    consumer.Logs
}

// setConsumer serves sig, sending its data to next.
func (c *otlpConsumers) setConsumer(sig dataplane.Signal, next dataplane.Consumer) {
	switch sig {
	case dataplane.Traces:
		c.traces = next
	case dataplane.Metrics:
		c.metrics = next
	case dataplane.Logs:
		c.logs = next
	}
}
