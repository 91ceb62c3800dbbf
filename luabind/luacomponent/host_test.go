package luacomponent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// sink records what it consumes, of every signal.
type sink struct {
	consumertest.TracesSink
	consumertest.MetricsSink
	consumertest.LogsSink
}

func (s *sink) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (s *sink) spans() int { return s.TracesSink.SpanCount() }

var _ dataplane.Consumer = (*sink)(nil)

// traces returns a batch of n spans named span0..span<n-1>, with the
// attribute env=prod on even spans and env=dev on odd ones.
func traces(n int) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "svc")
	ss := rs.ScopeSpans().AppendEmpty()
	for i := range n {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(fmt.Sprintf("span%d", i))
		sp.SetTraceID([16]byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, byte(i)})
		env := "prod"
		if i%2 == 1 {
			env = "dev"
		}
		sp.Attributes().PutStr("env", env)
		sp.Attributes().PutStr("user.email", fmt.Sprintf("u%d@example.com", i))
	}
	return td
}

func spanAttr(td ptrace.Traces, i int, key string) string {
	v, ok := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(i).Attributes().Get(key)
	if !ok {
		return "<none>"
	}
	return v.AsString()
}

const hostPlugin = `
-- p/plugin.lua --
return { name = "p", version = "1.0.0", components = { "echo", "fail", "loop", "life", "escape", "router" } }
-- p/echo.lua --
local seen = metrics.counter("batches_total", "Batches seen.")
return {
  signals = { "traces", "logs" },
  args = { tag = { type = "string", default = "x" } },
  on_traces = function(batch)
    batch:set_attr("tag", args.tag)
    seen:inc()
    return batch
  end,
  on_logs = function(batch) emit(batch) end,
}
-- p/fail.lua --
return {
  signals = { "traces" },
  on_traces = function(batch)
    batch:set_attr("touched", "yes")
    error("boom")
  end,
}
-- p/loop.lua --
return {
  signals = { "traces" },
  on_traces = function(batch)
    while true do end
  end,
}
-- p/life.lua --
local ticks = 0
return {
  args = { value = "string" },
  exports = { state = "string", ticks = "integer", value = "string" },
  start = function(ctx)
    set_exports{ state = "started " .. ctx.id }
    every("10ms", function()
      ticks = ticks + 1
      set_exports{ ticks = ticks }
    end)
  end,
  update = function(a)
    set_exports{ value = a.value }
  end,
  stop = function()
    log.info("stopping", { ticks = ticks })
  end,
}
-- p/escape.lua --
return {
  args = { what = "string" },
  start = function()
    local attempts = {
      execute = function() return os.execute("true") end,
      open = function() return io.open("/etc/passwd") end,
      debug = function() return debug.getinfo(1) end,
      bytecode = function() return load("\27Lua") end,
      loadfile = function() return loadfile("/etc/passwd") end,
      dump = function() return string.dump(print) end,
    }
    attempts[args.what]()
  end,
}
-- p/router.lua --
return {
  signals = { "traces" },
  output = false,
  args = {
    routes = { type = "list(object)", fields = { attr = "string", equals = "string", output = "output" } },
    default = "output",
  },
  on_traces = function(batch)
    for _, r in ipairs(args.routes) do
      local part = extract(batch, r.attr, r.equals)
      if part then emit(part, r.output) end
    end
    emit(batch, args.default)
  end,
}
`

func TestHostDataPassesByReference(t *testing.T) {
	r := mustLoad(t, hostPlugin, "p", "echo", map[string]any{})
	e := newEnv("p.echo.a")
	out := &sink{}
	c := build(t, r, e, map[string]any{"tag": "t1", "output": map[string]any{"traces": []any{out}, "logs": []any{out}}})
	run(t, c)

	input := e.lastExports()["input"].(dataplane.Consumer)
	if !input.Capabilities().MutatesData {
		t.Error("the input of a Lua component must declare that it mutates data")
	}
	td := traces(3)
	if err := input.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	got := out.AllTraces()
	if len(got) != 1 || got[0] != td {
		t.Fatalf("the output got %d batches, want the input batch itself", len(got))
	}
	if spanAttr(td, 2, "tag") != "t1" {
		t.Errorf("tag = %s", spanAttr(td, 2, "tag"))
	}
	ld := plog.NewLogs()
	ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	if err := input.ConsumeLogs(context.Background(), ld); err != nil {
		t.Fatal(err)
	}
	if got := out.AllLogs(); len(got) != 1 || got[0] != ld {
		t.Error("emit did not forward the logs batch itself")
	}
	if err := input.ConsumeMetrics(context.Background(), pmetric.NewMetrics()); !errors.Is(err, dataplane.ErrUnsupportedSignal) {
		t.Errorf("metrics: got %v, want ErrUnsupportedSignal", err)
	}

	// Arguments change in place.
	a, _ := r.DecodeArgs(map[string]any{"tag": "t2", "output": map[string]any{"traces": []any{out}}})
	if err := c.Update(a); err != nil {
		t.Fatal(err)
	}
	td2 := traces(1)
	_ = input.ConsumeTraces(context.Background(), td2)
	if spanAttr(td2, 0, "tag") != "t2" {
		t.Errorf("after update tag = %s", spanAttr(td2, 0, "tag"))
	}
	// Metrics are registered once Run runs.
	eventually(t, "p_echo_batches_total = 2", func() bool { return metricValue(t, e, "p_echo_batches_total", nil) == 2 })
}

