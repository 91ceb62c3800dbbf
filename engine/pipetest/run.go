package pipetest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// Options say what a case runs against.
type Options struct {
	// Script is the loaded pipeline, Registry what it is checked against
	// (built-in components and its plugins').
	Script   *script.Script
	Registry *component.Registry
	// Services returns fresh services for one case's graph; nil for none.
	Services func() ([]service.Service, error)
	// Logger receives the graph's logs; nil discards them.
	Logger *slog.Logger
	// Timeout bounds feeding the input and the shutdown (default 10s).
	Timeout time.Duration
}

// healthWait is how long health expectations are polled.
const healthWait = time.Second

// Run runs one case (see the package doc) and returns its result.
func Run(ctx context.Context, opts Options, c *Case) Result {
	start := time.Now()
	r := Result{Case: c}
	r.Failures = run(ctx, opts, c)
	r.Duration = time.Since(start)
	return r
}

func fail(pos script.Pos, format string, args ...any) Failure {
	return Failure{Pos: pos, Message: fmt.Sprintf(format, args...)}
}

func run(ctx context.Context, opts Options, c *Case) []Failure {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	var signals []dataplane.Signal
	for _, b := range c.Input {
		if !slices.Contains(signals, b.Signal) {
			signals = append(signals, b.Signal)
		}
	}
	slices.Sort(signals)
	outputs := make([]string, len(c.Expect))
	for i, o := range c.Expect {
		outputs[i] = o.ID
	}
	iso, err := Isolate(opts.Script, c.Target, outputs, signals)
	if err != nil {
		return []Failure{fail(c.Pos, "%v", err)}
	}
	// Decode every input before anything starts.
	batches := make([]any, len(c.Input))
	for i, b := range c.Input {
		v, err := unmarshal(b.Signal, b.JSON)
		if err != nil {
			return []Failure{fail(b.Pos, "input %s: %v", b.Signal, err)}
		}
		batches[i] = v
	}

	reg := opts.Registry
	if reg == nil {
		reg = component.DefaultRegistry
	}
	reg = reg.Clone()
	cs := &components{captures: map[string]*capture{}}
	if err := cs.register(reg); err != nil {
		return []Failure{fail(c.Pos, "%v", err)}
	}
	var svcs []service.Service
	if opts.Services != nil {
		if svcs, err = opts.Services(); err != nil {
			return []Failure{fail(c.Pos, "services: %v", err)}
		}
	}
	dataPath, err := os.MkdirTemp("", "flowlua-test-")
	if err != nil {
		return []Failure{fail(c.Pos, "%v", err)}
	}
	defer os.RemoveAll(dataPath)
	ctrl := engine.NewController(engine.ControllerOptions{
		Logger:   opts.Logger,
		Registry: reg,
		Services: svcs,
		DataPath: dataPath,
	})
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	stop := func() {
		cancel()
		select {
		case <-done:
		case <-time.After(opts.Timeout):
		}
	}
	if err := ctrl.Apply(iso.Script); err != nil {
		// The graph never started: nothing to stop but the services.
		go func() { _ = ctrl.Run(runCtx); close(done) }()
		stop()
		return []Failure{fail(c.Pos, "the isolated pipeline does not start:\n%v", err)}
	}
	go func() { _ = ctrl.Run(runCtx); close(done) }()

	var failures []Failure
	feedErr := feedAll(ctx, cs, c.Input, batches, opts.Timeout)
	switch {
	case c.Error == nil && feedErr != nil:
		failures = append(failures, fail(c.Pos, "%s returned an error: %v", c.Target, feedErr))
	case c.Error != nil && feedErr == nil:
		failures = append(failures, fail(c.Pos, "%s returned no error, want one %s", c.Target, c.Error.describe()))
	case c.Error != nil && !c.Error.matches(feedErr.Error()):
		failures = append(failures, fail(c.Pos, "%s returned the error %q, want one %s", c.Target, feedErr.Error(), c.Error.describe()))
	}
	failures = append(failures, checkHealth(ctrl, iso, c.Health)...)
	stop()
	select {
	case <-done:
	default:
		failures = append(failures, fail(c.Pos, "the graph did not stop within %s", opts.Timeout))
		return failures
	}

	byOriginal := map[string]*capture{}
	for cid, id := range iso.Captures {
		byOriginal[id] = cs.captures[cid]
	}
	for _, o := range c.Expect {
		failures = append(failures, checkOutput(o, byOriginal[o.ID])...)
	}
	return failures
}

// feedAll sends each batch through the feeder, stopping at the first
// error.
func feedAll(ctx context.Context, cs *components, input []Batch, batches []any, timeout time.Duration) error {
	cs.mu.Lock()
	f := cs.feed
	cs.mu.Unlock()
	if f == nil {
		return fmt.Errorf("the feeder was not built")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := f.consumer()
	for i, b := range batches {
		var err error
		switch v := b.(type) {
		case ptrace.Traces:
			err = out.ConsumeTraces(ctx, v)
		case pmetric.Metrics:
			err = out.ConsumeMetrics(ctx, v)
		case plog.Logs:
			err = out.ConsumeLogs(ctx, v)
		}
		if err != nil {
			return fmt.Errorf("batch %d (%s): %w", i+1, input[i].Signal, err)
		}
	}
	return nil
}

// checkHealth polls the components' health until every expectation holds
// or healthWait passes, and reports those that do not hold.
func checkHealth(ctrl *engine.Controller, iso *Isolated, want []Health) []Failure {
	if len(want) == 0 {
		return nil
	}
	deadline := time.Now().Add(healthWait)
	for {
		var failures []Failure
		for _, h := range want {
			info, err := ctrl.GetComponent(h.ID)
			if err != nil {
				failures = append(failures, fail(h.Pos, "health of %s: no such component in the isolated pipeline (kept: %v)", h.ID, iso.Kept))
				continue
			}
			got := info.Health.Health.String()
			if got != h.State {
				failures = append(failures, fail(h.Pos, "health of %s: %s (%s), want %s", h.ID, got, info.Health.Message, h.State))
				continue
			}
			if h.Message != nil && !h.Message.matches(info.Health.Message) {
				failures = append(failures, fail(h.Pos, "health message of %s: %q, want one %s", h.ID, info.Health.Message, h.Message.describe()))
			}
		}
		if len(failures) == 0 || time.Now().After(deadline) {
			return failures
		}
		time.Sleep(10 * time.Millisecond)
	}
}
