package engine

import (
	"time"

	"context"
	"fmt"
	"reflect"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
)

// ServiceKind is the kind of a service node. Every service of the process
// is a node of every graph, configured by the script's block of its name
// or, without one, by its zero config.
type ServiceKind struct {
	Definition service.Definition
}

var _ NodeKind = (*ServiceKind)(nil)

// Title returns `service "<name>"`.
func (k *ServiceKind) Title(id string) string { return `service "` + id + `"` }

// Needs returns the services this one depends on.
func (k *ServiceKind) Needs() []string { return k.Definition.DependsOn }

// ExportTypes says that services cannot be referenced: components reach
// them through NeedsServices.
func (k *ServiceKind) ExportTypes() (map[string]reflect.Type, bool) { return nil, false }

// Decode decodes the service's config into a fresh value of its type.
func (k *ServiceKind) Decode(value map[string]any) (any, error) {
	if k.Definition.ConfigType == nil {
		if len(value) > 0 {
			return nil, &decode.Error{Message: fmt.Sprintf("service %q takes no configuration", k.Definition.Name)}
		}
		return nil, nil
	}
	target := reflect.New(reflect.TypeOf(k.Definition.ConfigType))
	if err := decode.Decode(value, target.Interface()); err != nil {
		return nil, err
	}
	return target.Elem().Interface(), nil
}

// newLive returns the process's node of this service: services live as
// long as the controller.
func (k *ServiceKind) newLive(c *Controller, decl *Node) liveNode {
	return c.services[decl.ID]
}

// serviceNode is a service of the running graph. Its life:
//
//  1. stage evaluates its config and applies it at once when it changed,
//     since the components built after it may read its data; discard
//     restores the previous config. The first commit starts it.
//  2. It runs for the life of the process: a reload never removes it, and
//     shutdown stops it after every component.
type serviceNode struct {
	svc service.Service
	c   *Controller

	// Set by the controller's one apply or propagation at a time.
	cfg        any
	configured bool
	started    bool
	cancel     context.CancelFunc
	done       chan struct{}
}

var _ liveNode = (*serviceNode)(nil)

func (n *serviceNode) name() string { return n.svc.Definition().Name }

func (n *serviceNode) keeps(*Node) bool { return true }

// appliesOnStage is true: a service's config is applied when staged.
func (n *serviceNode) appliesOnStage() bool { return true }

func (n *serviceNode) stage(decl *Node, lookup Lookup) (staged, error) {
	cfg, err := decodeBlock(decl, lookup)
	if err != nil {
		return staged{}, err
	}
	undo, err := n.configure(cfg)
	if err != nil {
		return staged{}, script.Diagnostics{script.Errorf(decl.Pos(), "%v", err)}
	}
	return staged{commit: n.start, discard: undo}, nil
}

// configure applies a config if it changed (or was never applied) and
// returns how to restore the previous one.
func (n *serviceNode) configure(cfg any) (undo func(), err error) {
	if n.configured && reflect.DeepEqual(n.cfg, cfg) {
		return nil, nil
	}
	if err := n.svc.Update(cfg); err != nil {
		return nil, fmt.Errorf("service %s: %w", n.name(), err)
	}
	prev, wasConfigured := n.cfg, n.configured
	n.cfg, n.configured = cfg, true
	return func() {
		if !wasConfigured {
			return
		}
		if err := n.svc.Update(prev); err != nil {
			n.c.logger.Error("restoring service config failed", "service", n.name(), "err", err)
		}
		n.cfg = prev
	}, nil
}

// start runs the service once.
func (n *serviceNode) start() {
	if n.started {
		return
	}
	c := n.c
	ctx, cancel := context.WithCancel(c.ctx)
	n.started, n.cancel, n.done = true, cancel, make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(n.done)
		if err := n.svc.Run(ctx, c); err != nil && ctx.Err() == nil {
			c.logger.Error("service exited", "service", n.name(), "err", err)
		}
	}()
}

func (n *serviceNode) evalFailed(err error) {
	n.c.logger.Error("configuring service failed, keeping its last config", "service", n.name(), "err", err)
}

func (n *serviceNode) stop(_ string, deadline time.Time) {
	if n.started {
		n.cancel()
		waitLogged(n.c.logger, n.done, "service", n.name(), deadline)
	}
}

func (n *serviceNode) lifelong() bool { return true }

func (n *serviceNode) export(string) (any, bool) { return nil, false }

func (n *serviceNode) exportValues() map[string]any { return nil }

func (n *serviceNode) consumer() service.Consumer {
	return service.Consumer{Kind: service.ConsumerService, ID: n.name(), Value: n.svc}
}

func (n *serviceNode) info(*Graph) (component.Info, bool) { return component.Info{}, false }
