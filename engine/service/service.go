// Package service is the contract between flowlua's engine and its
// services: long-lived nodes of the graph (http, cluster, ...) that give
// components more than arguments. It sits beside engine/component, whose
// contract it mirrors; the services themselves live under services/.
//
// A service's life:
//
//  1. The process creates every service once (see package services).
//  2. Each load evaluates the service's script block (its config may
//     reference component exports) and calls Update, also before Run when the
//     script has no block (with the zero config).
//  3. Run is called once, after the first load evaluated the service and
//     every service it depends on has started, and runs until ctx ends.
//  4. Components that name the service in NeedsServices read Data().
package service

import (
	"context"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// Definition describes a service to the engine.
type Definition struct {
	// Name is the service's name and the name of its script block.
	Name string
	// ConfigType is a zero value of the config struct of the service's
	// block, or nil when the service takes no config.
	ConfigType any
	// DependsOn names services that must be evaluated and started first.
	DependsOn []string
}

// Service is a running service.
type Service interface {
	// Definition describes the service; it never changes.
	Definition() Definition
	// Run runs the service until ctx is cancelled.
	Run(ctx context.Context, host Host) error
	// Update applies a new config (a value of Definition().ConfigType). It
	// may be called before Run and concurrently with it.
	Update(newConfig any) error
	// Data returns what components that declared the service may use. It
	// must be safe for concurrent use.
	Data() any
}

// ComponentDataService is a Service whose data depends on the component
// asking for it (the http service mounts a component's routes under that
// component's own prefix only).
type ComponentDataService interface {
	Service
	// ComponentData returns what the component with this id may use. It
	// must be safe for concurrent use.
	ComponentData(componentID string) any
}

// Host is what the engine offers services. Every method is safe for
// concurrent use.
type Host interface {
	// GetComponent returns the component with the given id.
	GetComponent(id string) (component.Info, error)
	// ListComponents returns every component of the graph, sorted by id.
	ListComponents() []component.Info
	// GetServiceConsumers returns the components and services that use the
	// named service, sorted by id.
	GetServiceConsumers(service string) []Consumer
	// GetService returns a running service by name.
	GetService(name string) (Service, bool)
	// Tap returns the tap on what the component id sends (its outputs'
	// fan-outs: item counts and live-debugging viewers), or nil when no
	// such component runs.
	Tap(id string) *dataplane.Tap
	// LastLoad describes the last load of the script (the first load or a
	// reload, accepted or rejected) and the plugins of the running graph.
	LastLoad() Load
}

// Redactor is a Host that knows the secrets of the running graph (the
// exports of secret components and every string derived from them).
type Redactor interface {
	// Redact returns s with every secret, and the userinfo of every URL,
	// replaced by "(secret)"; safe for concurrent use.
	Redact(s string) string
}

// Load describes a load of the script.
type Load struct {
	Time     time.Time // when it started; zero before the first load
	Duration time.Duration
	// Err is nil when the script was applied; otherwise why it was
	// rejected (diagnostics carry file:line), the previous graph running on.
	Err error
	// Plugins are the plugins of the running graph, sorted by namespace.
	Plugins []Plugin
}

// Plugin is a plugin of the running graph.
type Plugin struct {
	Namespace string // what the script's components are named under
	Name      string // the manifest's name
	Version   string // the manifest's version
}

// ConsumerKind says what kind of node consumes a service.
type ConsumerKind string

// The kinds of service consumer.
const (
	ConsumerComponent ConsumerKind = "component"
	ConsumerService   ConsumerKind = "service"
	ConsumerModule    ConsumerKind = "module"
)

// Consumer is a node that uses a service.
type Consumer struct {
	Kind  ConsumerKind
	ID    string
	Value any // the component.Component or Service; nil if not built yet
}
