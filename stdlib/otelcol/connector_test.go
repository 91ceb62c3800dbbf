package otelcol

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/consumer/consumererror"

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
	if aliases < 8 {
		t.Errorf("%d aliases registered, want the 8 renamed types or more", aliases)
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

// TestConnectorRoutes: a named output ("traces/<name>") is a pipeline the
// routing connector's table can pick; the default output is the pipeline
// named after the signal.
func TestConnectorRoutes(t *testing.T) {
	picked, rest := newSink(), newSink()
	c := start(t, "otelcol.connector.routing", "r", map[string]any{
		"default_pipelines": []any{"traces"},
		"table": []any{map[string]any{
			"condition": `span.name == "I'm a server span"`,
			"pipelines": []any{"traces/picked"},
		}},
		"output": map[string]any{"traces": []any{rest}, "traces/picked": []any{picked}},
	})
	c.waitHealthy()
	if err := c.input().ConsumeTraces(context.Background(), fixtureTraces(t)); err != nil {
		t.Fatal(err)
	}
	if picked.traces.SpanCount() != 1 || rest.traces.SpanCount() != 0 {
		t.Errorf("picked %d spans, default %d; want 1 and 0", picked.traces.SpanCount(), rest.traces.SpanCount())
	}

	// A named output of a signal the connector does not make is an error.
	_, _, err := decodeFor(t, "otelcol.connector.span_metrics", map[string]any{
		"output": map[string]any{"traces/x": []any{rest}},
	})
	if err == nil || !strings.Contains(err.Error(), "does not produce traces") {
		t.Errorf("span_metrics with traces/x: %v", err)
	}
}
