package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"

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

	mu        sync.Mutex
	peers     map[string]*peer
	waitOver  bool // the wait for the cluster is over
	ml        *memberlist.Memberlist
	transport *countingTransport
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
}

var (
	_ service.Service   = (*Service)(nil)
	_ service.Placement = (*Service)(nil)
)

// nodeMeta is what a node gossips about itself.
type nodeMeta struct {
	HTTP string `json:"http,omitempty"`
	// Leaving is gossiped just before a graceful leave, so that peers
	// tell a leave from a failure (memberlist's leave event does not say).
	Leaving bool `json:"leaving,omitempty"`
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
	s.httpAddr = peerHTTPAddr(opts.HTTPListenAddr, s.advertiseAddr())
	s.metrics = newClusterMetrics(s, opts.Registerer)
	return s, nil
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

// Changed receives after membership changes (see service.Placement).
func (s *Service) Changed() <-chan struct{} { return s.changed }

// Run gossips until ctx ends, then leaves the cluster.
func (s *Service) Run(ctx context.Context, _ service.Host) error {
	if !s.opts.Enabled {
		<-ctx.Done()
		return nil
	}
	ml, err := s.start()
	if err != nil {
		err = fmt.Errorf("cluster: %w", err)
		if s.fatal != nil {
			s.fatal(err)
		}
		return err
	}
	s.logger.Info("gossiping", "node", s.self, "addr", s.opts.ListenAddr, "advertise", s.advertiseAddr(), "join", s.opts.JoinAddresses)

	joined := s.join(ml)
	var timeout <-chan time.Time
	if s.opts.WaitForSize > 1 && s.opts.WaitTimeout > 0 {
		t := time.NewTimer(s.opts.WaitTimeout)
		defer t.Stop()
		timeout = t.C
	}
	s.mu.Lock()
	s.waitOver = s.opts.WaitForSize <= 1
	s.mu.Unlock()
	s.recompute()
	if !joined {
		s.logger.Warn("could not join any peer yet: running alone, retrying", "join", s.opts.JoinAddresses)
	}
	lastJoin := time.Now()
	rejoin := time.NewTicker(rejoinEvery)
	defer rejoin.Stop()
	for {
		select {
		case <-ctx.Done():
			s.logger.Info("leaving the cluster", "node", s.self)
			s.leaving.Store(true)
			if err := ml.UpdateNode(leaveTimeout / 4); err != nil {
				s.logger.Debug("announcing the leave", "err", err)
			}
			if err := ml.Leave(leaveTimeout); err != nil {
				s.logger.Warn("leaving the cluster", "err", err)
			}
			_ = ml.Shutdown()
			return nil
		case <-timeout:
			s.mu.Lock()
			over := s.waitOver
			s.waitOver = true
			s.mu.Unlock()
			if !over {
				s.logger.Warn("stopped waiting for the cluster's size: placing work on the peers known", "want", s.opts.WaitForSize, "known", ml.NumMembers())
				s.recompute()
			}
		case now := <-rejoin.C:
			// Joining again heals a cluster that formed in parts (nodes
			// that started before the peers they name): often while a
			// join address is not a live member, else now and then.
			if len(s.opts.JoinAddresses) > 0 && (now.Sub(lastJoin) >= rejoinAll || !s.joinedAll()) {
				s.join(ml)
				lastJoin = now
			}
		}
	}
}

// start binds the gossip address and creates the memberlist.
func (s *Service) start() (*memberlist.Memberlist, error) {
	host, portStr, _ := net.SplitHostPort(s.opts.ListenAddr)
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: bad port", s.opts.ListenAddr)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	mlLogger := log.New(&logWriter{s.logger}, "", 0)
	nt, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{BindAddrs: []string{host}, BindPort: port, Logger: mlLogger})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", s.opts.ListenAddr, err)
	}
	s.transport = newCountingTransport(nt, s.metrics)

	cfg := memberlist.DefaultLANConfig()
	cfg.Name = s.self
	cfg.Transport = s.transport
	cfg.BindAddr, cfg.BindPort = host, nt.GetAutoBindPort()
	cfg.AdvertiseAddr, cfg.AdvertisePort = host, cfg.BindPort
	if a := s.opts.AdvertiseAddr; a != "" {
		ah, ap, _ := net.SplitHostPort(a)
		p, err := strconv.Atoi(ap)
		if err != nil {
			return nil, fmt.Errorf("advertise address %q: bad port", a)
		}
		cfg.AdvertiseAddr, cfg.AdvertisePort = ah, p
	} else if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		cfg.AdvertiseAddr = "" // memberlist picks a private address
	}
	cfg.ProbeInterval, cfg.ProbeTimeout = probeInterval, probeTimeout
	cfg.SuspicionMult, cfg.GossipInterval = suspicionMult, gossipInterval
	cfg.PushPullInterval = pushPull
	cfg.SecretKey = s.opts.SecretKey
	cfg.Logger = mlLogger
	cfg.Events = &events{s}
	cfg.Delegate = &delegate{s}
	cfg.Ping = &pings{s}
	cfg.RequireNodeNames = false
	ml, err := memberlist.Create(cfg)
	if err != nil {
		_ = nt.Shutdown()
		return nil, err
	}
	s.mu.Lock()
	s.ml = ml
	s.mu.Unlock()
	return ml, nil
}

