package opamp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/open-telemetry/opamp-go/client"
	"github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// ServiceName is the name of the service.
const ServiceName = "opamp"

func init() {
	services.Register(services.Registration{
		Name: ServiceName,
		New:  func(opts services.Options) (service.Service, error) { return New(opts) },
	})
}

// Timings, variables for tests.
var (
	// healthEvery is how often the components' health is compared with
	// the last report: a change reaches the server within about this.
	healthEvery = 500 * time.Millisecond
	// switchTimeout is how long offered connection settings have to
	// connect before the previous ones are used again.
	switchTimeout = 15 * time.Second
	// stopTimeout bounds closing a connection.
	stopTimeout = 5 * time.Second
)

// capabilities are what the agent does.
const capabilities = protobufs.AgentCapabilities_AgentCapabilities_ReportsStatus |
	protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsEffectiveConfig |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsHealth |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsRemoteConfig |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsHeartbeat |
	protobufs.AgentCapabilities_AgentCapabilities_AcceptsOpAMPConnectionSettings |
	protobufs.AgentCapabilities_AgentCapabilities_ReportsConnectionSettingsStatus

// Service is the opamp service.
type Service struct {
	opts    services.Options
	logger  *slog.Logger
	metrics *metrics
	store   store
	uid     uuid.UUID
	base    connSettings
	start   time.Time

	mu       sync.Mutex
	conn     *conn // the connection in use; nil before Run
	status   *protobufs.RemoteConfigStatus
	health   *protobufs.ComponentHealth
	pending  *protobufs.AgentRemoteConfig // the latest offer not applied yet
	offered  chan struct{}                // signalled when pending is set
	switchMu sync.Mutex                   // one change of connection at a time
}

var _ service.Service = (*Service)(nil)

// conn is one client of the server, with the settings it was made with.
type conn struct {
	settings  connSettings
	client    client.OpAMPClient
	connected chan struct{} // closed on its first connection
	once      sync.Once
}

// New returns the service; it is off (Run waits for its end) without
// --opamp.endpoint. Invalid flags are an error.
func New(opts services.Options) (*Service, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		opts:    opts,
		logger:  logger.With("service", ServiceName),
		store:   newStore(opts.StoragePath),
		start:   time.Now(),
		offered: make(chan struct{}, 1),
	}
	if opts.OpAMP.Endpoint == "" {
		return s, nil
	}
	s.metrics = newMetrics(opts.Registerer, s.logger)
	base, err := baseSettings(opts.OpAMP)
	if err != nil {
		return nil, err
	}
	s.base = base
	if opts.OpAMP.InstanceUID != "" {
		s.uid, err = uuid.Parse(opts.OpAMP.InstanceUID)
		if err != nil {
			return nil, fmt.Errorf("--opamp.instance-uid %q: %w", opts.OpAMP.InstanceUID, err)
		}
	} else if s.uid, err = s.store.instanceUID(); err != nil {
		return nil, err
	}
	if _, hash, ok, err := s.store.applied(); err != nil {
		return nil, err
	} else if ok {
		s.status = &protobufs.RemoteConfigStatus{LastRemoteConfigHash: hash, Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED}
	}
	return s, nil
}

// Definition describes the service: it takes no script configuration,
// so that a remote config cannot change the connection it came over.
func (s *Service) Definition() service.Definition {
	return service.Definition{Name: ServiceName}
}

// Update accepts the zero config only.
func (s *Service) Update(any) error { return nil }

// Data is nil: components do not use the service.
func (s *Service) Data() any { return nil }

// InstanceUID returns the agent's instance uid (the zero UUID when off).
func (s *Service) InstanceUID() uuid.UUID { return s.uid }

// Run connects to the server and reports to it until ctx ends, applying
// the remote configs it offers.
func (s *Service) Run(ctx context.Context, host service.Host) error {
	if s.opts.OpAMP.Endpoint == "" {
		<-ctx.Done()
		return nil
	}
	s.logger.Info("connecting to the OpAMP server", "endpoint", s.base.endpoint, "instance_uid", s.uid.String())
	s.health = componentHealth(host.ListComponents(), s.start)
	c, err := s.connect(ctx, s.base)
	if err != nil {
		return fmt.Errorf("opamp: %w", err)
	}
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { s.applyLoop(ctx) })
	wg.Go(func() { s.reportLoop(ctx, host) })
	<-ctx.Done()
	wg.Wait()
	s.mu.Lock()
	c = s.conn
	s.mu.Unlock()
	s.stopConn(c)
	return nil
}

