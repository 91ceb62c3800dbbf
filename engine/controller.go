package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/services"
)

// ControllerOptions configure a Controller.
type ControllerOptions struct {
	Logger   *slog.Logger
	Registry *component.Registry
	Services []services.Service
	// DataPath is the directory under which each component gets its own
	// (the --storage.path flag).
	DataPath string
	// Registerer receives flowlua's metrics and every component's.
	Registerer prometheus.Registerer
	// Load runs the script again, for Reload, and returns it with the
	// registry to check it against (the built-in components plus those of
	// the plugins it declares); a nil registry means Registry.
	Load func() (*script.Script, *component.Registry, error)
}

// Controller runs a graph and applies new scripts to it.
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

	ctx    context.Context // parent of every component's and service's run
	cancel context.CancelFunc

	applyMu sync.Mutex // one Apply or propagation at a time

	mu       sync.RWMutex
	graph    *Graph
	nodes    map[string]*runningNode
	services map[string]*serviceNode
	files    map[string]script.Digest // every file the last applied script read
	tried    map[string]script.Digest // the files of the last load, when it failed

	loaded atomic.Bool

	dirtyMu sync.Mutex
	dirty   map[string]bool
	wake    chan struct{}

	wg sync.WaitGroup // component and service runs
}

var _ services.Host = (*Controller)(nil)

type serviceNode struct {
	svc        services.Service
	cfg        any
	configured bool
	started    bool
	cancel     context.CancelFunc
	done       chan struct{}
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
	defs := make([]services.Definition, len(opts.Services))
	svcs := map[string]*serviceNode{}
	for i, s := range opts.Services {
		defs[i] = s.Definition()
		svcs[defs[i].Name] = &serviceNode{svc: s}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Controller{
		opts:     opts,
		loader:   &Loader{Registry: opts.Registry, Services: defs},
		logger:   opts.Logger,
		metrics:  newControllerMetrics(opts.Registerer),
		ctx:      ctx,
		cancel:   cancel,
		nodes:    map[string]*runningNode{},
		services: svcs,
		dirty:    map[string]bool{},
		wake:     make(chan struct{}, 1),
	}
}

// Loaded reports whether a script has been applied.
func (c *Controller) Loaded() bool { return c.loaded.Load() }

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

// Reload runs the script again and applies it. On any error the running
// graph stays as it was; the error is logged and returned.
func (c *Controller) Reload() error {
	start := time.Now()
	first := !c.Loaded()
	err := c.reload()
	c.metrics.observeLoad(err, time.Since(start))
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
	err := c.apply(s, reg)
	c.metrics.observeLoad(err, time.Since(start))
	return err
}

type pendingUpdate struct {
	rn   *runningNode
	args component.Arguments
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
	old, oldGraph := c.nodes, c.graph
	c.mu.RUnlock()

	// A component is kept when the new script declares it with the same
	// implementation; one whose implementation changed (a plugin edited
	// on disk) is rebuilt.
	kept := map[string]*runningNode{}
	for id, rn := range old {
		if n, ok := g.Nodes[id]; ok && n.Registration.Fingerprint == rn.node.Registration.Fingerprint {
			kept[id] = rn
		}
	}

	// Phase A: evaluate everything and build new components, touching
	// nothing that runs.
	p, err := c.prepare(g, kept)
	if err != nil {
		return err
	}
	staged, updates := p.staged, p.updates

	// Phase B: commit. Stop what was removed or replaced, receivers first.
	if oldGraph != nil {
		for _, id := range slices.Backward(oldGraph.Order) {
			rn, ok := old[id]
			if !ok || kept[id] != nil {
				continue
			}
			why := "removed from the script"
			if _, replaced := g.Nodes[id]; replaced {
				why = "its implementation changed"
			}
			c.stop(rn, why)
		}
	}
	newNodes := make(map[string]*runningNode, len(g.Nodes))
	for id, n := range g.Nodes {
		if n.Kind != script.KindComponent {
			continue
		}
		if rn, ok := staged[id]; ok {
			newNodes[id] = rn
		} else {
			rn := kept[id]
			rn.mu.Lock()
			rn.node = n
			rn.mu.Unlock()
			newNodes[id] = rn
		}
	}
	c.mu.Lock()
	c.graph, c.nodes, c.files = g, newNodes, maps.Clone(s.Digests)
	c.mu.Unlock()

	for _, u := range updates {
		c.update(u.rn, u.args)
	}
	for _, id := range g.Order {
		if sn := c.services[id]; sn != nil && !sn.started {
			c.startService(id, sn)
		}
		if rn, ok := staged[id]; ok {
			c.start(rn)
		}
	}
	c.loaded.Store(true)
	c.metrics.setComponents(len(newNodes))
	c.logger.Debug("applied script", "components", len(newNodes), "built", len(staged),
		"updated", len(updates), "stopped", len(old)-len(kept))
	return nil
}

// build creates a component; its exports published during Build are kept
// but not propagated until it is committed.
func (c *Controller) build(n *Node, args component.Arguments) (*runningNode, error) {
	rn := &runningNode{id: n.ID, node: n, args: args, since: time.Now(), onChange: c.markDirty}
	rn.metrics = newTrackingRegisterer(c.opts.Registerer, n.ID)
	opts := component.Options{
		ID:            n.ID,
		Logger:        c.logger.With("component_id", n.ID),
		DataPath:      filepath.Join(c.opts.DataPath, n.ID),
		OnStateChange: rn.setExports,
		Registerer:    rn.metrics,
		GetServiceData: func(name string) (any, error) {
			if !slices.Contains(n.Registration.NeedsServices, name) {
				return nil, fmt.Errorf("component %s did not declare service %q", n.ID, name)
			}
			sn := c.services[name]
			if sn == nil {
				return nil, fmt.Errorf("no service %q", name)
			}
			if cd, ok := sn.svc.(services.ComponentDataService); ok {
				return cd.ComponentData(n.ID), nil
			}
			return sn.svc.Data(), nil
		},
	}
	inst, err := n.Registration.Build(opts, args)
	if err != nil {
		rn.metrics.unregisterAll()
		return nil, fmt.Errorf("building: %w", err)
	}
	rn.instance = inst
	return rn, nil
}

// start runs a committed component.
func (c *Controller) start(rn *runningNode) {
	ctx, cancel := context.WithCancel(c.ctx)
	rn.mu.Lock()
	rn.live, rn.cancel, rn.done = true, cancel, make(chan struct{})
	rn.mu.Unlock()
	c.logger.Debug("starting component", "component_id", rn.id)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(rn.done)
		err := rn.instance.Run(ctx)
		rn.mu.Lock()
		if ctx.Err() == nil { // it stopped on its own
			rn.exited, rn.runErr, rn.since = true, err, time.Now()
		}
		rn.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			c.logger.Error("component exited", "component_id", rn.id, "err", err)
		}
	}()
}

