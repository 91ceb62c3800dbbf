package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// recordingPeer is a peer's http service that records what it is sent
// and answers a page that sets a cookie.
type recordingPeer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newRecordingPeer(t *testing.T, tlsOn bool) *recordingPeer {
	p := &recordingPeer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.reqs = append(p.reqs, r.Clone(r.Context()))
		p.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Set-Cookie", "session=peer")
		w.Header().Set("Content-Security-Policy", "default-src *")
		_, _ = w.Write([]byte("<script>alert(1)</script> " + r.URL.Path))
	})
	if tlsOn {
		p.Server = httptest.NewTLSServer(h)
	} else {
		p.Server = httptest.NewServer(h)
	}
	t.Cleanup(p.Close)
	return p
}

func (p *recordingPeer) requests() []*http.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*http.Request(nil), p.reqs...)
}

func (p *recordingPeer) addr() string {
	return strings.TrimPrefix(strings.TrimPrefix(p.URL, "http://"), "https://")
}

// tlsHost is a host whose http service serves TLS: the peer proxy reaches
// peers with its client configuration.
type tlsHost struct {
	service.Host
	http *fakeHTTP
}

type fakeHTTP struct {
	service.Service
	tc *tls.Config
}

func (f *fakeHTTP) PeerTLSConfig() *tls.Config { return f.tc }

func (h tlsHost) GetService(name string) (service.Service, bool) {
	if name == "http" && h.http != nil {
		return h.http, true
	}
	return nil, false
}

// The peer proxy reaches members only, at their advertised address on
// their own host, never this node, never a second hop; it passes no
// credentials either way, serves the answer sandboxed, and speaks TLS
// when the http service does.
func TestProxyRefusesAndStrips(t *testing.T) {
	s, err := New(services.Options{Cluster: services.ClusterOptions{NodeName: "node-a"}, HTTPListenAddr: "127.0.0.1:12345"})
	if err != nil {
		t.Fatal(err)
	}
	plain := newRecordingPeer(t, false)
	secure := newRecordingPeer(t, true)
	elsewhere := newRecordingPeer(t, false)
	_, port, _ := strings.Cut(elsewhere.addr(), ":")
	s.peers["node-b"] = &peer{Name: "node-b", State: "alive", Addr: "127.0.0.1:7946", HTTPAddr: plain.addr()}
	s.peers["node-t"] = &peer{Name: "node-t", State: "alive", Addr: "127.0.0.1:7947", HTTPAddr: secure.addr()}
	// A member whose http address is on another host than its gossip.
	s.peers["node-x"] = &peer{Name: "node-x", State: "alive", Addr: "10.9.8.7:7946", HTTPAddr: elsewhere.addr()}
	// A member that listens on every interface: read on its gossip host.
	s.peers["node-u"] = &peer{Name: "node-u", State: "alive", Addr: "127.0.0.1:7948", HTTPAddr: "0.0.0.0:" + port}

	do := func(host service.Host, path string, hdr map[string]string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		s.ServeClusterAPI(rec, req, host)
		return rec
	}

	creds := map[string]string{"Authorization": "Basic b3A6c2VjcmV0", "Cookie": "grafana_session=op", "Proxy-Authorization": "Basic eA=="}
	rec := do(nil, "/api/v0/cluster/peers/node-b//evil.example/x", creds)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), " //evil.example/x") {
		t.Fatalf("proxied read: %d %s", rec.Code, rec.Body)
	}
	reqs := plain.requests()
	if len(reqs) != 1 {
		t.Fatalf("node-b got %d requests", len(reqs))
	}
	got := reqs[0]
	for h := range creds {
		if v := got.Header.Get(h); v != "" {
			t.Errorf("the peer was sent %s: %q", h, v)
		}
	}
	if got.Header.Get(ProxyHopHeader) != "node-a" || got.Host != plain.addr() {
		t.Errorf("the peer got hop %q, Host %q", got.Header.Get(ProxyHopHeader), got.Host)
	}
	h := rec.Header()
	if h.Get("Set-Cookie") != "" || h.Get("Content-Security-Policy") != proxyCSP || len(h.Values("Content-Security-Policy")) != 1 ||
		h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("proxied answer's headers: %v", h)
	}

	for _, c := range []struct {
		path string
		hdr  map[string]string
		code int
		want string
	}{
		{"/api/v0/cluster/peers/node-a/metrics", nil, 400, "peer node-a is this node"},
		{"/api/v0/cluster/peers/node-b/metrics", map[string]string{ProxyHopHeader: "node-c"}, 508, "already proxied by node-c"},
		{"/api/v0/cluster/peers/node-b/" + strings.Repeat("a", maxProxyTarget), nil, 414, "longer than 2048 bytes"},
		{"/api/v0/cluster/peers/evil.example:80/latest/meta-data", nil, 404, `no peer "evil.example:80"`},
		{"/api/v0/cluster/peers/169.254.169.254/latest", nil, 404, `no peer "169.254.169.254"`},
		{"/api/v0/cluster/peers/node-x/metrics", nil, 502, "another host than its gossip address 10.9.8.7:7946"},
	} {
		rec := do(nil, c.path, c.hdr)
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%.80s: %d %q, want %d %q", c.path, rec.Code, rec.Body, c.code, c.want)
		}
	}
	if n := len(plain.requests()); n != 1 {
		t.Errorf("refused reads reached node-b: %d requests", n)
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Errorf("the read of node-x went to its foreign http address")
	}
	// node-u's 0.0.0.0 is read on its gossip host (the same server here).
	if rec := do(nil, "/api/v0/cluster/peers/node-u/u", nil); rec.Code != 200 || len(elsewhere.requests()) != 1 {
		t.Errorf("node-u: %d %s", rec.Code, rec.Body)
	}

	// TLS: with the http service's TLS on, peers are read over https,
	// trusting its pool; plaintext to a TLS peer fails.
	pool := x509.NewCertPool()
	pool.AddCert(secure.Certificate())
	host := tlsHost{http: &fakeHTTP{tc: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	rec = do(host, "/api/v0/cluster/peers/node-t/api/v0/components", creds)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "/api/v0/components") {
		t.Fatalf("read over TLS: %d %s", rec.Code, rec.Body)
	}
	if r := secure.requests(); len(r) != 1 || r[0].TLS == nil || r[0].Header.Get("Authorization") != "" {
		t.Errorf("the TLS peer got %d requests", len(r))
	}
	if rec := do(nil, "/api/v0/cluster/peers/node-t/metrics", nil); rec.Code == 200 || !strings.Contains(rec.Body.String(), "HTTPS") {
		t.Errorf("plaintext to a TLS peer: %d %s", rec.Code, rec.Body)
	}
	untrusted := tlsHost{http: &fakeHTTP{tc: &tls.Config{RootCAs: x509.NewCertPool()}}}
	if rec := do(untrusted, "/api/v0/cluster/peers/node-t/metrics", nil); rec.Code != 503 || !strings.Contains(rec.Body.String(), "certificate") {
		t.Errorf("a peer whose certificate is not trusted: %d %s", rec.Code, rec.Body)
	}
}
