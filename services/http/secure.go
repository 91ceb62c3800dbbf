package http

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// pageCSP is the Content-Security-Policy of everything the service
// serves: the page loads its scripts, style and data from this origin
// only, runs no inline script or style, and is framed by no one.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secureHeaders sets the headers that keep a browser from running
// anything but the page's own code on this origin: the CSP above, no
// content sniffing, no framing. The peer proxy replaces the CSP with a
// sandbox for what it passes on.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// checkOrigin refuses (403) a request that changes the node (any method
// but GET, HEAD and OPTIONS on flowlua's own routes, such as POST
// /-/reload) when a browser sent it from a page of another origin: its
// Origin is not this address, Sec-Fetch-Site says cross-site, or its Host
// is a name that is not this node's (a DNS name rebound to this address
// makes a foreign page same-origin). Requests without Origin or
// Sec-Fetch-Site do not come from a web page (browsers send Origin with
// every such method) and pass: curl, scripts, Prometheus. The routes of
// components (/api/v0/component/{id}/...) are theirs to guard.
func (s *Service) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			next.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, componentRoutesRoot) {
			next.ServeHTTP(w, r)
			return
		}
		if err := s.fromThisOrigin(r); err != nil {
			http.Error(w, "forbidden: "+err.Error(), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// fromThisOrigin returns why a browser's request comes from another
// origin, nil when it does not (or is not a browser's).
func (s *Service) fromThisOrigin(r *http.Request) error {
	origin, site := r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site")
	if origin == "" && site == "" {
		return nil
	}
	if site != "" && site != "same-origin" && site != "none" {
		return fmt.Errorf("a %s request may not change this node", site)
	}
	if !s.allowedHost(r.Host) {
		return fmt.Errorf("host %q is not an address of this node", r.Host)
	}
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if err != nil || u.Scheme != scheme || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Errorf("origin %q is not this node's (%s://%s)", origin, scheme, r.Host)
	}
	return nil
}

// allowedHost reports whether a request's Host names this node: an IP
// address, localhost, the host of --http.listen-addr or this machine's
// name. Any other name may be an attacker's, rebound to this address.
func (s *Service) allowedHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	switch {
	case host == "":
		return false
	case net.ParseIP(host) != nil:
		return true
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return true
	}
	if h, _, err := net.SplitHostPort(s.opts.HTTPListenAddr); err == nil && strings.EqualFold(h, host) {
		return true
	}
	if name, err := os.Hostname(); err == nil {
		name = strings.ToLower(name)
		if host == name || host == strings.SplitN(name, ".", 2)[0] {
			return true
		}
	}
	return false
}
