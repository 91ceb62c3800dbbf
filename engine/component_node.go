package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/service"
)

// ComponentKind is the kind of a component node: a declaration of a
// registered component.
type ComponentKind struct {
	Registration component.Registration
	// Chain names the component through the module instances it was
	// declared in (script.Block.Chain); empty means its id.
	Chain string
}

var _ NodeKind = (*ComponentKind)(nil)

// Title returns the component's chain, its id at the top level.
func (k *ComponentKind) Title(id string) string {
	if k.Chain != "" {
		return k.Chain
	}
	return id
}

// Needs returns the services the component declared.
func (k *ComponentKind) Needs() []string { return k.Registration.NeedsServices }

// ExportTypes returns the component's exports; any component may be
// referenced.
func (k *ComponentKind) ExportTypes() (map[string]reflect.Type, bool) {
	return k.Registration.ExportTypes(), true
}

// Decode decodes arguments into the registration's type.
func (k *ComponentKind) Decode(value map[string]any) (any, error) {
	return k.Registration.DecodeArgs(value)
}

func (k *ComponentKind) newLive(c *Controller, decl *Node) liveNode {
	return &componentNode{id: decl.ID, c: c, decl: decl}
}

// Components returns the ids of the graph's components, sorted.
func (g *Graph) Components() []string {
	var ids []string
	for id, n := range g.Nodes {
		if _, ok := n.Kind.(*ComponentKind); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// componentNode is a component of the running graph. Its life:
//
//  1. stage on a new node evaluates its arguments and builds the
//     component; its exports published during Build are kept but not
//     propagated; the commit starts it.
//  2. stage on a running node evaluates its arguments again; the commit
//     updates the component when they changed.
//  3. stop cancels Run and waits for the component to drain; its metrics
//     are unregistered.
type componentNode struct {
	id string
	c  *Controller

	mu       sync.Mutex
	decl     *Node // the current declaration
	instance component.Component
	args     component.Arguments
	exports  map[string]any // by export name
	rawExp   component.Exports
	evalErr  error // last failed evaluation or update, nil when the last one worked
	runErr   error // Run's error once it returned
	exited   bool
	since    time.Time
	live     bool      // committed to the running graph: export changes propagate
	drainBy  time.Time // set by stop: when Run must have drained
	standby  string    // why a unique component is built but not run here (placement.go)
	owner    string    // the node that runs a unique component
	metrics  *trackingRegisterer
	cancel   context.CancelFunc
	done     chan struct{}
}

var _ liveNode = (*componentNode)(nil)

func (n *componentNode) registration() component.Registration {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.decl.Kind.(*ComponentKind).Registration
}

// keeps reports whether decl has the same implementation: a component
// whose implementation changed (a plugin edited on disk) is rebuilt.
func (n *componentNode) keeps(decl *Node) bool {
	k, ok := decl.Kind.(*ComponentKind)
	return ok && k.Registration.Fingerprint == n.registration().Fingerprint
}

// appliesOnStage is false: a component changes only when committed.
func (n *componentNode) appliesOnStage() bool { return false }

func (n *componentNode) stage(decl *Node, lookup Lookup) (staged, error) {
	args, err := decodeBlock(decl, lookup)
	if err != nil {
		return staged{}, err
	}
	args = withTap(args, n.c.tapFor(n.id))
	n.mu.Lock()
	built, same := n.instance != nil, reflect.DeepEqual(n.args, args)
	n.mu.Unlock()
	adopt := func() {
		n.mu.Lock()
		n.decl = decl
		n.mu.Unlock()
	}
	switch {
	case !built:
		if err := n.build(decl, args); err != nil {
			return staged{}, err
		}
		return staged{commit: func() { adopt(); n.run() }, discard: n.metrics.unregisterAll}, nil
	case same:
		return staged{commit: func() { adopt(); n.setEvalErr(nil) }}, nil
	default:
		return staged{commit: func() { adopt(); n.update(args) }}, nil
	}
}

// build creates the component.
func (n *componentNode) build(decl *Node, args component.Arguments) error {
	c, reg := n.c, decl.Kind.(*ComponentKind).Registration
	n.metrics = newTrackingRegisterer(c.opts.Registerer, n.id)
	opts := component.Options{
		ID:            n.id,
		Logger:        c.logger.With("component_id", n.id),
		DataPath:      filepath.Join(c.opts.DataPath, n.id),
		OnStateChange: n.setExports,
		Registerer:    n.metrics,
		DrainTimeout:  c.opts.DrainTimeout,
		Tap:           c.tapFor(n.id),
		Dropped: func(signal, reason string, count int) {
			c.metrics.countDropped(n.id, signal, reason, count)
		},
		GetServiceData: func(name string) (any, error) {
			if !slices.Contains(reg.NeedsServices, name) {
				return nil, fmt.Errorf("component %s did not declare service %q", n.id, name)
			}
			svc, ok := c.GetService(name)
			if !ok {
				return nil, fmt.Errorf("no service %q", name)
			}
			if cd, ok := svc.(service.ComponentDataService); ok {
				return cd.ComponentData(n.id), nil
			}
			return svc.Data(), nil
		},
	}
	inst, err := reg.Build(opts, args)
	if err != nil {
		n.metrics.unregisterAll()
		return fmt.Errorf("building: %w", err)
	}
	n.mu.Lock()
	n.instance, n.args, n.since = inst, args, time.Now()
	n.mu.Unlock()
	return nil
}

// secret reports whether the component's exports are secret
// (component.SecretComponent).
func (n *componentNode) secret() bool {
	n.mu.Lock()
	inst := n.instance
	n.mu.Unlock()
	sc, ok := inst.(component.SecretComponent)
	return ok && sc.IsSecret()
}

// start runs a committed component.
func (n *componentNode) start() {
	c := n.c
	ctx, cancel := context.WithCancel(component.WithDrainDeadline(c.ctx, n.drainDeadline))
	n.mu.Lock()
	n.live, n.cancel, n.done = true, cancel, make(chan struct{})
	n.mu.Unlock()
	c.logger.Debug("starting component", "component_id", n.id)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(n.done)
		err := n.instance.Run(ctx)
		n.mu.Lock()
		if ctx.Err() == nil { // it stopped on its own
			n.exited, n.runErr, n.since = true, err, time.Now()
		}
		n.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			c.logger.Error("component exited", "component_id", n.id, "err", err)
		}
	}()
}