func TestHostErrorMarksUnhealthy(t *testing.T) {
	for _, onError := range []string{"pass", "drop"} {
		t.Run(onError, func(t *testing.T) {
			r := mustLoad(t, hostPlugin, "p", "fail", map[string]any{})
			e := newEnv("p.fail.a")
			out := &sink{}
			c := build(t, r, e, map[string]any{"on_error": onError, "output": map[string]any{"traces": []any{out}}})
			run(t, c)
			input := e.lastExports()["input"].(dataplane.Consumer)
			if err := input.ConsumeTraces(context.Background(), traces(2)); err != nil {
				t.Fatalf("a Lua error is no error of the pipeline: %v", err)
			}
			h := c.CurrentHealth()
			if h.Health != component.HealthUnhealthy || !strings.Contains(h.Message, "on_traces: ") ||
				!strings.Contains(h.Message, "p/fail.lua:5: boom") || !strings.Contains(h.Message, "stack traceback:") {
				t.Errorf("health %v %q", h.Health, h.Message)
			}
			want := 1
			if onError == "drop" {
				want = 0
			}
			if n := len(out.AllTraces()); n != want {
				t.Errorf("output got %d batches, want %d", n, want)
			}
			eventually(t, "errors_total = 1", func() bool {
				return metricValue(t, e, "flowlua_lua_errors_total", map[string]string{"hook": "on_traces", "reason": "error"}) == 1
			})
			if !strings.Contains(e.logs.String(), `msg="Lua code failed" component_id=p.fail.a hook=on_traces reason=error`) {
				t.Errorf("logs:\n%s", e.logs)
			}
		})
	}
}

func TestHostTimeoutCancels(t *testing.T) {
	r := mustLoad(t, hostPlugin, "p", "loop", map[string]any{})
	e := newEnv("p.loop.a")
	out := &sink{}
	c := build(t, r, e, map[string]any{"timeout": "50ms", "output": map[string]any{"traces": []any{out}}})
	run(t, c)
	input := e.lastExports()["input"].(dataplane.Consumer)
	start := time.Now()
	for range 2 { // the state is usable after a cancelled call
		if err := input.ConsumeTraces(context.Background(), traces(1)); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("two cancelled calls took %s", d)
	}
	h := c.CurrentHealth()
	if h.Health != component.HealthUnhealthy || !strings.Contains(h.Message, "on_traces: exceeded its time limit of 50ms and was cancelled") {
		t.Errorf("health %v %q", h.Health, h.Message)
	}
	if n := len(out.AllTraces()); n != 2 {
		t.Errorf("output got %d batches, want 2 passed on", n)
	}
	eventually(t, "two timeouts counted", func() bool {
		return metricValue(t, e, "flowlua_lua_errors_total", map[string]string{"hook": "on_traces", "reason": "timeout"}) == 2
	})
}

