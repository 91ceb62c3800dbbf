package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/redact"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// ControllerOptions configure a Controller.
type ControllerOptions struct {
	Logger   *slog.Logger
	Registry *component.Registry
	Services []service.Service
	// DataPath is the directory under which each component gets its own
	// (the --storage.path flag).
	DataPath string
	// Registerer receives flowlua's metrics and every component's.
	Registerer prometheus.Registerer
	// DrainTimeout bounds how long a component that a reload removes or
	// replaces, or that stops at shutdown, may take to hand on what it
	// holds (an exporter's queue); what is left after it is dropped and
	// counted in flowlua_component_dropped_items_total. At shutdown it
	// bounds the whole drain, not each component's. Zero: no drain.
	DrainTimeout time.Duration
	// Secrets receives the strings of secret exports and those derived
	// from them; the controller redacts them from the errors it returns,
	// the health it reports and what it logs. Give the same Set to the
	// process's log handler (redact.Handler) to keep them out of every log
	// line. Nil: a Set of the controller's own.
	Secrets *redact.Set
	// Load runs the script again, for Reload, and returns it with the
	// registry to check it against (the built-in components plus those of
	// the plugins it declares); a nil registry means Registry.
	Load func() (*script.Script, *component.Registry, error)
}

// Controller runs a graph and applies new scripts to it. It keeps the
// reload and the transactional apply; each kind of node runs its own
// lifecycle (component_node.go, service_node.go), export propagation is
// in propagate.go and the queries of services in host.go.
//
// Its life:
//
//  1. NewController creates it; nothing runs.
//  2. Apply checks a script and makes the running graph match it. The first
//     successful Apply evaluates and starts the services, then the
//     components, dependencies first.
//  3. Run propagates exports (re-evaluating dependants when a component's
//     exports change) until its context ends, then stops every component
//     in reverse dependency order (receivers first, exporters last, so that
//     they drain) and then the services.
type Controller struct {
	opts    ControllerOptions
	loader  *Loader
	logger  *slog.Logger
	metrics *controllerMetrics
	secrets *redact.Set

	ctx    context.Context // parent of every component's and service's run
	cancel context.CancelFunc

	applyMu sync.Mutex // one Apply or propagation at a time

	// services are the process's services, nodes of every graph; place
	// is the one that places unique work in a cluster, if any
	// (placement.go).
	services map[string]*serviceNode
	place    *placer

	mu    sync.RWMutex
	graph *Graph
	live  map[string]liveNode      // the running graph's nodes by id
	files map[string]script.Digest // every file the last applied script read
	tried map[string]script.Digest // the files of the last load, when it failed

	loaded atomic.Bool

	// taps observe each component's outputs, by component id (tap.go);
	// lastLoad and plugins describe the last load (lastload.go).
	taps     map[string]*dataplane.Tap
	lastLoad service.Load
	plugins  []service.Plugin

	dirtyMu sync.Mutex
	dirty   map[string]bool
	wake    chan struct{}

	wg sync.WaitGroup // component and service runs
}

// liveNode is a node of the running graph: the lifecycle of one kind of
// node, as the controller drives it. The controller calls it from one
// apply or propagation at a time, except export, which lookups call
// concurrently.
type liveNode interface {
	// keeps reports whether the node can take decl, the declaration of its
	// id in a new graph, or must be replaced by a new node.
	keeps(decl *Node) bool
	// stage evaluates decl's block with lookup and readies the change
	// without touching what runs, unless appliesOnStage.
	stage(decl *Node, lookup Lookup) (staged, error)
	// appliesOnStage reports whether stage applies the change at once
	// (staged.discard undoing it) instead of at commit: such nodes are
	// staged one at a time, before the other nodes of their level, which
	// may read their data.
	appliesOnStage() bool
	// evalFailed records that a re-evaluation after an export change
	// failed; the node keeps its last arguments.
	evalFailed(err error)
	// export returns the current value of one of the node's exports.
	export(name string) (any, bool)
	// exportValues returns every current export by name (a copy).
	exportValues() map[string]any
	// stop stops the node and waits until it has drained, which it must
	// have done by deadline: a node that has not stopped StopGrace after
	// it is abandoned (logged) rather than waited for forever.
	stop(why string, deadline time.Time)
	// lifelong reports whether the node runs for the life of the process:
	// never removed by a reload, stopped after every other node.
	lifelong() bool
	// consumer describes the node as a user of a service.
	consumer() service.Consumer
	// info describes a component for services; false for other kinds.
	info(g *Graph) (component.Info, bool)
}

// staged is a change readied by liveNode.stage.
type staged struct {
	commit  func() // applies the change in the running graph; may be nil
	discard func() // undoes what stage did; may be nil
}