// starting reports whether the component runs here and has not finished
// its first start (component.StartingComponent).
func (n *componentNode) starting() bool {
	n.mu.Lock()
	inst, running := n.instance, n.done != nil && !n.exited
	n.mu.Unlock()
	if !running {
		return false
	}
	sc, ok := inst.(component.StartingComponent)
	return ok && sc.Starting()
}

// update applies new arguments to a running component; a failure keeps
// the last good arguments and marks the component unhealthy.
func (n *componentNode) update(args component.Arguments) {
	c := n.c
	start := time.Now()
	err := n.instance.Update(args)
	c.metrics.observeEvaluation(time.Since(start))
	if err != nil {
		err = c.secrets.Error(err)
		n.setEvalErr(fmt.Errorf("update failed: %w", err))
		c.logger.Error("updating component failed, keeping its last arguments", "component_id", n.id, "err", err)
		return
	}
	n.mu.Lock()
	n.args = args
	n.mu.Unlock()
	n.setEvalErr(nil)
	c.logger.Info("updated component", "component_id", n.id)
}

func (n *componentNode) evalFailed(err error) {
	n.setEvalErr(err)
	n.c.logger.Error("evaluating component failed, keeping its last arguments", "component_id", n.id, "err", err)
}

// stop cancels the component and waits for it to drain, which it must
// have done by deadline (component.DrainDeadline tells it); one that has
// not stopped StopGrace later is abandoned.
func (n *componentNode) stop(why string, deadline time.Time) {
	n.mu.Lock()
	n.live = false
	n.drainBy = deadline
	cancel, done := n.cancel, n.done
	n.mu.Unlock()
	n.c.logger.Info("stopping component", "component_id", n.id, "reason", why)
	if cancel != nil {
		cancel()
		waitLogged(n.c.logger, done, "component_id", n.id, deadline)
	}
	n.metrics.unregisterAll()
}