func TestHostLifecycle(t *testing.T) {
	r := mustLoad(t, hostPlugin, "p", "life", map[string]any{})
	e := newEnv("p.life.a")
	c := build(t, r, e, map[string]any{"value": "v1"})
	if got := fmt.Sprint(e.lastExports()); got != "map[state: ticks:0 value:]" {
		t.Errorf("exports at build: %s", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(ctx)
	}()
	eventually(t, "start and three ticks", func() bool {
		x := e.lastExports()
		return x["state"] == "started p.life.a" && x["ticks"].(int64) >= 3
	})
	a, _ := r.DecodeArgs(map[string]any{"value": "v2"})
	if err := c.Update(a); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the update", func() bool { return e.lastExports()["value"] == "v2" })
	cancel()
	<-done
	if !strings.Contains(e.logs.String(), `msg=stopping component_id=p.life.a ticks=`) {
		t.Errorf("stop did not log:\n%s", e.logs)
	}
	if h := c.CurrentHealth(); h.Health != component.HealthHealthy {
		t.Errorf("health %v %q", h.Health, h.Message)
	}
}

func TestHostSandbox(t *testing.T) {
	tests := map[string]string{
		"execute":  "os is not available in the sandbox",
		"open":     "io is not available in the sandbox",
		"debug":    "debug is not available in the sandbox",
		"bytecode": "load: binary chunks are not allowed in the sandbox",
		"loadfile": "loadfile is not available in the sandbox",
		"dump":     "string.dump is not available in the sandbox",
	}
	for what, want := range tests {
		t.Run(what, func(t *testing.T) {
			r := mustLoad(t, hostPlugin, "p", "escape", map[string]any{})
			e := newEnv("p.escape.a")
			c := build(t, r, e, map[string]any{"what": what})
			run(t, c)
			eventually(t, "start to fail", func() bool { return c.CurrentHealth().Health == component.HealthUnhealthy })
			if h := c.CurrentHealth(); !strings.Contains(h.Message, want) {
				t.Errorf("health %q, want %q", h.Message, want)
			}
		})
	}
}

func TestHostGrants(t *testing.T) {
	r := mustLoad(t, `
-- g/plugin.lua --
return { name = "g", version = "1", components = { "clock" }, grants = { "os.time" } }
-- g/clock.lua --
return {
  exports = { now = "number" },
  start = function()
    set_exports{ now = os.time() }
    os.execute("true")
  end,
}
`, "g", "clock", map[string]any{"grants": []any{"os.time"}})
	e := newEnv("g.clock.a")
	c := build(t, r, e, map[string]any{})
	run(t, c)
	eventually(t, "start to fail", func() bool { return c.CurrentHealth().Health == component.HealthUnhealthy })
	if now := e.lastExports()["now"].(float64); now < 1e9 {
		t.Errorf("os.time() = %v", now)
	}
	if h := c.CurrentHealth(); !strings.Contains(h.Message, "os.execute is not available in the sandbox (granted: os.time)") {
		t.Errorf("health %q", h.Message)
	}
}

func TestHostConcurrency(t *testing.T) {
	r := mustLoad(t, hostPlugin, "p", "echo", map[string]any{})
	e := newEnv("p.echo.a")
	out := &sink{}
	c := build(t, r, e, map[string]any{"concurrency": 4.0, "output": map[string]any{"traces": []any{out}}})
	run(t, c)
	if n := len(c.pool.states()); n != 4 {
		t.Fatalf("%d states, want 4", n)
	}
	input := e.lastExports()["input"].(dataplane.Consumer)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if err := input.ConsumeTraces(context.Background(), traces(2)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := out.spans(); n != 800 {
		t.Errorf("%d spans out, want 800", n)
	}
	for _, n := range []float64{1, 6} {
		a, _ := r.DecodeArgs(map[string]any{"concurrency": n, "output": map[string]any{"traces": []any{out}}})
		if err := c.Update(a); err != nil {
			t.Fatal(err)
		}
		if got := len(c.pool.states()); got != int(n) {
			t.Errorf("%d states after update, want %v", got, n)
		}
		if err := input.ConsumeTraces(context.Background(), traces(1)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHostExtractAndEmit(t *testing.T) {
	r := mustLoad(t, hostPlugin, "p", "router", map[string]any{})
	e := newEnv("p.router.a")
	prod, dev, rest := &sink{}, &sink{}, &sink{}
	c := build(t, r, e, map[string]any{
		"routes": []any{
			map[string]any{"attr": "env", "equals": "prod", "output": map[string]any{"traces": []any{prod}}},
			map[string]any{"attr": "service.name", "equals": "other", "output": map[string]any{"traces": []any{dev}}},
		},
		"default": map[string]any{"traces": []any{rest}},
	})
	run(t, c)
	input := e.lastExports()["input"].(dataplane.Consumer)
	if err := input.ConsumeTraces(context.Background(), traces(5)); err != nil {
		t.Fatal(err)
	}
	if prod.spans() != 3 || dev.spans() != 0 || rest.spans() != 2 {
		t.Errorf("prod %d, dev %d, rest %d spans; want 3, 0, 2", prod.spans(), dev.spans(), rest.spans())
	}
	p := prod.AllTraces()[0]
	if v, _ := p.ResourceSpans().At(0).Resource().Attributes().Get("service.name"); v.Str() != "svc" {
		t.Error("the extracted batch lost its resource")
	}
	if h := c.CurrentHealth(); h.Health != component.HealthHealthy {
		t.Errorf("health %v %q", h.Health, h.Message)
	}
}

func TestHostBatchInvalidAfterCallback(t *testing.T) {
	r := mustLoad(t, `
-- k/plugin.lua --
return { name = "k", version = "1", components = { "keep" } }
-- k/keep.lua --
local kept
return {
  signals = { "traces" },
  on_traces = function(batch)
    if kept then kept:set_attr("late", "yes") end
    kept = batch
    return batch
  end,
}
`, "k", "keep", map[string]any{})
	e := newEnv("k.keep.a")
	out := &sink{}
	c := build(t, r, e, map[string]any{"output": map[string]any{"traces": []any{out}}})
	run(t, c)
	input := e.lastExports()["input"].(dataplane.Consumer)
	first := traces(1)
	_ = input.ConsumeTraces(context.Background(), first)
	_ = input.ConsumeTraces(context.Background(), traces(1))
	if spanAttr(first, 0, "late") != "<none>" {
		t.Error("a batch kept from an earlier callback could still be written")
	}
	if h := c.CurrentHealth(); !strings.Contains(h.Message, "batch used after its callback returned") {
		t.Errorf("health %q", h.Message)
	}
}

func TestHostSetExports(t *testing.T) {
	r := mustLoad(t, `
-- x/plugin.lua --
return { name = "x", version = "1", components = { "exp" } }
-- x/exp.lua --
set_exports{ count = 1 }
return {
  args = { bad = "string" },
  exports = { count = "integer", name = { type = "string", default = "none" } },
  start = function()
    if args.bad == "type" then set_exports{ count = "many" } end
    if args.bad == "name" then set_exports{ cuont = 2 } end
    set_exports{ count = 2 }
  end,
}
`, "x", "exp", map[string]any{})
	for bad, want := range map[string]string{
		"":     "",
		"type": "set_exports: count: expected integer, got string",
		"name": `set_exports: unknown field "cuont" (did you mean "count"?)`,
	} {
		e := newEnv("x.exp.a")
		c := build(t, r, e, map[string]any{"bad": bad})
		if got := fmt.Sprint(e.lastExports()); got != "map[count:1 name:none]" {
			t.Errorf("exports at build %s", got)
		}
		run(t, c)
		if want == "" {
			eventually(t, "start", func() bool { return e.lastExports()["count"] == int64(2) })
			continue
		}
		eventually(t, "start to fail", func() bool { return c.CurrentHealth().Health == component.HealthUnhealthy })
		if h := c.CurrentHealth(); !strings.Contains(h.Message, want) {
			t.Errorf("%s: health %q, want %q", bad, h.Message, want)
		}
	}
}

const forwardPlugin = `
-- p/forward.lua --
return {
  signals = { "traces" },
  output = false,
  args = { to = { type = "consumer", required = true } },
  on_traces = function(batch)
    emit(batch, args.to)
  end,
}
`

// What a Lua component emits to a consumer argument goes through its tap,
// as what it emits to an output does: counted per consumer and shown to
// live-debugging viewers. So do the outputs the engine does not tap
// (those in a list argument).
func TestHostEmitThroughTap(t *testing.T) {
	r := mustLoad(t, forwardPlugin, "p", "forward", map[string]any{})
	e := newEnv("p.forward.a")
	e.opts.Tap = dataplane.NewTap(nil)
	out := &sink{}
	c := build(t, r, e, map[string]any{"to": out})
	run(t, c)
	v, err := e.opts.Tap.Watch(dataplane.ViewOptions{Buffer: 4})
	if err != nil {
		t.Fatal(err)
	}
	input := e.lastExports()["input"].(dataplane.Consumer)
	td := traces(3)
	if err := input.ConsumeTraces(context.Background(), td); err != nil {
		t.Fatal(err)
	}
	if got := out.AllTraces(); len(got) != 1 || got[0] != td {
		t.Fatalf("the consumer got %d batches, want the input batch itself", len(got))
	}
	if n := e.opts.Tap.Items(dataplane.Traces, out); n != 3 {
		t.Errorf("items counted for the consumer: %d, want 3", n)
	}
	select {
	case s := <-v.Samples():
		if s.Signal != dataplane.Traces || s.Items != 3 || s.Data.(ptrace.Traces).SpanCount() != 3 {
			t.Errorf("sample %+v", s)
		}
	default:
		t.Error("the viewer saw nothing")
	}

	r = mustLoad(t, hostPlugin, "p", "router", map[string]any{})
	e = newEnv("p.router.a")
	e.opts.Tap = dataplane.NewTap(nil)
	prod, rest := &sink{}, &sink{}
	c = build(t, r, e, map[string]any{
		"routes":  []any{map[string]any{"attr": "env", "equals": "prod", "output": map[string]any{"traces": []any{prod}}}},
		"default": map[string]any{"traces": []any{rest}},
	})
	run(t, c)
	input = e.lastExports()["input"].(dataplane.Consumer)
	if err := input.ConsumeTraces(context.Background(), traces(5)); err != nil {
		t.Fatal(err)
	}
	if p, r := e.opts.Tap.Items(dataplane.Traces, prod), e.opts.Tap.Items(dataplane.Traces, rest); p != 3 || r != 2 {
		t.Errorf("items counted: prod %d, rest %d; want 3, 2", p, r)
	}
}
