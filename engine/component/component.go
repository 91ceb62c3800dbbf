// Package component is the contract between flowlua's engine and the
// components it runs, native (Go) or written in Lua.
//
// A component's life:
//
//  1. Its arguments are decoded into a fresh value of its Arguments type
//     (see package engine/decode) and validated.
//  2. Build creates it. Build must not start goroutines that outlive it: work
//     belongs to Run.
//  3. Run is called once and runs until its context is cancelled; then the
//     component stops and drains what it holds before Run returns, by
//     DrainDeadline(ctx); what it drops then is counted (CountDropped).
//  4. Update is called, concurrently with Run, whenever the evaluated
//     arguments change. A component must apply new arguments in place rather
//     than ask to be rebuilt.
//
// Optional behaviour is one-method interfaces: HealthComponent, ...
package component

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// Arguments is a component's decoded arguments: a value of the type its
// Registration names.
type Arguments = any

// Exports is what a component exports: a struct whose `lua` tags name the
// exports, of the type its Registration names.
type Exports = any

// Component is a running component.
type Component interface {
	// Run runs the component until ctx is cancelled. It is called once.
	Run(ctx context.Context) error
	// Update applies new arguments. It is called concurrently with Run and
	// never concurrently with itself.
	Update(args Arguments) error
}

// Options are what the engine hands a component when building it.
type Options struct {
	// ID is the component's id, e.g. "file.read.token".
	ID string
	// Logger logs with the attribute component_id set.
	Logger *slog.Logger
	// DataPath is a directory the component may keep state in. It is not
	// created until the component creates it.
	DataPath string
	// OnStateChange publishes new exports. The engine re-evaluates the
	// components that reference them. Safe for concurrent use.
	OnStateChange func(e Exports)
	// Registerer registers the component's metrics; every metric gets the
	// label component_id.
	Registerer prometheus.Registerer
	// GetServiceData returns the Data() of a service the component's
	// Registration names in NeedsServices; any other name is an error.
	GetServiceData func(name string) (any, error)
	// DrainTimeout bounds how long a component may take to hand on what a
	// part it replaced (an Update rebuilding an exporter) still holds; when
	// Run's context ends, DrainDeadline(ctx) is the bound instead. Zero:
	// nothing waits, what is left is dropped and counted.
	DrainTimeout time.Duration
	// Dropped counts items the component dropped, by signal ("traces",
	// "metrics", "logs") and reason (the Drop* constants); nil counts
	// nothing. Safe for concurrent use; use CountDropped.
	Dropped func(signal, reason string, n int)
	// Tap is the component's tap, the one the engine sets on every
	// dataplane.Output of its arguments (see dataplane.Tap), or nil. A
	// component that sends data some other way, to a consumer it was
	// handed, sends it through a fan-out built from an Output with this tap
	// (dataplane.Output.WithTap), so that what it sends is counted and
	// shown to live debugging like the rest.
	Tap *dataplane.Tap
}

// CountDropped counts n items of signal dropped for reason, if anybody
// counts (see Options.Dropped).
func (o Options) CountDropped(signal, reason string, n int) {
	if o.Dropped != nil && n > 0 {
		o.Dropped(signal, reason, n)
	}
}

// HealthType is the coarse health of a component.
type HealthType int

// The health types, in increasing order of badness for aggregation.
const (
	HealthUnknown HealthType = iota
	HealthHealthy
	HealthUnhealthy
	HealthExited
)

// String returns the lowercase name of the health type.
func (h HealthType) String() string {
	switch h {
	case HealthHealthy:
		return "healthy"
	case HealthUnhealthy:
		return "unhealthy"
	case HealthExited:
		return "exited"
	default:
		return "unknown"
	}
}

// Health is a component's health at a point in time.
type Health struct {
	Health     HealthType
	Message    string
	UpdateTime time.Time
}

// HealthComponent is a component that reports its own health. The engine
// combines it with its own view (a failed evaluation, a Run that returned).
type HealthComponent interface {
	Component
	// CurrentHealth returns the component's health; safe for concurrent use.
	CurrentHealth() Health
}

// SecretComponent is a component whose exports must stay hidden (file.read
// with is_secret = true): the API shows them as "(secret)", and the engine
// redacts them, and every string derived from them, from errors, health
// messages and logs.
type SecretComponent interface {
	Component
	// IsSecret reports whether the exports are secret; safe for
	// concurrent use.
	IsSecret() bool
}

// StartingComponent is a component whose Run has start-up work to do
// before it takes data: a receiver binding its port, a client connecting.
// The process is not ready (GET /-/ready) while one is starting, so that a
// probe's "ready" means the receivers listen.
type StartingComponent interface {
	Component
	// Starting reports whether the component's first start has not
	// finished yet, successfully or not; safe for concurrent use.
	Starting() bool
}

// Info describes a component of the running graph, for services and the API.
type Info struct {
	ID           string
	Name         string
	Label        string
	Component    Component // nil until built
	Health       Health
	Arguments    Arguments
	Exports      Exports
	Dependencies []string // ids this component references (components and services)
	Dependants   []string // ids that reference this component
	// ModuleInstance is the id of the module instance that declared the
	// component ("gateway.eu"); "" at the top level of the script.
	ModuleInstance string
	// Placement is where the component runs in a cluster: "all_nodes" or
	// "unique".
	Placement string
	// Owner is the node that runs a unique component ("" for all_nodes,
	// and while this node waits for its cluster).
	Owner string
	// Standby says why a unique component is built but not running here:
	// "standby (owned by node-b)"; "" when it runs.
	Standby string
	// Sends lists where the component sends data: each consumer of each
	// signal of its outputs, in the order of its arguments.
	Sends []Send
}

// Send is one consumer a component sends a signal to, with the items sent
// to it so far (counted at the fan-out: see dataplane.Tap).
type Send struct {
	Signal string // "traces", "metrics" or "logs"
	To     string // the consumer's component id; "" if it is no component's export
	Items  uint64
}
