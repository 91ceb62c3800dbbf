package cluster

import (
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
//     when the peer is down or does not answer in time.
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
	s.proxy(w, r, name, "/"+path)
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

var proxyTransport = &http.Transport{
	DialContext:           (&net.Dialer{Timeout: proxyDialTimeout}).DialContext,
	ResponseHeaderTimeout: proxyHeaderTimeout,
	MaxIdleConnsPerHost:   4,
	IdleConnTimeout:       time.Minute,
}

// proxy passes a read to a peer's http address.
func (s *Service) proxy(w http.ResponseWriter, r *http.Request, name, path string) {
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
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = target.HTTPAddr
			pr.Out.URL.Path, pr.Out.URL.RawPath = path, ""
			pr.Out.Host = target.HTTPAddr
			pr.SetXForwarded()
		},
		Transport:     proxyTransport,
		FlushInterval: -1, // live debugging streams
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, fmt.Sprintf("peer %s is unavailable: %v", name, err), http.StatusServiceUnavailable)
		},
	}
	rp.ServeHTTP(w, r)
}
