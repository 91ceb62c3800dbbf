package cluster

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// ServiceName is the service's name and the name of its script global
// (`cluster.shard(...)`).
const ServiceName = "cluster"

func init() {
	services.Register(services.Registration{
		Name: ServiceName,
		New:  func(opts services.Options) (service.Service, error) { return New(opts) },
	})
}

// Gossip timing. Failure detection takes a probe of the dead node (each
// node probes one peer every ProbeInterval, so within N×ProbeInterval),
// ProbeTimeout plus indirect probes, then the suspicion timeout
// (SuspicionMult × log10(N) × ProbeInterval, about 1 s for 3 nodes), then
// gossip of the death (GossipInterval): under 3 s for 3 nodes on
// loopback or a LAN, within the 5 s a unique component may be absent.
const (
	probeInterval  = 500 * time.Millisecond
	probeTimeout   = 250 * time.Millisecond
	suspicionMult  = 4
	gossipInterval = 100 * time.Millisecond
	pushPull       = 15 * time.Second
	leaveTimeout   = 2 * time.Second
	rejoinEvery    = 2 * time.Second
	rejoinAll      = time.Minute
)

// Service is the cluster service.
type Service struct {
	opts     services.ClusterOptions
	self     string
	httpAddr string // this node's http address as peers reach it
	logger   *slog.Logger
	fatal    func(error)
	metrics  *clusterMetrics

	changed chan struct{}
	// cur is the view keys are placed on; nil while waiting for the
	// cluster (the node owns nothing).
	cur     atomic.Pointer[view]
	leaving atomic.Bool

	mu       sync.Mutex
	peers    map[string]*peer
	waitOver bool       // the wait for the cluster is over
	members  membership // the gossip (gossip.go), while Run runs
	// The peer proxy's transport, made for proxyTLS (nil: plaintext).
	proxyMu  sync.Mutex
	proxyTLS *tls.Config
	proxyRT  *http.Transport

	// declared is this node's declaration of the unique keys its loaded
	// script holds (encodeDeclared), as it gossips it.
	declared string
}

// peer is a node this one has seen.
type peer struct {
	Name     string
	Addr     string // gossip address
	HTTPAddr string
	State    string // alive, suspect, left or dead
	LastSeen time.Time
	Since    time.Time // of the current state
	leaving  bool      // it said it is leaving
	// unique is the peer's declaration of its unique keys, "" for none.
	unique string
}

var (
	_ service.Service         = (*Service)(nil)
	_ service.UniquePlacement = (*Service)(nil)
)

// metaLimit is the most metadata a node may gossip about itself
// (memberlist.MetaMaxSize).
const metaLimit = 512

// nodeMeta is what a node gossips about itself.
type nodeMeta struct {
	HTTP string `json:"http,omitempty"`
	// Leaving is gossiped just before a graceful leave, so that peers
	// tell a leave from a failure (memberlist's leave event does not say).
	Leaving bool `json:"leaving,omitempty"`
	// Unique declares the unique components the node's script holds
	// (encodeDeclared, or declaredAll): only those may be placed on it.
	Unique string `json:"unique,omitempty"`
}

