package http

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowlua/flowlua/services"
)

// POST /-/reload from a page of another origin is refused (403) and
// reloads nothing; without Origin (curl) or from this origin it reloads.
// A DNS name rebound to the node's address is refused though the page
// is then same-origin.
func TestReloadRefusesOtherOrigins(t *testing.T) {
	var reloads atomic.Int32
	s := startService(t, services.Options{Reload: func() error { reloads.Add(1); return nil }}, &fakeHost{})
	addr := s.Addr()
	_, port, _ := strings.Cut(addr, ":")
	for _, c := range []struct {
		name string
		hdr  map[string]string
		host string
		code int
	}{
		{"no Origin (curl)", nil, "", 200},
		{"this origin", map[string]string{"Origin": "http://" + addr, "Sec-Fetch-Site": "same-origin"}, "", 200},
		{"localhost", map[string]string{"Origin": "http://localhost:" + port}, "localhost:" + port, 200},
		{"another origin", map[string]string{"Origin": "https://evil.example"}, "", 403},
		{"another port", map[string]string{"Origin": "http://127.0.0.1:1"}, "", 403},
		{"opaque origin", map[string]string{"Origin": "null"}, "", 403},
		{"https origin on plaintext", map[string]string{"Origin": "https://" + addr}, "", 403},
		{"cross-site fetch without Origin", map[string]string{"Sec-Fetch-Site": "cross-site"}, "", 403},
		{"DNS rebinding", map[string]string{"Origin": "http://evil.example:" + port}, "evil.example:" + port, 403},
		{"rebinding, Sec-Fetch only", map[string]string{"Sec-Fetch-Site": "same-origin"}, "evil.example:" + port, 403},
	} {
		before := reloads.Load()
		req, _ := http.NewRequest("POST", "http://"+addr+"/-/reload", nil)
		for k, v := range c.hdr {
			req.Header.Set(k, v)
		}
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := plainClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		reloaded := reloads.Load() - before
		if resp.StatusCode != c.code || (c.code == 200) != (reloaded == 1) {
			t.Errorf("%s: %d, reloaded %d times; want %d", c.name, resp.StatusCode, reloaded, c.code)
		}
	}
	// Reads are not state changes: a foreign page's GET is answered (the
	// browser keeps the answer from it).
	req, _ := http.NewRequest("GET", "http://"+addr+"/-/ready", nil)
	req.Header.Set("Origin", "https://evil.example")
	resp, err := plainClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("GET with a foreign Origin: %v %v", resp, err)
	}
	resp.Body.Close()
}

// The page and the API forbid framing, sniffing and any script but the
// page's own.
func TestSecurityHeaders(t *testing.T) {
	s := startService(t, services.Options{}, &fakeHost{})
	for _, path := range []string{"/", "/api/v0/components", "/static/graph.js", "/component/x.y", "/nowhere"} {
		resp, err := plainClient.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if h.Get("Content-Security-Policy") != pageCSP || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: %v", path, h)
		}
	}
	if !strings.Contains(pageCSP, "script-src 'self'") || strings.Contains(pageCSP, "unsafe") {
		t.Errorf("CSP %q", pageCSP)
	}
	if strings.Contains(string(writeComponentPage(componentPage{LiveDebugging: true, HasOutput: true})), "style=") {
		t.Error("the component page has an inline style, which the CSP blocks")
	}
}

// With TLS on, the peer proxy's client trusts the CA of client_ca_pem,
// or one in cert_pem's chain, so it reaches a peer whose certificate that
// CA signed; with TLS off there is no client configuration.
func TestPeerTLSConfig(t *testing.T) {
	ca := newTestCA(t)
	peerCert, peerKey := ca.leaf(t, "peer")
	pair, err := tls.X509KeyPair([]byte(peerCert), []byte(peerKey))
	if err != nil {
		t.Fatal(err)
	}
	peer := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("peer")) }))
	peer.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	peer.StartTLS()
	defer peer.Close()

	myCert, myKey := ca.leaf(t, "me")
	s := New(services.Options{})
	if s.PeerTLSConfig() != nil {
		t.Fatal("a client configuration while plaintext")
	}
	for name, cfg := range map[string]*TLSConfig{
		"client_ca_pem":   {CertPEM: myCert, KeyPEM: myKey, ClientCAPEM: ca.pem},
		"CA in the chain": {CertPEM: myCert + ca.pem, KeyPEM: myKey},
		"untrusted":       {CertPEM: myCert, KeyPEM: myKey},
	} {
		if err := s.Update(Config{TLS: cfg}); err != nil {
			t.Fatal(err)
		}
		tc := s.PeerTLSConfig()
		if tc == nil {
			t.Fatalf("%s: no client configuration", name)
		}
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
		resp, err := c.Get(peer.URL)
		if name == "untrusted" {
			if err == nil {
				resp.Body.Close()
				t.Errorf("%s: reached a peer signed by an unknown CA", name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		resp.Body.Close()
	}
	if err := s.Update(Config{}); err != nil || s.PeerTLSConfig() != nil {
		t.Errorf("TLS off: %v, client configuration %v", err, s.PeerTLSConfig())
	}
}