// connect starts a client with cs; it connects (and reconnects) in the
// background.
func (s *Service) connect(ctx context.Context, cs connSettings) (*conn, error) {
	c := &conn{settings: cs, client: newClient(cs.endpoint, slogLogger{s.logger}), connected: make(chan struct{})}
	s.mu.Lock()
	status, health := s.status, s.health
	s.mu.Unlock()
	if err := c.client.SetAgentDescription(agentDescription(s.opts.OpAMP.Version)); err != nil {
		return nil, fmt.Errorf("agent description: %w", err)
	}
	if health == nil {
		health = &protobufs.ComponentHealth{Status: "starting"}
	}
	// Health before capabilities: the client refuses ReportsHealth
	// without a health to report.
	if err := c.client.SetHealth(health); err != nil {
		return nil, fmt.Errorf("health: %w", err)
	}
	caps := capabilities
	if err := c.client.SetCapabilities(&caps); err != nil {
		return nil, fmt.Errorf("capabilities: %w", err)
	}
	settings := types.StartSettings{
		OpAMPServerURL:     cs.endpoint,
		Header:             cs.header,
		TLSConfig:          cs.tls,
		InstanceUid:        types.InstanceUid(s.uid),
		RemoteConfigStatus: status,
		Callbacks: types.Callbacks{
			OnConnect: func(context.Context) {
				s.metrics.connected.Set(1)
				c.once.Do(func() {
					close(c.connected)
					s.logger.Info("connected to the OpAMP server", "endpoint", cs.endpoint)
				})
			},
			OnConnectFailed: func(_ context.Context, err error) {
				s.metrics.connected.Set(0)
				s.metrics.connectFailures.Inc()
				s.logger.Warn("cannot reach the OpAMP server; retrying", "endpoint", cs.endpoint, "err", err)
			},
			OnError: func(_ context.Context, e *protobufs.ServerErrorResponse) {
				s.logger.Warn("the OpAMP server answered an error", "type", e.GetType().String(), "message", e.GetErrorMessage())
			},
			OnMessage: func(_ context.Context, msg *types.MessageData) {
				if msg.RemoteConfig != nil {
					s.offer(msg.RemoteConfig)
				}
			},
			OnOpampConnectionSettings: func(_ context.Context, offer *protobufs.OpAMPConnectionSettings) error {
				return s.offerSettings(ctx, c, offer)
			},
			GetEffectiveConfig: func(context.Context) (*protobufs.EffectiveConfig, error) {
				return s.effectiveConfig(), nil
			},
		},
	}
	if d := s.opts.OpAMP.HeartbeatInterval; d > 0 {
		settings.HeartbeatInterval = &d
	}
	if err := c.client.Start(ctx, settings); err != nil {
		return nil, fmt.Errorf("starting the OpAMP client for %s: %w", cs.endpoint, err)
	}
	return c, nil
}

func (s *Service) stopConn(c *conn) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := c.client.Stop(ctx); err != nil {
		s.logger.Warn("closing the OpAMP connection", "err", err)
	}
	s.metrics.connected.Set(0)
}

// current returns the client in use.
func (s *Service) current() client.OpAMPClient {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil
	}
	return s.conn.client
}

// offerSettings handles the server's offer of connection settings for
// the connection from: an invalid offer is refused (FAILED), a valid one
// is accepted and switched to in the background (the callback runs on the
// client's receiving goroutine, which stopping the client waits for).
func (s *Service) offerSettings(ctx context.Context, from *conn, offer *protobufs.OpAMPConnectionSettings) error {
	next, err := from.settings.withOffer(offer)
	if err != nil {
		s.metrics.connSettings.WithLabelValues("refused").Inc()
		s.logger.Warn("refused the connection settings the OpAMP server offered", "err", err)
		return err
	}
	go s.switchTo(ctx, from, next)
	return nil
}

// switchTo replaces the connection from by one with next; if that one
// has not connected within switchTimeout, from's settings are used again.
func (s *Service) switchTo(ctx context.Context, from *conn, next connSettings) {
	s.switchMu.Lock()
	defer s.switchMu.Unlock()
	s.mu.Lock()
	if s.conn != from {
		s.mu.Unlock()
		return // replaced already
	}
	s.mu.Unlock()
	s.logger.Info("switching to the connection settings the OpAMP server offered", "endpoint", next.endpoint)
	s.stopConn(from)
	c, err := s.connect(ctx, next)
	if err == nil {
		t := time.NewTimer(switchTimeout)
		defer t.Stop()
		select {
		case <-c.connected:
			s.mu.Lock()
			s.conn = c
			s.mu.Unlock()
			s.metrics.connSettings.WithLabelValues("applied").Inc()
			return
		case <-t.C:
			err = fmt.Errorf("no connection within %s", switchTimeout)
		case <-ctx.Done():
			s.mu.Lock()
			s.conn = c // Run stops it
			s.mu.Unlock()
			return
		}
		s.stopConn(c)
	}
	s.metrics.connSettings.WithLabelValues("rolled_back").Inc()
	s.logger.Error("the offered OpAMP connection settings did not connect; using the previous ones again", "endpoint", next.endpoint, "err", err)
	back, err := s.connect(ctx, from.settings)
	if err != nil {
		s.logger.Error("reconnecting with the previous OpAMP settings failed", "err", err)
		return
	}
	s.mu.Lock()
	s.conn = back
	s.mu.Unlock()
}

