package luacomponent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/internal/racedetect"
)

// memPlugin's component runs the bomb named by its mode argument on a
// batch of more than one span and passes single spans on.
const memPlugin = `
-- m/plugin.lua --
return { name = "m", version = "1.0.0", components = { "bomb", "ticker" } }
-- m/bomb.lua --
local bombs = {
  concat = function() local s = "x" while true do s = s .. s end end,
  concat_growth = function() local s, p = "", string.rep("x", 1e6) while true do s = s .. p end end,
  table_concat = function() local t = { string.rep("z", 1e6) } while true do t = { table.concat(t), table.concat(t) } end end,
  table = function() local t = {} while true do t[#t + 1] = {} end end,
  global_table = function() kept = rawget(_G, "kept") or {} while true do kept[#kept + 1] = { #kept } end end,
  rep = function() local t = {} while true do t[#t + 1] = string.rep("x", 60 * 2^20) end end,
  format = function() local s = string.rep("x", 40 * 2^20) return string.format("%s%s", s, s) end,
  gsub = function() local s = string.rep("x", 1e6) return (s:gsub("x", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy")) end,
  recursion = function() local function f(n) return 1 + f(n + 1) end return f(1) end,
  leak = function() leaked = rawget(_G, "leaked") or {} leaked[#leaked + 1] = string.rep("l", 2^20) .. #leaked end,
}
return {
  signals = { "traces" },
  args = { mode = { type = "string", required = true } },
  on_traces = function(batch)
    if batch:span_count() > 1 then bombs[args.mode]() end
    return batch
  end,
}
`

// tickerFile is a component whose start counts and starts a timer, and
// whose batches of more than one span overrun the memory limit at once:
// string.rep refuses the 128 MiB before building it, so the test costs
// the same with and without the race detector.
const tickerFile = `
-- m/ticker.lua --
local starts = metrics.counter("starts_total", "Calls of start.")
local ticks = metrics.counter("ticks_total", "Timer ticks.")
return {
  signals = { "traces" },
  start = function() starts:inc() every("10ms", function() ticks:inc() end) end,
  on_traces = function(batch)
    if batch:span_count() > 1 then local s = string.rep("x", 2^27) end
    return batch
  end,
}
`

// TestMemoryRebuildsPrimary checks that a rebuilt primary state runs
// start again, so that its timers live on in the new state.
func TestMemoryRebuildsPrimary(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	r := mustLoad(t, memPlugin+tickerFile, "m", "ticker", map[string]any{})
	e := newEnv("m.ticker.a")
	c := build(t, r, e, map[string]any{"timeout": "20s", "output": map[string]any{"traces": []any{&sink{}}}})
	run(t, c)
	eventually(t, "a tick", func() bool { return metricValue(t, e, "m_ticker_ticks_total", nil) > 0 })
	input := e.lastExports()["input"].(dataplane.Consumer)
	if err := input.ConsumeTraces(context.Background(), traces(2)); err != nil {
		t.Fatal(err)
	}
	if h := c.CurrentHealth(); h.Health != component.HealthUnhealthy || !strings.Contains(h.Message, "memory limit of 64 MiB exceeded") {
		t.Fatalf("health %v %q\n%s", h.Health, h.Message, e.logs.String())
	}
	eventually(t, "start again", func() bool { return metricValue(t, e, "m_ticker_starts_total", nil) == 2 })
	before := metricValue(t, e, "m_ticker_ticks_total", nil)
	eventually(t, "ticks of the new state", func() bool { return metricValue(t, e, "m_ticker_ticks_total", nil) > before+2 })
}

