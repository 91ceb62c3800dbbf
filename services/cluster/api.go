package cluster

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"time"

	"github.com/flowlua/flowlua/engine/service"
)

// Bounds of a proxied read: a peer that does not answer in time is
// reported unavailable, never waited for.
const (
	proxyDialTimeout   = 2 * time.Second
	proxyHeaderTimeout = 5 * time.Second
)

// APIRoot is where the cluster's API lives; the http service passes it
// every request under it (ServeClusterAPI).
const APIRoot = "/api/v0/cluster/"

// peerJSON is a peer as /api/v0/cluster/peers shows it.
type peerJSON struct {
	Name     string    `json:"name"`
	Self     bool      `json:"self"`
	State    string    `json:"state"`
	Since    time.Time `json:"since"`
	LastSeen time.Time `json:"last_seen"`
	Addr     string    `json:"addr,omitempty"`
	HTTPAddr string    `json:"http_addr,omitempty"`
	// Owns counts what the peer runs of this node's unique components
	// (every node computes the same placement).
	Owns ownsJSON `json:"owns"`
}

type ownsJSON struct {
	UniqueComponents int `json:"unique_components"`
}

// ServeClusterAPI answers the requests under APIRoot:
//
//   - GET /api/v0/cluster/peers: every node seen, sorted by name;
//   - GET /api/v0/cluster/peers/{name}/{path...}: GET {path} of the peer's
//     own http address (its API, health, metrics), 503 with the reason
//     when the peer is down or does not answer in time (see proxy for
//     what is refused and what is not passed on).
func (s *Service) ServeClusterAPI(w http.ResponseWriter, r *http.Request, host service.Host) {
	rest, ok := strings.CutPrefix(r.URL.Path, APIRoot+"peers")
	if !ok {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the cluster API is read-only", http.StatusMethodNotAllowed)
		return
	}
	if rest == "" || rest == "/" {
		s.servePeers(w, host)
		return
	}
	name, path, _ := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
	s.proxy(w, r, host, name, "/"+path)
}

