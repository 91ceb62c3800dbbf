package http

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/services"
)

func init() {
	services.Register(services.Registration{
		Name: ServiceName,
		New:  func(opts services.Options) (services.Service, error) { return New(opts), nil },
	})
}

// Service is the http service.
type Service struct {
	opts   services.Options
	logger *slog.Logger

	tlsConfig atomic.Pointer[tls.Config] // nil: plaintext
	addr      atomic.Pointer[string]     // the bound address once listening

	mu     sync.RWMutex
	routes map[string]http.Handler // component id -> handler under its prefix
	host   services.Host
}

var _ services.Service = (*Service)(nil)

// Data is what components that declare the http service get.
type Data struct {
	svc *Service
}

// Handle registers h as the component's routes under
// /api/v0/component/{id}/; the handler sees paths relative to that prefix.
// Registering again replaces the handler; nil removes it.
func (d Data) Handle(componentID string, h http.Handler) {
	d.svc.mu.Lock()
	defer d.svc.mu.Unlock()
	if h == nil {
		delete(d.svc.routes, componentID)
		return
	}
	d.svc.routes[componentID] = h
}

// PathPrefix returns the prefix of a component's routes.
func (d Data) PathPrefix(componentID string) string {
	return "/api/v0/component/" + componentID + "/"
}

// New returns the http service.
func New(opts services.Options) *Service {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: opts, logger: logger.With("service", ServiceName), routes: map[string]http.Handler{}}
}

// Definition describes the service.
func (s *Service) Definition() services.Definition {
	return services.Definition{Name: ServiceName, ConfigType: Config{}}
}

// Data returns the handle components use to register routes.
func (s *Service) Data() any { return Data{svc: s} }

// Addr returns the address the service listens on, or "" before Run.
func (s *Service) Addr() string {
	if p := s.addr.Load(); p != nil {
		return *p
	}
	return ""
}

// Update applies a new `http { ... }` block. A TLS setting takes effect for
// the next connection: no restart, no port re-bind.
func (s *Service) Update(newConfig any) error {
	cfg, _ := newConfig.(Config)
	if cfg.TLS == nil {
		s.tlsConfig.Store(nil)
		return nil
	}
	tc, err := cfg.TLS.Build()
	if err != nil {
		return fmt.Errorf("http: tls: %w", err)
	}
	s.tlsConfig.Store(tc)
	return nil
}

// Run serves until ctx ends.
func (s *Service) Run(ctx context.Context, host services.Host) error {
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
	addr := ln.Addr().String()
	s.addr.Store(&addr)
	s.logger.Info("serving HTTP", "addr", addr)
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(&switchingListener{Listener: ln, tls: &s.tlsConfig}) }()
	select {
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("http: %w", err)
	}
}

func (s *Service) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /-/ready", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Ready != nil && !s.opts.Ready() {
			http.Error(w, "not ready: the first load has not been applied", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("GET /-/healthy", s.serveHealthy)
	mux.HandleFunc("POST /-/reload", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Reload == nil {
			http.Error(w, "reload is not available", http.StatusNotImplemented)
			return
		}
		if err := s.opts.Reload(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, "reloaded")
	})
	if s.opts.Metrics != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(s.opts.Metrics, promhttp.HandlerOpts{}))
	}
	mux.HandleFunc("GET /api/v0/components", func(w http.ResponseWriter, r *http.Request) {
		host := s.currentHost()
		if host == nil {
			writeJSON(w, http.StatusOK, []componentJSON{})
			return
		}
		infos := host.ListComponents()
		out := make([]componentJSON, 0, len(infos))
		for _, info := range infos {
			out = append(out, toJSON(info))
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /api/v0/components/{id}", func(w http.ResponseWriter, r *http.Request) {
		host := s.currentHost()
		if host == nil {
			http.NotFound(w, r)
			return
		}
		info, err := host.GetComponent(r.PathValue("id"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, http.StatusOK, toJSON(info))
	})
	mux.HandleFunc("/api/v0/component/{id}/", s.serveComponentRoute)
	return mux
}

func (s *Service) currentHost() services.Host {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.host
}

func (s *Service) serveHealthy(w http.ResponseWriter, r *http.Request) {
	host := s.currentHost()
	if host == nil {
		http.Error(w, "not running yet", http.StatusServiceUnavailable)
		return
	}
	var bad []string
	for _, info := range host.ListComponents() {
		if info.Health.Health == component.HealthUnhealthy || info.Health.Health == component.HealthExited {
			bad = append(bad, fmt.Sprintf("%s: %s: %s", info.ID, info.Health.Health, info.Health.Message))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		http.Error(w, "unhealthy components:\n"+strings.Join(bad, "\n"), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "healthy")
}

func (s *Service) serveComponentRoute(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.RLock()
	h := s.routes[id]
	s.mu.RUnlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	http.StripPrefix(strings.TrimSuffix(Data{}.PathPrefix(id), "/"), h).ServeHTTP(w, r)
}

type healthJSON struct {
	State      string    `json:"state"`
	Message    string    `json:"message"`
	UpdateTime time.Time `json:"updated_at"`
}

type componentJSON struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Label        string     `json:"label"`
	Health       healthJSON `json:"health"`
	Dependencies []string   `json:"dependencies"`
	Dependants   []string   `json:"dependants"`
}

func toJSON(info component.Info) componentJSON {
	return componentJSON{
		ID:    info.ID,
		Name:  info.Name,
		Label: info.Label,
		Health: healthJSON{
			State:      info.Health.Health.String(),
			Message:    info.Health.Message,
			UpdateTime: info.Health.UpdateTime,
		},
		Dependencies: nonNil(info.Dependencies),
		Dependants:   nonNil(info.Dependants),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
