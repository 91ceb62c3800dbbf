package pluginsdk

import (
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// Routed is implemented by a component that serves HTTP routes. flowlua
// serves them on its one address under /api/v0/component/{id}/, proxied
// to the plugin: a request for /api/v0/component/{id}/stats reaches the
// handler as /stats. List the component's type in Plugin.Routed.
type Routed interface {
	Routes() http.Handler
}

// serveRoutes serves the instances' routes on the Unix socket flowlua names
// in wire.EnvRoutesSocket, until the process exits. The first path
// segment is the instance.
func (s *server) serveRoutes(path string) error {
	_ = os.Remove(path) // a socket left by a process of this plugin that died
	ln, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.route), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("serving component routes: " + err.Error())
		}
	}()
	return nil
}

func (s *server) route(w http.ResponseWriter, r *http.Request) {
	id, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	s.mu.Lock()
	inst := s.instances[id]
	s.mu.Unlock()
	if inst == nil {
		http.Error(w, "the component is not running in this plugin", http.StatusServiceUnavailable)
		return
	}
	for _, part := range inst.parts {
		if rt, ok := part.(Routed); ok {
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + rest
			r2.URL.RawPath = ""
			rt.Routes().ServeHTTP(w, r2)
			return
		}
	}
	http.NotFound(w, r)
}
