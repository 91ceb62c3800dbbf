package pipetest

import (
	"context"
	"errors"
	"sync"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// components are the instances of the runner's own components in one
// case's graph.
type components struct {
	mu       sync.Mutex
	feed     *feed
	captures map[string]*capture // by capture id
}

// register adds the feeder and capture registrations to reg; their Build
// records the instances in cs.
func (cs *components) register(reg *component.Registry) error {
	err := reg.Add(component.Registration{
		Name: feedName,
		Args: feedArgs{},
		Doc:  "Feeds a test case's input to its target.",
		Build: func(_ component.Options, args component.Arguments) (component.Component, error) {
			f := &feed{}
			_ = f.Update(args)
			cs.mu.Lock()
			cs.feed = f
			cs.mu.Unlock()
			return f, nil
		},
	})
	if err != nil {
		return err
	}
	return reg.Add(component.Registration{
		Name:    captureName,
		Args:    captureArgs{},
		Exports: dataplane.Exports{},
		Doc:     "Records what reaches an output of a test case.",
		Build: func(opts component.Options, _ component.Arguments) (component.Component, error) {
			c := &capture{}
			opts.OnStateChange(dataplane.Exports{Input: c})
			cs.mu.Lock()
			cs.captures[opts.ID] = c
			cs.mu.Unlock()
			return c, nil
		},
	})
}

type feedArgs struct {
	// To is not named output: the loader checks the signals of outputs
	// (a case may feed a signal the target refuses, to see it refused).
	To dataplane.Output `lua:"to" doc:"the target's input"`
}

// feed sends the case's input to its output, synchronously.
type feed struct {
	mu  sync.Mutex
	out dataplane.Consumer
}

func (f *feed) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (f *feed) Update(args component.Arguments) error {
	a, ok := args.(feedArgs)
	if !ok {
		return errors.New("feed: unexpected arguments")
	}
	f.mu.Lock()
	f.out = dataplane.FanOut(a.To)
	f.mu.Unlock()
	return nil
}

func (f *feed) consumer() dataplane.Consumer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out
}

type captureArgs struct{}

// capture records copies of the batches that reach it.
type capture struct {
	mu      sync.Mutex
	traces  []ptrace.Traces
	metrics []pmetric.Metrics
	logs    []plog.Logs
}

var _ dataplane.Consumer = (*capture)(nil)

func (c *capture) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (c *capture) Update(component.Arguments) error { return nil }

func (c *capture) Capabilities() consumer.Capabilities { return consumer.Capabilities{} }

func (c *capture) ConsumeTraces(_ context.Context, td ptrace.Traces) error {
	cp := ptrace.NewTraces()
	td.CopyTo(cp)
	c.mu.Lock()
	c.traces = append(c.traces, cp)
	c.mu.Unlock()
	return nil
}

func (c *capture) ConsumeMetrics(_ context.Context, md pmetric.Metrics) error {
	cp := pmetric.NewMetrics()
	md.CopyTo(cp)
	c.mu.Lock()
	c.metrics = append(c.metrics, cp)
	c.mu.Unlock()
	return nil
}

func (c *capture) ConsumeLogs(_ context.Context, ld plog.Logs) error {
	cp := plog.NewLogs()
	ld.CopyTo(cp)
	c.mu.Lock()
	c.logs = append(c.logs, cp)
	c.mu.Unlock()
	return nil
}