// New returns the cluster service; it joins nothing until Run.
func New(opts services.Options) (*Service, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	co := opts.Cluster
	self := co.NodeName
	if self == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = "flowlua"
		}
		self = h
	}
	s := &Service{
		opts:    co,
		self:    self,
		logger:  logger.With("service", ServiceName),
		fatal:   opts.Fatal,
		changed: make(chan struct{}, 1),
		peers:   map[string]*peer{},
	}
	if !co.Enabled {
		s.cur.Store(newView([]string{self}))
		s.peers[self] = &peer{Name: self, State: "alive", HTTPAddr: opts.HTTPListenAddr, LastSeen: time.Now(), Since: time.Now()}
		s.metrics = newClusterMetrics(s, opts.Registerer)
		return s, nil
	}
	if co.ListenAddr == "" {
		return nil, fmt.Errorf("cluster: --cluster.listen-addr is empty")
	}
	if _, _, err := net.SplitHostPort(co.ListenAddr); err != nil {
		return nil, fmt.Errorf("cluster: --cluster.listen-addr %q: %w", co.ListenAddr, err)
	}
	if co.AdvertiseAddr != "" {
		if _, _, err := net.SplitHostPort(co.AdvertiseAddr); err != nil {
			return nil, fmt.Errorf("cluster: --cluster.advertise-addr %q: %w", co.AdvertiseAddr, err)
		}
	}
	if n := len(co.SecretKey); n != 0 && n != 16 && n != 24 && n != 32 {
		return nil, fmt.Errorf("cluster: the secret key has %d bytes, want 16, 24 or 32", n)
	}
	if exposed := exposedAddr(co); exposed != "" && len(co.SecretKey) == 0 {
		if !co.Insecure {
			return nil, fmt.Errorf("cluster: gossip on %s without --cluster.secret-key-file: anyone who reaches that port could join the cluster, take its unique components and be reached through the peer proxy; give every node the same key with --cluster.secret-key-file (e.g. openssl rand -base64 32), or accept this with --cluster.insecure", exposed)
		}
		s.logger.Warn("gossip is neither encrypted nor authenticated (--cluster.insecure): anyone who reaches the gossip port can join the cluster; use --cluster.secret-key-file", "addr", exposed)
	}
	s.httpAddr = peerHTTPAddr(opts.HTTPListenAddr, s.advertiseAddr())
	s.metrics = newClusterMetrics(s, opts.Registerer)
	return s, nil
}

// exposedAddr returns the first of the gossip listen and advertise
// addresses that is not loopback, "" when both are: gossip that only this
// machine reaches needs no key.
func exposedAddr(co services.ClusterOptions) string {
	for _, a := range []string{co.ListenAddr, co.AdvertiseAddr} {
		if a != "" && !loopbackAddr(a) {
			return a
		}
	}
	return ""
}

// loopbackAddr reports whether a host:port names a loopback address
// (127.0.0.0/8, ::1 or localhost).
func loopbackAddr(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// advertiseAddr is the gossip address peers reach this node at.
func (s *Service) advertiseAddr() string {
	if s.opts.AdvertiseAddr != "" {
		return s.opts.AdvertiseAddr
	}
	return s.opts.ListenAddr
}

// peerHTTPAddr is the http address peers use: the listen address, with
// the advertised host when it listens on every interface.
func peerHTTPAddr(listen, advertise string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if ah, _, err := net.SplitHostPort(advertise); err == nil {
			host = ah
		}
	}
	return net.JoinHostPort(host, port)
}

// Definition describes the service: it takes no script configuration
// (the gossip key comes from a file named by a flag, read once).
func (s *Service) Definition() service.Definition {
	return service.Definition{Name: ServiceName}
}

// Update accepts the zero config only.
func (s *Service) Update(any) error { return nil }

// Data returns the service itself: a service.Placement.
func (s *Service) Data() any { return s }

// Self returns this node's name.
func (s *Service) Self() string { return s.self }

// Enabled reports whether clustering is on.
func (s *Service) Enabled() bool { return s.opts.Enabled }

// Owns reports whether this node owns key. Safe for concurrent use.
func (s *Service) Owns(key string) bool {
	if !s.opts.Enabled {
		return true
	}
	v := s.cur.Load()
	return v != nil && v.owner(key) == s.self
}

// Owner returns the node that owns key, "" while waiting for the cluster.
func (s *Service) Owner(key string) string {
	v := s.cur.Load()
	if v == nil {
		return ""
	}
	return v.owner(key)
}

