// Package services holds flowlua's built-in services (one package each
// below this one) and their registry: every registered service is created
// once per process with the process's Options. The contract a service
// implements is package engine/service.
package services

import (
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/service"
)

// Options are the process-wide settings services are created with; each
// service reads what it needs.
type Options struct {
	Logger         *slog.Logger
	HTTPListenAddr string
	StoragePath    string
	// Ready returns nil once the first load has been applied and its
	// components have started, else why the process is not ready.
	Ready func() error
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
	// DisablePprof leaves the Go profiler's routes (/debug/pprof/) out
	// of the http service (--no-http.enable-pprof): they answer 404.
	DisablePprof bool
	// Cluster are the --cluster.* settings of the cluster service.
	Cluster ClusterOptions
	// Extra carries settings of services registered outside flowlua's
	// built-ins (tests, embedders), by service name.
	Extra map[string]any
}

// ClusterOptions are the settings of the cluster service (the
// --cluster.* flags). The zero value is a single node that owns
// everything.
type ClusterOptions struct {
	Enabled bool
	// NodeName names this node among its peers; unique in the cluster.
	NodeName string
	// ListenAddr is the host:port gossip binds (TCP and UDP).
	ListenAddr string
	// AdvertiseAddr is the host:port peers reach this node at; empty means
	// ListenAddr.
	AdvertiseAddr string
	// JoinAddresses are peers to join at start; empty starts a cluster.
	JoinAddresses []string
	// WaitForSize holds placement until this many peers (this node
	// included) are known, or WaitTimeout passed (0: no limit).
	WaitForSize int
	WaitTimeout time.Duration
	// SecretKey encrypts and authenticates gossip (AES, 16, 24 or 32
	// bytes); nil gossips in plaintext.
	SecretKey []byte
	// Insecure allows gossip without SecretKey on addresses other than
	// loopback (--cluster.insecure): anyone who reaches the port joins.
	Insecure bool
}

// Registration registers a service constructor.
type Registration struct {
	Name string
	New  func(opts Options) (service.Service, error)
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
func NewAll(opts Options) ([]service.Service, error) {
	var out []service.Service
	for _, r := range Registered() {
		s, err := r.New(opts)
		if err != nil {
			return nil, fmt.Errorf("creating service %s: %w", r.Name, err)
		}
		out = append(out, s)
	}
	return out, nil
}