// offer queues a remote config; a newer offer replaces one not applied
// yet.
func (s *Service) offer(rc *protobufs.AgentRemoteConfig) {
	s.mu.Lock()
	s.pending = rc
	s.mu.Unlock()
	select {
	case s.offered <- struct{}{}:
	default:
	}
}

// applyLoop applies the offered remote configs, one at a time, until ctx
// ends.
func (s *Service) applyLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.offered:
		}
		s.mu.Lock()
		rc := s.pending
		s.pending = nil
		last := s.status
		s.mu.Unlock()
		if rc == nil {
			continue
		}
		hash := rc.GetConfigHash()
		if last != nil && len(hash) > 0 && bytes.Equal(last.GetLastRemoteConfigHash(), hash) && last.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLYING {
			// Offered again (a reconnection): what it did then stands.
			if last.GetStatus() == protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED {
				s.metrics.remoteConfigs.WithLabelValues("unchanged").Inc()
			}
			s.setStatus(last)
			continue
		}
		s.setStatus(&protobufs.RemoteConfigStatus{LastRemoteConfigHash: hash, Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLYING})
		start := time.Now()
		if err := s.apply(rc.GetConfig(), hash); err != nil {
			s.metrics.remoteConfigs.WithLabelValues("failed").Inc()
			s.logger.Error("the remote config failed; the running pipeline is unchanged", "hash", fmt.Sprintf("%x", hash), "err", err)
			s.setStatus(&protobufs.RemoteConfigStatus{LastRemoteConfigHash: hash, Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED, ErrorMessage: err.Error()})
			continue
		}
		s.metrics.remoteConfigs.WithLabelValues("applied").Inc()
		s.logger.Info("applied the remote config", "hash", fmt.Sprintf("%x", hash), "duration", time.Since(start))
		s.setStatus(&protobufs.RemoteConfigStatus{LastRemoteConfigHash: hash, Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED})
		s.updateEffectiveConfig(ctx)
	}
}

// apply stages a remote config's files under --storage.path, reloads
// from its main file and, once that applied, keeps it as the config to
// start from. Errors name the config's own files (pipeline.lua:3), not
// where they were staged.
func (s *Service) apply(cm *protobufs.AgentConfigMap, hash []byte) error {
	if s.opts.ReloadFrom == nil {
		return errors.New("this process cannot change its pipeline")
	}
	files, main, err := configFiles(cm)
	if err != nil {
		return err
	}
	dir, err := s.store.stage(files)
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := s.opts.ReloadFrom(filepath.Join(dir, filepath.FromSlash(main))); err != nil {
		s.store.discard(dir)
		return errors.New(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
	}
	if err := s.store.commit(dir, main, hash); err != nil {
		s.logger.Error("the remote config applied but could not be kept: a restart starts from the previous one", "err", err)
	}
	return nil
}

// setStatus records and reports a remote config status.
func (s *Service) setStatus(st *protobufs.RemoteConfigStatus) {
	s.mu.Lock()
	s.status = st
	s.mu.Unlock()
	if c := s.current(); c != nil {
		if err := c.SetRemoteConfigStatus(st); err != nil {
			s.logger.Warn("reporting the remote config status", "err", err)
		}
	}
}

func (s *Service) updateEffectiveConfig(ctx context.Context) {
	if c := s.current(); c != nil {
		if err := c.UpdateEffectiveConfig(ctx); err != nil {
			s.logger.Warn("reporting the effective config", "err", err)
		}
	}
}

func (s *Service) effectiveConfig() *protobufs.EffectiveConfig {
	if s.opts.Pipeline == nil {
		return &protobufs.EffectiveConfig{ConfigMap: &protobufs.AgentConfigMap{}}
	}
	main, files := s.opts.Pipeline()
	return effectiveConfig(main, files)
}

// reportLoop reports each change of the components' health, and the
// effective config after each load that applied, until ctx ends.
func (s *Service) reportLoop(ctx context.Context, host service.Host) {
	t := time.NewTicker(healthEvery)
	defer t.Stop()
	lastHealth := healthKey(host.ListComponents())
	lastLoad := host.LastLoad().Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		infos := host.ListComponents()
		if k := healthKey(infos); k != lastHealth {
			lastHealth = k
			h := componentHealth(infos, s.start)
			s.mu.Lock()
			s.health = h
			s.mu.Unlock()
			if c := s.current(); c != nil {
				if err := c.SetHealth(h); err != nil {
					s.logger.Warn("reporting health", "err", err)
				} else {
					s.metrics.healthReports.Inc()
				}
			}
		}
		if l := host.LastLoad(); !l.Time.Equal(lastLoad) {
			lastLoad = l.Time
			if l.Err == nil {
				s.updateEffectiveConfig(ctx)
			}
		}
	}
}
