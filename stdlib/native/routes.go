package native

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strings"
)

// routesHandler is what the http service's data offers a component: its
// routes under /api/v0/component/{id}/ (services/http.Data.Handle).
type routesHandler interface {
	Handle(componentID string, h http.Handler) (unregister func(), err error)
}

// routesSocket returns the Unix socket the plugin's processes serve
// their components' routes on: one path for the Plugin, so that a
// restarted process serves where the last one did.
func (p *Plugin) routesSocket() string {
	p.m.mu.Lock()
	defer p.m.mu.Unlock()
	if p.m.routesDir == "" {
		dir, err := os.MkdirTemp("", "flowlua-plugins-")
		if err != nil {
			return ""
		}
		p.m.routesDir = dir
	}
	if p.socket == "" {
		p.m.sockets++
		p.socket = filepath.Join(p.m.routesDir, fmt.Sprintf("%d.sock", p.m.sockets))
	}
	return p.socket
}

// serveRoutes registers the instance's routes with the http service, when
// its component serves any, and returns the function that removes them.
func (px *proxy) serveRoutes() (func(), error) {
	if !px.c.Routes || px.opts.GetServiceData == nil {
		return func() {}, nil
	}
	d, err := px.opts.GetServiceData("http")
	if err != nil {
		return nil, err
	}
	h, ok := d.(routesHandler)
	if !ok {
		return nil, fmt.Errorf("the http service's data (%T) cannot serve routes", d)
	}
	return h.Handle(px.opts.ID, px.routeProxy())
}

// routeProxy forwards a request (its path already stripped of the
// component's prefix) to the plugin as /{instance}/{path}; while the
// plugin is down it answers 503 with the reason.
func (px *proxy) routeProxy() http.Handler {
	socket := px.p.routesSocket()
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme = "http"
			r.Out.URL.Host = "plugin"
			r.Out.URL.Path = "/" + px.wireID + "/" + strings.TrimPrefix(r.In.URL.Path, "/")
			r.Out.URL.RawPath = ""
			r.Out.Host = "plugin"
		},
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", socket)
			},
			MaxIdleConnsPerHost: 4,
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			px.unavailable(w, err.Error())
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		px.mu.Lock()
		proc := px.startedOn
		px.mu.Unlock()
		if proc == nil || proc.isDead() {
			px.unavailable(w, "")
			return
		}
		rp.ServeHTTP(w, r)
	})
}

// unavailable answers 503 with why the plugin does not serve the
// component.
func (px *proxy) unavailable(w http.ResponseWriter, detail string) {
	h := px.CurrentHealth()
	msg := fmt.Sprintf("%s is not available: plugin %s does not serve it", px.opts.ID, px.p.label())
	if h.Message != "" {
		msg += ": " + h.Message
	}
	if detail != "" {
		msg += " (" + detail + ")"
	}
	w.Header().Set("Retry-After", "1")
	http.Error(w, msg, http.StatusServiceUnavailable)
}
