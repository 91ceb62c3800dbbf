package http

import (
	"fmt"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flowlua/flowlua/engine/service"
)

// handler returns everything the service serves (see SPEC section 6).
func (s *Service) handler() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, label string, h http.HandlerFunc) {
		mux.Handle(pattern, s.metrics.instrument(label, h))
	}
	handle("GET /-/ready", "/-/ready", s.serveReady)
	handle("GET /-/healthy", "/-/healthy", s.serveHealthy)
	handle("POST /-/reload", "/-/reload", s.serveReload)
	if s.opts.Metrics != nil {
		metrics := promhttp.HandlerFor(s.opts.Metrics, promhttp.HandlerOpts{
			ErrorHandling: promhttp.ContinueOnError, // one broken collector must not hide the rest
		})
		handle("GET /metrics", "/metrics", metrics.ServeHTTP)
	}
	handle("GET /api/v0/components", "/api/v0/components", s.serveComponents)
	handle("GET /api/v0/components/{id}", "/api/v0/components/{id}", s.serveComponent)
	handle(componentRoutesRoot+"{id}/", componentRoutesRoot+"{id}/", s.serveComponentRoute)
	handle("/api/v0/cluster/", "/api/v0/cluster/", s.serveCluster)
	handle("GET /api/v0/debug/{id}", "/api/v0/debug/{id}", s.serveDebug)
	handle("GET /api/v0/graph", "/api/v0/graph", s.serveGraph)
	handle("GET /{$}", "/", s.serveIndex)
	handle("GET /component/{id}", "/component/{id}", s.serveComponentPage)
	handle("GET /static/", "/static/", s.serveStatic)
	// The Go profiler, as Alloy and the collector's pprof extension
	// offer; off with --no-http.enable-pprof, as Alloy's
	// --server.http.enable-pprof=false.
	if !s.opts.DisablePprof {
		handle("GET /debug/pprof/", "/debug/pprof/", pprof.Index)
		handle("GET /debug/pprof/cmdline", "/debug/pprof/cmdline", pprof.Cmdline)
		handle("GET /debug/pprof/profile", "/debug/pprof/profile", pprof.Profile)
		handle("GET /debug/pprof/symbol", "/debug/pprof/symbol", pprof.Symbol)
		handle("GET /debug/pprof/trace", "/debug/pprof/trace", pprof.Trace)
	}
	handle("/", "other", http.NotFound)
	return secureHeaders(s.refusePlaintext(s.requireAuth(s.checkOrigin(mux))))
}

// refusePlaintext refuses plaintext requests while TLS is on. The
// listener refuses new plaintext connections; this catches requests on a
// plaintext keep-alive connection opened before TLS was configured.
func (s *Service) refusePlaintext(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil && s.tlsConfig.Load() != nil {
			w.Header().Set("Connection", "close")
			http.Error(w, "Client sent an HTTP request to an HTTPS server.", http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serveReady answers 200 once the first load has been applied and its
// components have started, else 503 with the reason.
func (s *Service) serveReady(w http.ResponseWriter, r *http.Request) {
	if s.opts.Ready != nil {
		if err := s.opts.Ready(); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
	}
	fmt.Fprintln(w, "ready")
}

// serveReload reloads the script: 200, or 400 with the errors of a
// rejected script (the running graph is kept).
func (s *Service) serveReload(w http.ResponseWriter, r *http.Request) {
	if s.opts.Reload == nil {
		http.Error(w, "reload is not available", http.StatusNotImplemented)
		return
	}
	if err := s.opts.Reload(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintln(w, "reloaded")
}

// serveComponentRoute passes a request under a component's prefix to the
// handler the component registered, or answers 404.
func (s *Service) serveComponentRoute(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	host := s.currentHost()
	h := s.routes.lookup(id, host)
	if h == nil {
		if host != nil {
			s.routes.prune(host.ListComponents())
		}
		http.Error(w, "no routes for component "+id, http.StatusNotFound)
		return
	}
	http.StripPrefix(strings.TrimSuffix(ComponentPrefix(id), "/"), h).ServeHTTP(w, r)
}

// debugger is the livedebugging service, as the http service uses it.
type debugger interface {
	ServeDebug(w http.ResponseWriter, r *http.Request, id string)
	Enabled() bool
}

// liveDebugger returns the livedebugging service, or nil.
func (s *Service) liveDebugger() debugger {
	host := s.currentHost()
	if host == nil {
		return nil
	}
	svc, ok := host.GetService("livedebugging")
	if !ok {
		return nil
	}
	d, _ := svc.(debugger)
	return d
}

// serveDebug streams what a component sends (the livedebugging service).
func (s *Service) serveDebug(w http.ResponseWriter, r *http.Request) {
	d := s.liveDebugger()
	if d == nil {
		http.Error(w, "live debugging is not available", http.StatusNotFound)
		return
	}
	d.ServeDebug(w, r, r.PathValue("id"))
}

// clusterAPI is the cluster service, as the http service uses it.
type clusterAPI interface {
	ServeClusterAPI(w http.ResponseWriter, r *http.Request, host service.Host)
}

// serveCluster passes the cluster's API (peers, and reads of a peer's API
// through this node) to the cluster service.
func (s *Service) serveCluster(w http.ResponseWriter, r *http.Request) {
	host := s.currentHost()
	var api clusterAPI
	if host != nil {
		if svc, ok := host.GetService("cluster"); ok {
			api, _ = svc.(clusterAPI)
		}
	}
	if api == nil {
		http.Error(w, "clustering is not available", http.StatusNotFound)
		return
	}
	api.ServeClusterAPI(w, r, host)
}