// TestMemoryBombs checks each way a callback can allocate without bound:
// the call fails with the memory limit's error (stack overflow for
// recursion), the component turns unhealthy, its state is rebuilt, and
// the next batch goes through and makes it healthy again.
func TestMemoryBombs(t *testing.T) {
	if racedetect.Enabled {
		t.Skip("the race detector checks every byte these bombs copy (a 64 MiB concatenation takes 30 s instead of 2); make test runs this test without it")
	}
	if testing.Short() {
		t.Skip("allocates hundreds of MiB")
	}
	r := mustLoad(t, memPlugin, "m", "bomb", map[string]any{})
	for _, tt := range []struct{ mode, want string }{
		{"concat", "on_traces: memory limit of 64 MiB exceeded; the Lua state was discarded and rebuilt"},
		{"concat_growth", "memory limit of 64 MiB exceeded"},
		{"table_concat", "memory limit of 64 MiB exceeded"},
		{"table", "memory limit of 64 MiB exceeded"},
		{"global_table", "memory limit of 64 MiB exceeded"},
		{"rep", "memory limit of 64 MiB exceeded"},
		{"format", "memory limit of 64 MiB exceeded: string.format would build 80 MiB"},
		{"gsub", "memory limit of 64 MiB exceeded: string.gsub would build"},
		{"recursion", "stack overflow"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			e := newEnv("m.bomb.a")
			out := &sink{}
			c := build(t, r, e, map[string]any{"mode": tt.mode, "timeout": "20s", "output": map[string]any{"traces": []any{out}}})
			run(t, c)
			input := e.lastExports()["input"].(dataplane.Consumer)
			start := time.Now()
			if err := input.ConsumeTraces(context.Background(), traces(2)); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			h := c.CurrentHealth()
			if h.Health != component.HealthUnhealthy || !strings.Contains(h.Message, tt.want) {
				t.Fatalf("health %v %q, want unhealthy with %q", h.Health, h.Message, tt.want)
			}
			t.Logf("stopped after %s: %s", took.Round(time.Millisecond), strings.SplitN(h.Message, "\n", 2)[0])
			if err := input.ConsumeTraces(context.Background(), traces(1)); err != nil {
				t.Fatal(err)
			}
			if h := c.CurrentHealth(); h.Health != component.HealthHealthy {
				t.Errorf("after a good batch: health %v %q", h.Health, h.Message)
			}
			if n := out.spans(); n != 3 {
				t.Errorf("output got %d spans, want 3 (the failed batch passed on, then the good one)", n)
			}
			if tt.mode != "recursion" {
				eventually(t, "the error counted with reason memory", func() bool {
					return metricValue(t, e, "flowlua_lua_errors_total", map[string]string{"hook": "on_traces", "reason": "memory"}) == 1
				})
			}
		})
	}
}

// TestMemoryLeakAcrossCalls checks that a state that grows a little in
// each of many short calls is caught by the measure after each cycle of
// the garbage collector.
func TestMemoryLeakAcrossCalls(t *testing.T) {
	r := mustLoad(t, memPlugin, "m", "bomb", map[string]any{})
	e := newEnv("m.bomb.a")
	out := &sink{}
	c := build(t, r, e, map[string]any{"mode": "leak", "memory_limit": "8MiB", "output": map[string]any{"traces": []any{out}}})
	run(t, c)
	input := e.lastExports()["input"].(dataplane.Consumer)
	for i := range 500 {
		if err := input.ConsumeTraces(context.Background(), traces(2)); err != nil {
			t.Fatal(err)
		}
		if h := c.CurrentHealth(); h.Health == component.HealthUnhealthy {
			if !strings.Contains(h.Message, "memory limit of 8 MiB exceeded") {
				t.Fatalf("health %q", h.Message)
			}
			// Measured after each GC cycle: how late depends on the heap
			// the rest of the test binary keeps.
			t.Logf("caught after %d calls", i+1)
			return
		}
	}
	t.Fatal("a state leaking 1 MiB a call was not caught in 500 calls")
}

// TestMemoryLimitArgument checks the decoding of memory_limit.
func TestMemoryLimitArgument(t *testing.T) {
	r := mustLoad(t, memPlugin, "m", "bomb", map[string]any{})
	for _, tt := range []struct{ value, want string }{
		{"64MiB", ""},
		{"1 GiB", ""},
		{"lots", `memory_limit: invalid size "lots"`},
		{"1KiB", "memory_limit: at least 1 MiB, got 1KiB"},
	} {
		_, err := r.DecodeArgs(map[string]any{"mode": "x", "memory_limit": tt.value})
		if got := diagnostics(err); (tt.want == "" && got != "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.value, got, tt.want)
		}
	}
}
