package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// Components and services registered only in the test binary, so that
// scripts can observe the engine: each appends its lifecycle events to a
// file, one line per event.

func init() {
	component.Register(component.Registration{
		Name:    "testing.recorder",
		Args:    recorderArgs{},
		Exports: recorderExports{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			a := args.(recorderArgs)
			r := &recorder{opts: opts, args: a}
			r.event("build value=%s", a.Value)
			opts.OnStateChange(recorderExports{Value: a.Value})
			return r, nil
		},
	})
	component.Register(component.Registration{
		Name:          "testing.svcuser",
		Args:          recorderArgs{},
		Exports:       recorderExports{},
		NeedsServices: []string{"testsvc_a"},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			a := args.(recorderArgs)
			r := &recorder{opts: opts, args: a}
			r.event("build")
			for _, name := range []string{"testsvc_a", "testsvc_b"} {
				data, err := opts.GetServiceData(name)
				if err != nil {
					r.event("data %s error: %v", name, err)
				} else {
					r.event("data %s = %v", name, data)
				}
			}
			return r, nil
		},
	})
	component.Register(component.Registration{
		Name: "testing.health",
		Args: healthArgs{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			h := &healthComponent{}
			return h, h.Update(args)
		},
	})
	for _, def := range []service.Definition{
		{Name: "testsvc_a", ConfigType: testServiceConfig{}, DependsOn: []string{"testsvc_b"}},
		{Name: "testsvc_b", ConfigType: testServiceConfig{}},
	} {
		services.Register(services.Registration{
			Name: def.Name,
			New:  func(services.Options) (service.Service, error) { return &testService{def: def}, nil },
		})
	}
}

type recorderArgs struct {
	File  string `lua:"file,required"`
	Value string `lua:"value"`
}

type recorderExports struct {
	Value string `lua:"value"`
}

// recorder records build, run, update and stop events to its file.
type recorder struct {
	opts component.Options
	mu   sync.Mutex
	args recorderArgs
}

func appendLine(file, line string) {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

func (r *recorder) event(format string, args ...any) {
	r.mu.Lock()
	file := r.args.File
	r.mu.Unlock()
	appendLine(file, r.opts.ID+" "+fmt.Sprintf(format, args...))
}

func (r *recorder) Run(ctx context.Context) error {
	r.event("run")
	<-ctx.Done()
	r.event("stop")
	return nil
}

func (r *recorder) Update(args component.Arguments) error {
	a := args.(recorderArgs)
	r.mu.Lock()
	r.args = a
	r.mu.Unlock()
	r.event("update value=%s", a.Value)
	r.opts.OnStateChange(recorderExports{Value: a.Value})
	return nil
}

type healthArgs struct {
	Healthy bool   `lua:"healthy"`
	Message string `lua:"message"`
}

// healthComponent reports the health its arguments say.
type healthComponent struct {
	mu     sync.Mutex
	health component.Health
}

func (h *healthComponent) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func (h *healthComponent) Update(args component.Arguments) error {
	a := args.(healthArgs)
	state := component.HealthUnhealthy
	if a.Healthy {
		state = component.HealthHealthy
	}
	h.mu.Lock()
	h.health = component.Health{Health: state, Message: a.Message, UpdateTime: time.Now()}
	h.mu.Unlock()
	return nil
}

func (h *healthComponent) CurrentHealth() component.Health {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.health
}

type testServiceConfig struct {
	File  string `lua:"file"`
	Value string `lua:"value"`
}

// testService records its configuration and start to the file its config
// names; its Data is its name and current value.
type testService struct {
	def service.Definition
	mu  sync.Mutex
	cfg testServiceConfig
}

func (s *testService) Definition() service.Definition { return s.def }

func (s *testService) event(format string, args ...any) {
	s.mu.Lock()
	file := s.cfg.File
	s.mu.Unlock()
	if file != "" {
		appendLine(file, "service "+s.def.Name+" "+fmt.Sprintf(format, args...))
	}
}

func (s *testService) Run(ctx context.Context, host service.Host) error {
	var consumers []string
	for _, c := range host.GetServiceConsumers(s.def.Name) {
		consumers = append(consumers, c.ID)
	}
	s.event("run consumers=%s", strings.Join(consumers, ","))
	<-ctx.Done()
	return nil
}

func (s *testService) Update(cfg any) error {
	c, _ := cfg.(testServiceConfig)
	s.mu.Lock()
	s.cfg = c
	s.mu.Unlock()
	s.event("update value=%s", c.Value)
	return nil
}

func (s *testService) Data() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.def.Name + ":" + s.cfg.Value
}