// NewController returns a controller that runs nothing yet.
func NewController(opts ControllerOptions) *Controller {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Registry == nil {
		opts.Registry = component.DefaultRegistry
	}
	if opts.Registerer == nil {
		opts.Registerer = prometheus.NewRegistry()
	}
	if opts.Secrets == nil {
		opts.Secrets = redact.NewSet()
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Controller{
		opts:     opts,
		logger:   slog.New(redact.Handler(opts.Logger.Handler(), opts.Secrets)),
		secrets:  opts.Secrets,
		metrics:  newControllerMetrics(opts.Registerer),
		ctx:      ctx,
		cancel:   cancel,
		services: map[string]*serviceNode{},
		live:     map[string]liveNode{},
		taps:     map[string]*dataplane.Tap{},
		dirty:    map[string]bool{},
		wake:     make(chan struct{}, 1),
	}
	defs := make([]service.Definition, len(opts.Services))
	for i, s := range opts.Services {
		defs[i] = s.Definition()
		c.services[defs[i].Name] = &serviceNode{svc: s, c: c}
	}
	c.loader = &Loader{Registry: opts.Registry, Services: defs}
	c.place = newPlacer(opts.Services, opts.Registerer)
	_ = opts.Registerer.Register(sendsCollector{c})
	return c
}

// Loaded reports whether a script has been applied.
func (c *Controller) Loaded() bool { return c.loaded.Load() }

// Ready returns nil once the first load has been applied and every
// component it runs here has finished starting (component.StartingComponent:
// a receiver listens), else why the process is not ready yet. A component
// that failed to start does not hold readiness back: /-/healthy and the
// API show it.
func (c *Controller) Ready() error {
	if !c.Loaded() {
		return errors.New("the first load has not been applied")
	}
	c.mu.RLock()
	live := c.live
	c.mu.RUnlock()
	var starting []string
	for id, ln := range live {
		if n, ok := ln.(*componentNode); ok && n.starting() {
			starting = append(starting, id)
		}
	}
	if len(starting) > 0 {
		slices.Sort(starting)
		return fmt.Errorf("components still starting: %s", strings.Join(starting, ", "))
	}
	return nil
}

// Files returns every file the running script read (script, modules and
// plugins), each with the digest of what it held when it was read. After a
// failed reload it also holds the files that reload read or looked for
// (script.Absent), so that writing the missing module or fixing the broken
// one reloads.
func (c *Controller) Files() map[string]script.Digest {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := maps.Clone(c.files)
	if out == nil {
		out = map[string]script.Digest{}
	}
	for f, d := range c.tried {
		if _, ok := out[f]; !ok {
			out[f] = d
		}
	}
	return out
}

// AppliedFiles returns every file the running script read (script,
// modules and plugins), sorted: unlike Files, never those of a load that
// failed.
func (c *Controller) AppliedFiles() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]string, 0, len(c.files))
	for f, d := range c.files {
		if d != script.Absent {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// Reload runs the script again and applies it. On any error the running
// graph stays as it was; the error is logged and returned.
func (c *Controller) Reload() error {
	start := time.Now()
	first := !c.Loaded()
	err := c.redactErr(c.reload())
	c.recordLoad(start, err)
	switch {
	case err != nil && first:
		return err // the caller reports it and exits
	case err != nil:
		c.logger.Error("reload failed, the running pipeline is unchanged", "err", err)
		return err
	case first:
		c.logger.Info("loaded", "duration", time.Since(start))
	default:
		c.logger.Info("reloaded", "duration", time.Since(start))
	}
	return nil
}

func (c *Controller) reload() error {
	if c.opts.Load == nil {
		return errors.New("no script loader configured")
	}
	s, reg, err := c.opts.Load()
	if err == nil {
		err = c.apply(s, reg)
	}
	c.mu.Lock()
	c.tried = nil
	if err != nil && s != nil {
		c.tried = maps.Clone(s.Digests)
	}
	c.mu.Unlock()
	return err
}

// Apply checks s and makes the running graph match it. It is
// transactional: every node is evaluated and every new component built
// before anything running is touched, and a failure anywhere leaves the
// running graph exactly as it was.
func (c *Controller) Apply(s *script.Script) error {
	return c.ApplyWith(s, nil)
}

// ApplyWith is Apply checking s against reg instead of the controller's
// registry (nil means the controller's).
func (c *Controller) ApplyWith(s *script.Script, reg *component.Registry) error {
	start := time.Now()
	err := c.redactErr(c.apply(s, reg))
	c.recordLoad(start, err)
	return err
}

// redactErr redacts an error of a load, keeping Diagnostics a list of
// diagnostics. The diagnostics of nodes were redacted when made, sparing
// their ids and field paths (nodeDiagnostics); those of the script's own
// run, which sees no export, can only quote a URL of the script.
func (c *Controller) redactErr(err error) error {
	ds, ok := err.(script.Diagnostics)
	if !ok {
		return c.secrets.Error(err)
	}
	out := make(script.Diagnostics, len(ds))
	for i, d := range ds {
		out[i] = script.Diagnostic{Pos: d.Pos, Message: redact.URLs(d.Message)}
	}
	return out
}

func (c *Controller) apply(s *script.Script, reg *component.Registry) error {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()

	loader := c.loader
	if reg != nil {
		loader = &Loader{Registry: reg, Services: c.loader.Services}
	}
	g, diags := loader.Build(s)
	if len(diags) > 0 {
		return diags
	}
	c.mu.RLock()
	old, oldGraph := c.live, c.graph
	c.mu.RUnlock()

	// A running node is kept when it can take its new declaration; any
	// other node of the new graph is new (or replaces one whose
	// implementation changed).
	next := make(map[string]liveNode, len(g.Nodes))
	for id, decl := range g.Nodes {
		if ln, ok := old[id]; ok && ln.keeps(decl) {
			next[id] = ln
		} else {
			next[id] = decl.Kind.newLive(c, decl)
		}
	}

	// Phase A: evaluate everything and build new components, touching
	// nothing that runs.
	p, err := c.prepare(g, next)
	if err != nil {
		return err
	}

	// Phase B: commit. Stop what was removed or replaced, receivers first,
	// then apply every change in dependency order.
	stopped := 0
	if oldGraph != nil {
		for _, id := range slices.Backward(oldGraph.Order) {
			ln, ok := old[id]
			if !ok || next[id] == ln {
				continue
			}
			why := "removed from the script"
			if _, replaced := g.Nodes[id]; replaced {
				why = "its implementation changed"
			}
			ln.stop(why, time.Now().Add(c.opts.DrainTimeout))
			stopped++
		}
	}
	c.mu.Lock()
	c.graph, c.live, c.files = g, next, maps.Clone(s.Digests)
	c.plugins = pluginsOf(loader.Registry)
	c.mu.Unlock()
	c.closeRemovedTaps(g)
	c.declareUnique(g)
	c.warnUnclustered(g, oldGraph)
	for _, id := range g.Order {
		if commit := p.commits[id]; commit != nil {
			commit()
		}
	}
	c.placeAll() // a kept component may have changed its placement
	c.loaded.Store(true)
	components := len(g.Components())
	c.metrics.setComponents(components)
	c.logger.Debug("applied script", "components", components, "stopped", stopped)
	return nil
}

// stopWarnEvery is how often a slow stop is logged.
const stopWarnEvery = 10 * time.Second

// StopGrace is how long the controller still waits for a node to stop
// once its drain deadline has passed (the component is then dropping what
// is left); after it, the node is abandoned.
const StopGrace = 5 * time.Second

// waitLogged waits for done until deadline plus StopGrace, logging every
// stopWarnEvery that a node is still draining: a stop is bounded, and
// never silent. It reports whether the node stopped.
func waitLogged(logger *slog.Logger, done <-chan struct{}, key, id string, deadline time.Time) bool {
	start := time.Now()
	t := time.NewTicker(stopWarnEvery)
	defer t.Stop()
	limit := time.NewTimer(time.Until(deadline.Add(StopGrace)))
	defer limit.Stop()
	for {
		select {
		case <-done:
			return true
		case <-t.C:
			logger.Warn("still waiting for a node to stop", key, id, "waited", time.Since(start).Round(time.Second))
		case <-limit.C:
			logger.Error("a node did not stop within its drain bound; abandoning it", key, id, "waited", time.Since(start).Round(time.Millisecond))
			return false
		}
	}
}

// shutdown stops every node, dependants first, the lifelong ones
// (services) last. The nodes of one level do not depend on each other and
// stop together; the whole drain is bounded by DrainTimeout.
func (c *Controller) shutdown() {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.RLock()
	g, live := c.graph, c.live
	c.mu.RUnlock()
	deadline := time.Now().Add(c.opts.DrainTimeout)
	if g != nil {
		for _, lifelong := range []bool{false, true} {
			for _, level := range slices.Backward(g.levels) {
				var wg sync.WaitGroup
				for _, id := range level {
					if ln := live[id]; ln != nil && ln.lifelong() == lifelong {
						wg.Go(func() { ln.stop("shutting down", deadline) })
					}
				}
				wg.Wait()
			}
		}
	}
	c.cancel()
	runs := make(chan struct{})
	go func() { c.wg.Wait(); close(runs) }()
	select {
	case <-runs:
	case <-time.After(time.Until(deadline.Add(StopGrace))):
		c.logger.Error("shut down with runs that did not stop within the drain bound")
	}
}
