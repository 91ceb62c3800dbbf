// Package services is the contract between flowlua's engine and its
// services: long-lived nodes of the graph (http, cluster, ...) that give
// components more than arguments.
//
// A service's life:
//
//  1. The CLI creates every registered service with the process's Options.
//  2. Each load evaluates the service's script block (its config may
//     reference component exports) and calls Update, also before Run when the
//     script has no block (with the zero config).
//  3. Run is called once, after the first load evaluated the service and
//     every service it depends on has started, and runs until ctx ends.
//  4. Components that name the service in NeedsServices read Data().
package services

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component"
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

// Host is what the engine offers services.
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
}

// ConsumerKind says what kind of node consumes a service.
type ConsumerKind string

// The kinds of service consumer.
const (
	ConsumerComponent ConsumerKind = "component"
	ConsumerService   ConsumerKind = "service"
)

// Consumer is a node that uses a service.
type Consumer struct {
	Kind  ConsumerKind
	ID    string
	Value any // the component.Component or Service; nil if not built yet
}

// Options are the process-wide settings services are created with; each
// service reads what it needs.
type Options struct {
	Logger         *slog.Logger
	HTTPListenAddr string
	StoragePath    string
	Cluster        ClusterOptions
	// Ready reports whether the first load has been applied.
	Ready func() bool
	// Reload reloads the script now; it returns the error of a rejected
	// script, the running graph being kept.
	Reload func() error
	// Metrics gathers the process's metrics (flowlua's and components').
	Metrics prometheus.Gatherer
	// Registerer registers a service's own metrics into the process's
	// registry.
	Registerer prometheus.Registerer
	// Fatal stops the process with err (exit 1): for a service that cannot
	// work at all, such as an http service whose address is taken.
	Fatal func(err error)
	// Extra carries settings of services registered outside flowlua's
	// built-ins (tests, embedders), by service name.
	Extra map[string]any
}

// ClusterOptions are the --cluster.* flags.
type ClusterOptions struct {
	Enabled       bool
	NodeName      string
	AdvertiseAddr string
	JoinAddresses []string
}

// Registration registers a service constructor.
type Registration struct {
	Name string
	New  func(opts Options) (Service, error)
}

var (
	mu       sync.RWMutex
	registry = map[string]Registration{}
	nameRe   = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Register adds a service constructor. It panics on an invalid or duplicate
// name: that is a programming error.
func Register(r Registration) {
	if !nameRe.MatchString(r.Name) {
		panic(fmt.Sprintf("service name %q must match %s", r.Name, nameRe))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, ok := registry[r.Name]; ok {
		panic(fmt.Sprintf("service %q registered twice", r.Name))
	}
	registry[r.Name] = r
}

// Registered returns every registration, sorted by name.
func Registered() []Registration {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Registration, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// NewAll creates every registered service with opts, sorted by name.
func NewAll(opts Options) ([]Service, error) {
	var out []Service
	for _, r := range Registered() {
		s, err := r.New(opts)
		if err != nil {
			return nil, fmt.Errorf("creating service %s: %w", r.Name, err)
		}
		out = append(out, s)
	}
	return out, nil
}