// stop cancels a component and waits for it to drain.
func (c *Controller) stop(rn *runningNode, why string) {
	rn.mu.Lock()
	rn.live = false
	cancel, done := rn.cancel, rn.done
	rn.mu.Unlock()
	c.logger.Info("stopping component", "component_id", rn.id, "reason", why)
	if cancel != nil {
		cancel()
		waitLogged(c.logger, done, "component_id", rn.id)
	}
	rn.metrics.unregisterAll()
}

// stopWarnEvery is how often a slow stop is logged.
const stopWarnEvery = 10 * time.Second

// waitLogged waits for done, logging every stopWarnEvery that a node is
// still draining: a stop is never cut short (exporters drain their
// queues), but it is never silent either.
func waitLogged(logger *slog.Logger, done <-chan struct{}, key, id string) {
	start := time.Now()
	t := time.NewTicker(stopWarnEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			logger.Warn("still waiting for a node to stop", key, id, "waited", time.Since(start).Round(time.Second))
		}
	}
}

// update applies new arguments to a running component; a failure keeps
// the last good arguments and marks the component unhealthy.
func (c *Controller) update(rn *runningNode, args component.Arguments) {
	start := time.Now()
	err := rn.instance.Update(args)
	c.metrics.observeEvaluation(time.Since(start))
	if err != nil {
		rn.setEvalErr(fmt.Errorf("update failed: %w", err))
		c.logger.Error("updating component failed, keeping its last arguments", "component_id", rn.id, "err", err)
		return
	}
	rn.mu.Lock()
	rn.args = args
	rn.mu.Unlock()
	rn.setEvalErr(nil)
	c.logger.Info("updated component", "component_id", rn.id)
}

// configureService applies a service's config if it changed (or was
// never applied) and returns how to restore the previous one.
func (c *Controller) configureService(name string, cfg any) (undo func(), err error) {
	sn := c.services[name]
	if sn.configured && reflect.DeepEqual(sn.cfg, cfg) {
		return nil, nil
	}
	if err := sn.svc.Update(cfg); err != nil {
		return nil, fmt.Errorf("service %s: %w", name, err)
	}
	prev, wasConfigured := sn.cfg, sn.configured
	sn.cfg, sn.configured = cfg, true
	return func() {
		if !wasConfigured {
			return
		}
		if err := sn.svc.Update(prev); err != nil {
			c.logger.Error("restoring service config failed", "service", name, "err", err)
		}
		sn.cfg = prev
	}, nil
}

func (c *Controller) startService(name string, sn *serviceNode) {
	ctx, cancel := context.WithCancel(c.ctx)
	sn.started, sn.cancel, sn.done = true, cancel, make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(sn.done)
		if err := sn.svc.Run(ctx, c); err != nil && ctx.Err() == nil {
			c.logger.Error("service exited", "service", name, "err", err)
		}
	}()
}

func (c *Controller) markDirty(id string) {
	c.dirtyMu.Lock()
	c.dirty[id] = true
	c.dirtyMu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Run propagates export changes until ctx ends, then shuts everything
// down: components in reverse dependency order, then services.
func (c *Controller) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			c.shutdown()
			return nil
		case <-c.wake:
			c.propagate()
		}
	}
}

