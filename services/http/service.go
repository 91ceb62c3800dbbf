package http

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

func init() {
	services.Register(services.Registration{
		Name: ServiceName,
		New:  func(opts services.Options) (service.Service, error) { return New(opts), nil },
	})
}

// shutdownTimeout bounds the wait for in-flight requests at shutdown.
const shutdownTimeout = 5 * time.Second

// Service is the http service: one address serving readiness, health,
// reload, metrics, the components API and the routes of components, in
// plaintext or TLS as the script's `http { tls = ... }` block says.
type Service struct {
	opts    services.Options
	logger  *slog.Logger
	metrics *serviceMetrics
	routes  *routeTable

	tlsConfig atomic.Pointer[tls.Config]   // nil: plaintext
	peerTLS   atomic.Pointer[tls.Config]   // how peers are reached; nil: plaintext
	users     atomic.Pointer[[]credential] // nil: no basic_auth
	addr      atomic.Pointer[string]       // the bound address once listening

	mu   sync.RWMutex
	host service.Host // set by Run
}

var _ service.Service = (*Service)(nil)

// New returns the http service; it listens once Run is called.
func New(opts services.Options) *Service {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: opts, logger: logger.With("service", ServiceName)}
	s.routes = newRouteTable(s.liveComponent)
	s.metrics = newServiceMetrics(s, opts.Registerer)
	return s
}

// Definition describes the service.
func (s *Service) Definition() service.Definition {
	return service.Definition{Name: ServiceName, ConfigType: Config{}}
}

// Data returns the Data components use to register routes, for any
// component id. Safe for concurrent use.
func (s *Service) Data() any { return Data{routes: s.routes} }

// ComponentData returns the Data handed to one component: its Handle
// refuses any id but componentID. An engine that knows which component
// asks calls it instead of Data. Safe for concurrent use.
func (s *Service) ComponentData(componentID string) any {
	return Data{routes: s.routes, owner: componentID}
}

// Addr returns the address the service listens on, or "" before Run.
func (s *Service) Addr() string {
	if p := s.addr.Load(); p != nil {
		return *p
	}
	return ""
}

// Update applies a new `http { ... }` block. A TLS setting takes effect
// for the next connection, with no restart and no re-bind: configuring
// TLS refuses plaintext from then on, removing it serves plaintext again.
// An invalid TLS setting is an error and the previous one stays.
func (s *Service) Update(newConfig any) error {
	cfg, ok := newConfig.(Config)
	if !ok && newConfig != nil {
		return fmt.Errorf("http: unexpected config type %T", newConfig)
	}
	s.updateAuth(cfg.BasicAuth)
	if cfg.TLS == nil {
		s.peerTLS.Store(nil)
		if s.tlsConfig.Swap(nil) != nil {
			s.logger.Info("TLS off: serving plaintext")
		}
		return nil
	}
	tc, err := cfg.TLS.Build()
	if err != nil {
		return fmt.Errorf("http: tls: %w", err)
	}
	s.peerTLS.Store(cfg.TLS.peerClientConfig(tc))
	if s.tlsConfig.Swap(tc) == nil {
		s.logger.Info("TLS on: plaintext requests are refused")
	} else {
		s.logger.Info("TLS configuration updated")
	}
	return nil
}

// updateAuth applies basic_auth: it takes effect for the next request.
func (s *Service) updateAuth(c *BasicAuthConfig) {
	if c == nil {
		if s.users.Swap(nil) != nil {
			s.logger.Info("basic auth off")
		}
		return
	}
	creds := c.credentials()
	if s.users.Swap(&creds) == nil {
		s.logger.Info("basic auth on", "users", len(creds))
	}
}

// Run listens on the --http.listen-addr address and serves until ctx
// ends. An address that cannot be bound is fatal to the process.
func (s *Service) Run(ctx context.Context, host service.Host) error {
	s.mu.Lock()
	s.host = host
	s.mu.Unlock()
	ln, err := net.Listen("tcp", s.opts.HTTPListenAddr)
	if err != nil {
		err = fmt.Errorf("http: listening on %s: %w", s.opts.HTTPListenAddr, err)
		if s.opts.Fatal != nil {
			s.opts.Fatal(err)
		}
		return err
	}
	return s.serve(ctx, ln)
}

// serve serves on ln until ctx ends.
func (s *Service) serve(ctx context.Context, ln net.Listener) error {
	addr := ln.Addr().String()
	s.addr.Store(&addr)
	if s.tlsConfig.Load() != nil {
		s.logger.Info("serving HTTPS", "addr", addr, "tls", true)
	} else {
		s.logger.Info("serving plaintext HTTP", "addr", addr, "tls", false)
	}
	sl := newSwitchingListener(ln, &s.tlsConfig, s.logger, defaultTimeouts)
	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(sl) }()
	select {
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			_ = srv.Close()
		}
		<-errc
		return nil
	case err := <-errc:
		sl.Close()
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("http: %w", err)
	}
}

// liveComponent returns the component running under id, or nil.
func (s *Service) liveComponent(id string) component.Component {
	host := s.currentHost()
	if host == nil {
		return nil
	}
	info, err := host.GetComponent(id)
	if err != nil {
		return nil
	}
	return info.Component
}

func (s *Service) currentHost() service.Host {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.host
}
