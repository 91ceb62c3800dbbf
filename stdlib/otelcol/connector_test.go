package otelcol

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pipeline"

	flowcomp "github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// TestAliases: a factory that keeps a deprecated type name is registered
// under both names; both make a component with the factory's type in its
// collector id, and each doc names the other.
func TestAliases(t *testing.T) {
	aliases := 0
	for _, name := range flowcomp.DefaultRegistry.Names() {
		reg, _ := flowcomp.DefaultRegistry.Get(name)
		k, ok := reg.Schema.(*kind)
		if !ok {
			continue
		}
		typ := k.factory.Type().String()
		if k.aliasOf == "" {
			if want := "otelcol." + k.class.String() + "." + typ; name != want {
				t.Errorf("%s is registered under another name than its factory's type: want %s", name, want)
			}
			continue
		}
		aliases++
		cur, ok := flowcomp.DefaultRegistry.Get(k.aliasOf)
		if !ok {
			t.Errorf("%s is an alias of %s, which is not registered", name, k.aliasOf)
			continue
		}
		if cur.Schema.(*kind).factory.Type() != k.factory.Type() {
			t.Errorf("%s and %s make different types", name, k.aliasOf)
		}
		if !strings.Contains(reg.Doc, "Alias of "+k.aliasOf) || !strings.Contains(cur.Doc, "Also "+name+",") {
			t.Errorf("docs do not name each other:\n%s: %s\n%s: %s", name, reg.Doc, k.aliasOf, cur.Doc)
		}
		if id := collectorID(k, name+".x"); id.String() != typ+"/x" {
			t.Errorf("collector id of %s.x = %s, want %s/x", name, id, typ)
		}
	}
	if aliases < 7 {
		t.Errorf("%d aliases registered, want the 7 renamed types or more", aliases)
	}
}

// TestConnector: span_metrics takes traces and makes metrics; its input
// refuses what it has no connection from, permanently.
func TestConnector(t *testing.T) {
	s := newSink()
	c := start(t, "otelcol.connector.span_metrics", "red", map[string]any{
		"metrics_flush_interval": "50ms",
		"output":                 map[string]any{"metrics": []any{s}},
	})
	c.waitHealthy()
	if err := c.input().ConsumeTraces(context.Background(), fixtureTraces(t)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		for _, md := range s.metrics.AllMetrics() {
			if strings.Contains(metricsJSON(t, md), `"traces.span.metrics.calls"`) {
				return true
			}
		}
		return false
	}, "calls metrics")
	err := c.input().ConsumeLogs(context.Background(), fixtureLogs(t))
	if !consumererror.IsPermanent(err) || !errors.Is(err, dataplane.ErrUnsupportedSignal) {
		t.Errorf("logs into span_metrics: %v, want a permanent unsupported-signal error", err)
	}
}

// pickerConfig is testPicker's config: the pipeline its spans named
// Name go to; every other span goes to the default one ("traces").
type pickerConfig struct {
	Name     string `mapstructure:"name"`
	Pipeline string `mapstructure:"pipeline"`
}

// testPicker is a connector that routes as the routing connector does,
// through the router's pipeline ids: flowlua's named outputs must reach
// the upstream router as those pipelines.
func testPicker() connector.Factory {
	typ := component.MustNewType("test_picker")
	return connector.NewFactory(typ, func() component.Config { return &pickerConfig{} },
		connector.WithTracesToTraces(func(_ context.Context, _ connector.Settings, cfg component.Config, next consumer.Traces) (connector.Traces, error) {
			c := cfg.(*pickerConfig)
			r := next.(connector.TracesRouterAndConsumer)
			var picked pipeline.ID
			if err := picked.UnmarshalText([]byte(c.Pipeline)); err != nil {
				return nil, err
			}
			to, err := r.Consumer(picked)
			if err != nil {
				return nil, err
			}
			rest, err := r.Consumer(pipeline.NewID(pipeline.SignalTraces))
			if err != nil {
				return nil, err
			}
			return &picker{name: c.Name, to: to, rest: rest}, nil
		}, component.StabilityLevelDevelopment))
}

type picker struct {
	component.StartFunc
	component.ShutdownFunc
	name     string
	to, rest consumer.Traces
}

func (*picker) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (p *picker) ConsumeTraces(ctx context.Context, td ptrace.Traces) error {
	picked := ptrace.NewTraces()
	td.ResourceSpans().RemoveIf(func(rs ptrace.ResourceSpans) bool {
		rs.ScopeSpans().RemoveIf(func(ss ptrace.ScopeSpans) bool {
			ss.Spans().RemoveIf(func(sp ptrace.Span) bool {
				if sp.Name() != p.name {
					return false
				}
				sp.CopyTo(picked.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty())
				return true
			})
			return ss.Spans().Len() == 0
		})
		return rs.ScopeSpans().Len() == 0
	})
	if err := p.to.ConsumeTraces(ctx, picked); err != nil {
		return err
	}
	return p.rest.ConsumeTraces(ctx, td)
}

var registerPicker sync.Once

// TestConnectorRoutes: a named output ("traces/<name>") is a pipeline a
// connector's router can pick (as the routing connector's table does);
// the default output is the pipeline named after the signal.
func TestConnectorRoutes(t *testing.T) {
	registerPicker.Do(func() { RegisterConnector(testPicker()) })
	picked, rest := newSink(), newSink()
	c := start(t, "otelcol.connector.test_picker", "r", map[string]any{
		"name":     "I'm a server span",
		"pipeline": "traces/picked",
		"output":   map[string]any{"traces": []any{rest}, "traces/picked": []any{picked}},
	})
	c.waitHealthy()
	in := fixtureTraces(t)
	total := in.SpanCount()
	if err := c.input().ConsumeTraces(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if picked.traces.SpanCount() != 1 || rest.traces.SpanCount() != total-1 {
		t.Errorf("picked %d spans, default %d; want 1 and %d", picked.traces.SpanCount(), rest.traces.SpanCount(), total-1)
	}

	// A named output of a signal the connector does not make is an error.
	_, _, err := decodeFor(t, "otelcol.connector.span_metrics", map[string]any{
		"output": map[string]any{"traces/x": []any{rest}},
	})
	if err == nil || !strings.Contains(err.Error(), "does not produce traces") {
		t.Errorf("span_metrics with traces/x: %v", err)
	}
}
