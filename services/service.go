// Package services holds flowlua's built-in services (one package each
// below this one) and their registry: every registered service is created
// once per process with the process's Options. The contract a service
// implements is package engine/service.
package services

import (
	"fmt"
	"log/slog"
	"net/http"
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
	// OpAMP are the --opamp.* settings of the opamp service.
	OpAMP OpAMPOptions
	// ReloadFrom makes the file at path the pipeline's main file and
	// reloads: on success later reloads read path; on failure the
	// running graph and the main file stay as they were and the error
	// (diagnostics with file:line) is returned. Nil when the process
	// cannot change its pipeline.
	ReloadFrom func(path string) error
	// Pipeline returns the running pipeline's main file and every file
	// the running pipeline was read from (the main file, modules and
	// plugins), sorted. Nil before the process has a pipeline.
	Pipeline func() (main string, files []string)
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

// OpAMPOptions are the settings of the opamp service (the --opamp.*
// flags). The zero value is off. They come from the command line only,
// so that a remote config never changes the connection it came over.
type OpAMPOptions struct {
	// Endpoint is the OpAMP server's URL: ws:// or wss:// (WebSocket),
	// http:// or https:// (plain HTTP, polling). Empty: off.
	Endpoint string
	// Headers are sent on every request to the server.
	Headers http.Header
	// InstanceUID is the agent's instance uid (a UUID); empty: a UUIDv7
	// made once and kept under StoragePath.
	InstanceUID string
	// CAFile, CertFile and KeyFile are PEM files: the CAs that sign the
	// server's certificate (empty: the system's), and the client
	// certificate (both or neither).
	CAFile, CertFile, KeyFile string
	// InsecureSkipVerify accepts any server certificate.
	InsecureSkipVerify bool
	// HeartbeatInterval is how often the agent reports that it is alive
	// (and, over plain HTTP, polls for what the server has for it).
	HeartbeatInterval time.Duration
	// Version is flowlua's version, reported in the agent description.
	Version string
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