// OwnsUnique reports whether this node runs the unique component placed
// by key: its script declares it, and it wins the hash among the live
// nodes that declare it. Safe for concurrent use.
func (s *Service) OwnsUnique(key string) bool {
	if !s.opts.Enabled {
		return true
	}
	v := s.cur.Load()
	return v != nil && v.uniqueOwner(key) == s.self
}

// UniqueOwner returns the node that runs the unique component placed by
// key: "" while waiting for the cluster, or when no live node declares
// it.
func (s *Service) UniqueOwner(key string) string {
	if !s.opts.Enabled {
		return s.self
	}
	v := s.cur.Load()
	if v == nil {
		return ""
	}
	return v.uniqueOwner(key)
}

// DeclareUnique sets the keys of the unique components this node's
// loaded script declares, and gossips them when they changed. A list too
// long for the node's gossiped metadata declares every key (and says
// so): the node then takes any unique component, as its peers' names
// decide.
func (s *Service) DeclareUnique(keys []string) {
	if !s.opts.Enabled {
		return
	}
	enc := encodeDeclared(keys)
	if room := s.declareRoom(); len(enc) > room {
		s.logger.Warn("too many unique components to declare in the gossip: this node may be given any unique component, declared here or not",
			"unique_components", len(keys), "most", room*3/4/digestBytes)
		enc = declaredAll
	}
	s.mu.Lock()
	same := s.declared == enc
	s.declared = enc
	s.mu.Unlock()
	if same {
		return
	}
	s.recompute()
	s.announce()
}

// declareRoom is how many bytes of the node's metadata a declaration may
// take.
func (s *Service) declareRoom() int {
	b, _ := json.Marshal(nodeMeta{HTTP: s.httpAddr, Leaving: true, Unique: "-"})
	return metaLimit - len(b)
}

// Changed receives after membership changes (see service.Placement).
func (s *Service) Changed() <-chan struct{} { return s.changed }

// Run gossips until ctx ends, then leaves the cluster.
func (s *Service) Run(ctx context.Context, _ service.Host) error {
	if !s.opts.Enabled {
		<-ctx.Done()
		return nil
	}
	return s.gossip(ctx)
}

// joinedAll reports whether every join address is a live member's
// gossip address (names that do not resolve to one never are).
func (s *Service) joinedAll() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	live := map[string]bool{}
	for _, p := range s.peers {
		if p.State == "alive" {
			live[p.Addr] = true
		}
	}
	for _, a := range s.opts.JoinAddresses {
		if !live[a] {
			return false
		}
	}
	return true
}

// recompute places keys on the live members, or on nobody while the node
// waits for its cluster, and tells the engine when that changed.
func (s *Service) recompute() {
	s.mu.Lock()
	var live []string
	declared := map[string]string{s.self: s.declared}
	for name, p := range s.peers {
		if p.State == "alive" || p.State == "suspect" {
			live = append(live, name)
			if name != s.self {
				declared[name] = p.unique
			}
		}
	}
	ready := s.members.started() && s.waitOver
	if !ready && s.members.started() && s.opts.WaitForSize > 1 && len(live) >= s.opts.WaitForSize {
		s.waitOver, ready = true, true
		s.logger.Info("the cluster has the size to wait for", "members", len(live))
	}
	s.mu.Unlock()

	var next *view
	if ready {
		next = newViewDeclared(live, declared)
	}
	prev := s.cur.Load()
	if prev == nil && next == nil || prev != nil && next != nil && prev.equal(next) {
		return
	}
	s.cur.Store(next)
	if next != nil {
		s.logger.Info("placing work on the cluster's members", "members", next.members)
	}
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// Peers returns every node seen, sorted by name, with the states
// memberlist reports now.
func (s *Service) Peers() []peer {
	suspect := s.suspects()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]peer, 0, len(s.peers))
	for _, p := range s.peers {
		c := *p
		if c.State == "alive" && suspect[c.Name] {
			c.State = "suspect"
		}
		if c.Name == s.self {
			c.LastSeen = time.Now()
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