func (s *Service) servePeers(w http.ResponseWriter, host service.Host) {
	owned := map[string]int{}
	if host != nil {
		for _, info := range host.ListComponents() {
			if info.Placement == "unique" && info.Owner != "" {
				owned[info.Owner]++
			}
		}
	}
	peers := s.Peers()
	out := make([]peerJSON, 0, len(peers))
	for _, p := range peers {
		out = append(out, peerJSON{
			Name: p.Name, Self: p.Name == s.self, State: p.State, Since: p.Since, LastSeen: p.LastSeen,
			Addr: p.Addr, HTTPAddr: p.HTTPAddr, Owns: ownsJSON{UniqueComponents: owned[p.Name]},
		})
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}

// ProxyHopHeader marks a request the peer proxy sends: a node refuses to
// proxy a request that carries it, so that a read goes through one proxy
// at most and can never loop back into the node that sent it.
const ProxyHopHeader = "X-Flowlua-Proxied-By"

// maxProxyTarget bounds the path and query a proxied read may ask a peer
// for: the API's own paths are far shorter.
const maxProxyTarget = 2048

// proxyCSP is the Content-Security-Policy of proxied content: a peer's
// answer is shown as data, in a sandbox with no script and an opaque
// origin, never as a page of this node's origin.
const proxyCSP = "sandbox; default-src 'none'; frame-ancestors 'none'"

// PeerTLS is what the http service offers the peer proxy: the client TLS
// configuration to reach peers with while its own `http { tls }` is on.
type PeerTLS interface {
	// PeerTLSConfig returns the configuration, or nil when the http
	// service serves plaintext (peers are then read over http://).
	PeerTLSConfig() *tls.Config
}

// peerTransport returns the transport for tc (nil: plaintext), made
// once per configuration.
func (s *Service) peerTransport(tc *tls.Config) *http.Transport {
	s.proxyMu.Lock()
	defer s.proxyMu.Unlock()
	if s.proxyRT != nil && s.proxyTLS == tc {
		return s.proxyRT
	}
	if s.proxyRT != nil {
		s.proxyRT.CloseIdleConnections()
	}
	s.proxyTLS = tc
	s.proxyRT = &http.Transport{
		DialContext:           (&net.Dialer{Timeout: proxyDialTimeout}).DialContext,
		TLSClientConfig:       tc,
		TLSHandshakeTimeout:   proxyDialTimeout,
		ResponseHeaderTimeout: proxyHeaderTimeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       time.Minute,
		ForceAttemptHTTP2:     tc != nil,
	}
	return s.proxyRT
}

// peerTLSConfig asks the http service for its client TLS configuration.
func peerTLSConfig(host service.Host) *tls.Config {
	if host == nil {
		return nil
	}
	svc, ok := host.GetService("http")
	if !ok {
		return nil
	}
	if p, ok := svc.(PeerTLS); ok {
		return p.PeerTLSConfig()
	}
	return nil
}

// peerTarget returns the address a peer's http service is read at: its
// advertised http address, on its gossip host when that address names no
// host. An http address on another host than the peer's gossip address is
// refused: a member could otherwise send this node's reads anywhere.
func peerTarget(p *peer) (string, error) {
	host, port, err := net.SplitHostPort(p.HTTPAddr)
	if err != nil {
		return "", fmt.Errorf("its http address %q is not host:port", p.HTTPAddr)
	}
	gossipHost, _, err := net.SplitHostPort(p.Addr)
	if err != nil || gossipHost == "" {
		return "", fmt.Errorf("its gossip address %q is unknown", p.Addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = gossipHost
	}
	if !sameHost(host, gossipHost) {
		return "", fmt.Errorf("it advertises its http address %s on another host than its gossip address %s", p.HTTPAddr, p.Addr)
	}
	return net.JoinHostPort(host, port), nil
}

// sameHost reports whether two hosts are the same: equal, or both
// loopback.
func sameHost(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	if ia, ib := net.ParseIP(a), net.ParseIP(b); ia != nil && ib != nil && ia.Equal(ib) {
		return true
	}
	return loopbackAddr(net.JoinHostPort(a, "0")) && loopbackAddr(net.JoinHostPort(b, "0"))
}

// proxy passes a read to a live peer's http service, at the address the
// peer advertised: never to this node, never a second hop, and without
// the caller's credentials (Authorization, Cookie), which are this
// node's, not the peer's. The answer keeps its content type but is
// served sandboxed and without cookies, so that it never acts as a page
// of this node.
func (s *Service) proxy(w http.ResponseWriter, r *http.Request, host service.Host, name, path string) {
	if by := r.Header.Get(ProxyHopHeader); by != "" {
		http.Error(w, fmt.Sprintf("the request was already proxied by %s: a read goes through one node at most", by), http.StatusLoopDetected)
		return
	}
	if len(path)+len(r.URL.RawQuery) > maxProxyTarget {
		http.Error(w, fmt.Sprintf("the proxied path and query are longer than %d bytes", maxProxyTarget), http.StatusRequestURITooLong)
		return
	}
	if name == s.self {
		http.Error(w, fmt.Sprintf("peer %s is this node: read %s here directly", name, path), http.StatusBadRequest)
		return
	}
	var target *peer
	for _, p := range s.Peers() {
		if p.Name == name {
			target = &p
			break
		}
	}
	switch {
	case target == nil:
		http.Error(w, fmt.Sprintf("no peer %q", name), http.StatusNotFound)
		return
	case target.State == "dead" || target.State == "left":
		http.Error(w, fmt.Sprintf("peer %s is unavailable: it is %s (since %s)", name, target.State, target.Since.UTC().Format(time.RFC3339)), http.StatusServiceUnavailable)
		return
	case target.HTTPAddr == "":
		http.Error(w, fmt.Sprintf("peer %s is unavailable: it did not say its http address", name), http.StatusServiceUnavailable)
		return
	}
	addr, err := peerTarget(target)
	if err != nil {
		http.Error(w, fmt.Sprintf("peer %s is not proxied: %v", name, err), http.StatusBadGateway)
		return
	}
	tc := peerTLSConfig(host)
	scheme := "http"
	if tc != nil {
		scheme = "https"
	}
	w.Header().Set("Content-Security-Policy", proxyCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = scheme
			pr.Out.URL.Host = addr
			pr.Out.URL.Path, pr.Out.URL.RawPath = path, ""
			pr.Out.Host = addr
			for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
				pr.Out.Header.Del(h)
			}
			pr.Out.Header.Set(ProxyHopHeader, s.self)
			pr.SetXForwarded()
		},
		ModifyResponse: func(resp *http.Response) error {
			for _, h := range []string{"Set-Cookie", "Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Www-Authenticate"} {
				resp.Header.Del(h)
			}
			return nil
		},
		Transport:     s.peerTransport(tc),
		FlushInterval: -1, // live debugging streams
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, fmt.Sprintf("peer %s is unavailable: %v", name, err), http.StatusServiceUnavailable)
		},
	}
	rp.ServeHTTP(w, r)
}