// propagate re-evaluates the dependants of every component whose exports
// changed, in dependency order. Dependants whose exports change in turn
// are marked dirty again by their components.
func (c *Controller) propagate() {
	c.dirtyMu.Lock()
	dirty := c.dirty
	c.dirty = map[string]bool{}
	c.dirtyMu.Unlock()
	if len(dirty) == 0 {
		return
	}
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.RLock()
	g, nodes := c.graph, c.nodes
	c.mu.RUnlock()
	if g == nil {
		return
	}
	todo := map[string]bool{}
	for id := range dirty {
		if _, ok := nodes[id]; !ok {
			continue // removed meanwhile
		}
		for _, d := range g.Dependants(id) {
			todo[d] = true
		}
	}
	lookup := liveLookup(nodes)
	for _, id := range g.Order {
		if !todo[id] {
			continue
		}
		n := g.Nodes[id]
		args, err := DecodeBlock(n, lookup)
		if n.Kind == script.KindService {
			if err != nil {
				c.logger.Error("evaluating service config failed, keeping the last one", "service", id, "err", blockDiagnostics(n, err))
				continue
			}
			if _, err := c.configureService(id, args); err != nil {
				c.logger.Error("configuring service failed, keeping its last config", "service", id, "err", err)
			}
			continue
		}
		rn := nodes[id]
		if err != nil {
			rn.setEvalErr(blockDiagnostics(n, err))
			c.logger.Error("evaluating component failed, keeping its last arguments", "component_id", id, "err", blockDiagnostics(n, err))
			continue
		}
		rn.mu.Lock()
		same := reflect.DeepEqual(rn.args, args)
		rn.mu.Unlock()
		if same {
			rn.setEvalErr(nil)
			continue
		}
		c.update(rn, args)
	}
}

func liveLookup(nodes map[string]*runningNode) Lookup {
	return func(ref *script.Ref) (any, error) {
		rn := nodes[ref.Component]
		if rn == nil {
			return nil, &ExprError{Pos: ref.Pos, Err: fmt.Errorf("component %s is not running", ref.Component)}
		}
		v, ok := rn.export(ref.Export)
		if !ok {
			return nil, &ExprError{Pos: ref.Pos, Err: fmt.Errorf("%s has not exported %q yet", ref.Component, ref.Export)}
		}
		return v, nil
	}
}

// shutdown stops every component in reverse dependency order, then the
// services.
func (c *Controller) shutdown() {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.RLock()
	g, nodes := c.graph, c.nodes
	c.mu.RUnlock()
	if g != nil {
		for _, id := range slices.Backward(g.Order) {
			if rn, ok := nodes[id]; ok {
				c.stop(rn, "shutting down")
			}
		}
		for _, id := range slices.Backward(g.Order) {
			if sn := c.services[id]; sn != nil && sn.started {
				sn.cancel()
				waitLogged(c.logger, sn.done, "service", id)
			}
		}
	}
	c.cancel()
	c.wg.Wait()
}

// GetComponent returns the component with the given id.
func (c *Controller) GetComponent(id string) (component.Info, error) {
	c.mu.RLock()
	rn, g := c.nodes[id], c.graph
	c.mu.RUnlock()
	if rn == nil {
		return component.Info{}, fmt.Errorf("no component %q", id)
	}
	return info(rn, g), nil
}

// ListComponents returns every component, sorted by id.
func (c *Controller) ListComponents() []component.Info {
	c.mu.RLock()
	g := c.graph
	ids := script.SortedKeys(c.nodes)
	rns := make([]*runningNode, len(ids))
	for i, id := range ids {
		rns[i] = c.nodes[id]
	}
	c.mu.RUnlock()
	out := make([]component.Info, len(rns))
	for i, rn := range rns {
		out[i] = info(rn, g)
	}
	return out
}

// GetServiceConsumers returns the nodes that use a service, sorted by id.
func (c *Controller) GetServiceConsumers(name string) []services.Consumer {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.graph == nil {
		return nil
	}
	var out []services.Consumer
	for _, id := range c.graph.Dependants(name) {
		if rn, ok := c.nodes[id]; ok {
			out = append(out, services.Consumer{Kind: services.ConsumerComponent, ID: id, Value: rn.instance})
		} else if sn, ok := c.services[id]; ok {
			out = append(out, services.Consumer{Kind: services.ConsumerService, ID: id, Value: sn.svc})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// GetService returns a service by name.
func (c *Controller) GetService(name string) (services.Service, bool) {
	sn, ok := c.services[name]
	if !ok {
		return nil, false
	}
	return sn.svc, true
}

func info(rn *runningNode, g *Graph) component.Info {
	h := rn.health()
	rn.mu.Lock()
	defer rn.mu.Unlock()
	i := component.Info{
		ID:        rn.id,
		Name:      rn.node.Registration.Name,
		Label:     rn.node.Block.Label,
		Component: rn.instance,
		Health:    h,
		Arguments: rn.args,
		Exports:   rn.rawExp,
	}
	if g != nil {
		i.Dependencies = g.Dependencies(rn.id)
		i.Dependants = g.Dependants(rn.id)
	}
	return i
}
