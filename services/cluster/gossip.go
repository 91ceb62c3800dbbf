package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/memberlist"
)

// membership is the gossip of a node with clustering on: the memberlist
// and its transport, set when Run starts them.
type membership struct {
	ml        *memberlist.Memberlist
	transport *countingTransport
}

// gossip runs the memberlist until ctx ends, then leaves the cluster.
func (s *Service) gossip(ctx context.Context) error {
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
	s.announce() // a declaration made while the memberlist was created
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
	s.members.transport = newCountingTransport(nt, s.metrics)

	cfg := memberlist.DefaultLANConfig()
	cfg.Name = s.self
	cfg.Transport = s.members.transport
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
	s.members.ml = ml
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
		p.unique = meta.Unique
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

// NotifyUpdate records a peer's new metadata: a reload may have changed
// the unique components it declares.
func (e *events) NotifyUpdate(n *memberlist.Node) {
	e.s.setPeer(n, "alive")
	e.s.recompute()
}

// delegate gossips this node's metadata: its http address and the unique
// components its script declares.
type delegate struct{ s *Service }

func (d *delegate) NodeMeta(limit int) []byte {
	d.s.mu.Lock()
	declared := d.s.declared
	d.s.mu.Unlock()
	b, _ := json.Marshal(nodeMeta{HTTP: d.s.httpAddr, Leaving: d.s.leaving.Load(), Unique: declared})
	if len(b) > limit {
		return nil
	}
	return b
}

// announce gossips this node's metadata again (its declaration changed),
// in the background: memberlist waits for the broadcast to go out.
func (s *Service) announce() {
	s.mu.Lock()
	ml := s.members.ml
	s.mu.Unlock()
	if ml == nil || s.leaving.Load() {
		return // the memberlist reads the metadata when it starts
	}
	go func() {
		if err := ml.UpdateNode(leaveTimeout); err != nil {
			s.logger.Debug("announcing this node's unique components", "err", err)
		}
	}()
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

// suspects returns the members memberlist suspects now.
func (s *Service) suspects() map[string]bool {
	s.mu.Lock()
	ml := s.members.ml
	s.mu.Unlock()
	suspect := map[string]bool{}
	if ml != nil {
		for _, n := range ml.Members() {
			if n.State == memberlist.StateSuspect {
				suspect[n.Name] = true
			}
		}
	}
	return suspect
}

// started reports whether the memberlist runs.
func (m *membership) started() bool { return m.ml != nil }