// join joins the configured peers; it reports whether one answered.
func (s *Service) join(ml *memberlist.Memberlist) bool {
	if len(s.opts.JoinAddresses) == 0 {
		return true
	}
	n, err := ml.Join(s.opts.JoinAddresses)
	if n > 0 {
		s.logger.Debug("joined", "contacted", n, "members", ml.NumMembers())
		return true
	}
	s.logger.Debug("join failed", "err", err)
	return false
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
	for name, p := range s.peers {
		if p.State == "alive" || p.State == "suspect" {
			live = append(live, name)
		}
	}
	ready := s.ml != nil && s.waitOver
	if !ready && s.ml != nil && s.opts.WaitForSize > 1 && len(live) >= s.opts.WaitForSize {
		s.waitOver, ready = true, true
		s.logger.Info("the cluster has the size to wait for", "members", len(live))
	}
	s.mu.Unlock()

	var next *view
	if ready {
		next = newView(live)
	}
	prev := s.cur.Load()
	if prev == nil && next == nil || prev != nil && next != nil && slices.Equal(prev.members, next.members) {
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
	s.mu.Lock()
	ml := s.ml
	s.mu.Unlock()
	suspect := map[string]bool{}
	if ml != nil {
		for _, n := range ml.Members() {
			if n.State == memberlist.StateSuspect {
				suspect[n.Name] = true
			}
		}
	}
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

// setPeer records a node's state from a memberlist event.
func (s *Service) setPeer(n *memberlist.Node, state string) {
	var meta nodeMeta
	_ = json.Unmarshal(n.Meta, &meta)
	now := time.Now()
	s.mu.Lock()
	p := s.peers[n.Name]
	if p == nil {
		p = &peer{Name: n.Name}
		s.peers[n.Name] = p
	}
	if p.State != state {
		p.Since = now
	}
	p.State, p.Addr = state, n.Address()
	if state == "alive" {
		p.LastSeen = now
	}
	if meta.HTTP != "" {
		p.HTTPAddr = meta.HTTP
	}
	if state == "alive" {
		p.leaving = meta.Leaving
	}
	s.mu.Unlock()
}

// events turns memberlist's membership events into views. memberlist
// calls it holding its own locks: it must not call back into memberlist.
type events struct{ s *Service }

func (e *events) NotifyJoin(n *memberlist.Node) {
	e.s.setPeer(n, "alive")
	if n.Name != e.s.self {
		e.s.logger.Info("peer joined", "peer", n.Name, "addr", n.Address())
	}
	e.s.metrics.membership.WithLabelValues("join").Inc()
	e.s.recompute()
}

func (e *events) NotifyLeave(n *memberlist.Node) {
	state := "dead"
	e.s.mu.Lock()
	p := e.s.peers[n.Name]
	leaving := p != nil && p.leaving || n.Name == e.s.self
	e.s.mu.Unlock()
	if leaving {
		state = "left"
	} else {
		e.s.logger.Warn("peer failed: its work moves to the others", "peer", n.Name)
	}
	e.s.setPeer(n, state)
	if leaving && n.Name != e.s.self {
		e.s.logger.Info("peer left", "peer", n.Name)
	}
	e.s.metrics.membership.WithLabelValues(state).Inc()
	e.s.recompute()
}

func (e *events) NotifyUpdate(n *memberlist.Node) { e.s.setPeer(n, "alive") }

// delegate gossips this node's metadata: its http address.
type delegate struct{ s *Service }

func (d *delegate) NodeMeta(limit int) []byte {
	b, _ := json.Marshal(nodeMeta{HTTP: d.s.httpAddr, Leaving: d.s.leaving.Load()})
	if len(b) > limit {
		return nil
	}
	return b
}
func (d *delegate) NotifyMsg([]byte)                {}
func (d *delegate) GetBroadcasts(int, int) [][]byte { return nil }
func (d *delegate) LocalState(bool) []byte          { return nil }
func (d *delegate) MergeRemoteState([]byte, bool)   {}
func (p *pings) AckPayload() []byte                 { return nil }
func (p *pings) NotifyPingComplete(n *memberlist.Node, _ time.Duration, _ []byte) {
	p.s.mu.Lock()
	if pr := p.s.peers[n.Name]; pr != nil {
		pr.LastSeen = time.Now()
	}
	p.s.mu.Unlock()
}

// pings records when each peer last answered a probe.
type pings struct{ s *Service }

// logWriter passes memberlist's log lines to slog at debug level, except
// warnings and errors.
type logWriter struct{ l *slog.Logger }

func (w *logWriter) Write(b []byte) (int, error) {
	msg := string(b)
	for len(msg) > 0 && msg[len(msg)-1] == '\n' {
		msg = msg[:len(msg)-1]
	}
	switch {
	case strings.Contains(msg, "[ERR]"), strings.Contains(msg, "[WARN]"):
		w.l.Warn("memberlist: " + msg)
	default:
		w.l.Debug("memberlist: " + msg)
	}
	return len(b), nil
}