// drainDeadline is when the component must have drained, once stop set it.
func (n *componentNode) drainDeadline() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.drainBy
}

func (n *componentNode) lifelong() bool { return false }

func (n *componentNode) consumer() service.Consumer {
	n.mu.Lock()
	defer n.mu.Unlock()
	return service.Consumer{Kind: service.ConsumerComponent, ID: n.id, Value: n.instance}
}

// setExports records new exports and reports whether they changed.
func (n *componentNode) setExports(e component.Exports) {
	values := decode.ExportValues(e)
	n.mu.Lock()
	changed := !reflect.DeepEqual(values, n.exports)
	n.exports, n.rawExp = values, e
	live := n.live
	n.mu.Unlock()
	if changed && live {
		n.c.markDirty(n.id)
	}
}

func (n *componentNode) exportValues() map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	return maps.Clone(n.exports)
}

func (n *componentNode) export(name string) (any, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v, ok := n.exports[name]
	return v, ok
}

func (n *componentNode) setEvalErr(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if (err == nil) != (n.evalErr == nil) || (err != nil && err.Error() != n.evalErr.Error()) {
		n.since = time.Now()
	}
	n.evalErr = err
}

// health combines the engine's view of the node with the component's own,
// its message redacted (a component may quote its arguments).
func (n *componentNode) health() component.Health {
	h := n.rawHealth()
	h.Message = n.c.secrets.String(h.Message)
	n.mu.Lock()
	unique := n.decl.Block != nil && n.decl.Block.Placement == "unique"
	n.mu.Unlock()
	if unique && h.Health == component.HealthHealthy && n.c.place.unclustered() {
		h.Message += " (warning: " + UniqueWithoutCluster + ")"
	}
	return h
}

func (n *componentNode) rawHealth() component.Health {
	n.mu.Lock()
	inst, evalErr, runErr, exited, since := n.instance, n.evalErr, n.runErr, n.exited, n.since
	standby := n.standby
	n.mu.Unlock()
	switch {
	case standby != "" && evalErr == nil:
		return component.Health{Health: component.HealthHealthy, Message: standby, UpdateTime: since}
	case exited:
		msg := "run exited"
		if runErr != nil {
			msg = "run exited: " + runErr.Error()
		}
		return component.Health{Health: component.HealthExited, Message: msg, UpdateTime: since}
	case evalErr != nil:
		return component.Health{Health: component.HealthUnhealthy, Message: evalErr.Error(), UpdateTime: since}
	}
	if hc, ok := inst.(component.HealthComponent); ok {
		h := hc.CurrentHealth()
		if h.Health != component.HealthUnknown {
			return h
		}
	}
	return component.Health{Health: component.HealthHealthy, Message: "started", UpdateTime: since}
}

// info describes the component for services and the API.
func (n *componentNode) info(g *Graph) (component.Info, bool) {
	h := n.health()
	n.mu.Lock()
	defer n.mu.Unlock()
	blk := n.decl.Block
	i := component.Info{
		ID:             n.id,
		Name:           n.decl.Kind.(*ComponentKind).Registration.Name,
		Label:          blk.Label,
		Component:      n.instance,
		Health:         h,
		Arguments:      n.args,
		Exports:        n.rawExp,
		ModuleInstance: strings.TrimSuffix(blk.Scope(), "."),
		Placement:      blk.Placement,
		Owner:          n.owner,
		Standby:        n.standby,
	}
	if i.Placement == "" {
		i.Placement = "all_nodes"
	}
	if g != nil {
		i.Dependencies = g.Dependencies(n.id)
		i.Dependants = g.Dependants(n.id)
	}
	return i, true
}
