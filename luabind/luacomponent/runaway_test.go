package luacomponent

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// runawayPlugin's component runs the runaway named by its mode argument
// on a batch of more than one span and passes single spans on.
const runawayPlugin = `
-- r/plugin.lua --
return { name = "r", version = "1.0.0", components = { "run" } }
-- r/run.lua --
local function tail(n) return tail(n + 1) end
local function handler(e) return handler(e) end
local runaways = {
  tail = function() return tail(0) end,
  xpcall_tail = function() xpcall(function() error("boom") end, handler) end,
  pcall_loop = function() pcall(function() while true do end end) end,
  pattern = function() return string.find(string.rep("a", 30) .. "b", string.rep("a?", 30) .. string.rep("a", 30)) end,
  nested_pattern = function() return string.match(string.rep("x", 100000), "(.-)(.-)(.-)y") end,
  gsub_pattern = function() return string.gsub(string.rep("a", 30) .. "b", string.rep("a?", 30) .. string.rep("a", 30), "") end,
  sort = function() local t = {} for i = 1, 1000 do t[i] = i end table.sort(t, function(a, b) while true do end end) end,
}
return {
  signals = { "traces" },
  args = { mode = { type = "string", required = true } },
  on_traces = function(batch)
    if batch:span_count() > 1 then runaways[args.mode]() end
    return batch
  end,
}
`

// TestRunawayCallbacks checks the callbacks that used to run far past
// their time limit or allocate gigabytes doing so: each is cancelled at
// its time limit in bounded memory, the component turns unhealthy with
// the reason, and the next batch goes through.
func TestRunawayCallbacks(t *testing.T) {
	r := mustLoad(t, runawayPlugin, "r", "run", map[string]any{})
	for _, mode := range []string{"tail", "xpcall_tail", "pcall_loop", "pattern", "nested_pattern", "gsub_pattern", "sort"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv("r.run.a")
			out := &sink{}
			c := build(t, r, e, map[string]any{"mode": mode, "timeout": "200ms", "output": map[string]any{"traces": []any{out}}})
			run(t, c)
			input := e.lastExports()["input"].(dataplane.Consumer)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			if err := input.ConsumeTraces(context.Background(), traces(2)); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			h := c.CurrentHealth()
			const want = "on_traces: exceeded its time limit of 200ms and was cancelled"
			if h.Health != component.HealthUnhealthy || !strings.Contains(h.Message, want) {
				t.Fatalf("health %v %q, want unhealthy with %q", h.Health, h.Message, want)
			}
			if took > 2*time.Second {
				t.Errorf("took %s against a limit of 200ms", took)
			}
			if alloc > 64<<20 {
				t.Errorf("the call allocated %d MiB", alloc>>20)
			}
			if len(h.Message) > 4096 {
				t.Errorf("the health message is %d bytes", len(h.Message))
			}
			t.Logf("cancelled after %s, %d KiB allocated: %s", took.Round(time.Millisecond), alloc>>10, strings.SplitN(h.Message, "\n", 2)[0])
			if err := input.ConsumeTraces(context.Background(), traces(1)); err != nil {
				t.Fatal(err)
			}
			if h := c.CurrentHealth(); h.Health != component.HealthHealthy {
				t.Errorf("after a good batch: health %v %q", h.Health, h.Message)
			}
			if n := out.spans(); n != 3 {
				t.Errorf("output got %d spans, want 3 (the failed batch passed on, then the good one)", n)
			}
		})
	}
}
