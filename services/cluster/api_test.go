package cluster

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flowlua/flowlua/services"
)

// A read through this node reaches a live peer's API; an unknown peer is
// 404, a dead one 503 at once, and one that accepts but never answers 503
// within the proxy's bound.
func TestProxy(t *testing.T) {
	s, err := New(services.Options{Cluster: services.ClusterOptions{NodeName: "node-a"}})
	if err != nil {
		t.Fatal(err)
	}
	peerAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("peer saw " + r.URL.Path + "?" + r.URL.RawQuery))
	}))
	defer peerAPI.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	s.peers["node-b"] = &peer{Name: "node-b", State: "alive", Addr: "127.0.0.1:7946", HTTPAddr: strings.TrimPrefix(peerAPI.URL, "http://")}
	s.peers["node-c"] = &peer{Name: "node-c", State: "dead", Addr: "127.0.0.1:7947", HTTPAddr: "127.0.0.1:1", Since: time.Now()}
	s.peers["node-d"] = &peer{Name: "node-d", State: "alive", Addr: "127.0.0.1:7948", HTTPAddr: silent.Addr().String()}

	get := func(method, path string) (int, string, time.Duration) {
		rec := httptest.NewRecorder()
		start := time.Now()
		s.ServeClusterAPI(rec, httptest.NewRequest(method, path, nil), nil)
		return rec.Code, rec.Body.String(), time.Since(start)
	}
	if code, body, _ := get("GET", "/api/v0/cluster/peers/node-b/api/v0/components?x=1"); code != 200 || body != "peer saw /api/v0/components?x=1" {
		t.Errorf("live peer: %d %q", code, body)
	}
	if code, body, _ := get("GET", "/api/v0/cluster/peers/node-x/metrics"); code != 404 || !strings.Contains(body, `no peer "node-x"`) {
		t.Errorf("unknown peer: %d %q", code, body)
	}
	if code, body, d := get("GET", "/api/v0/cluster/peers/node-c/metrics"); code != 503 || !strings.Contains(body, "peer node-c is unavailable: it is dead") || d > time.Second {
		t.Errorf("dead peer: %d %q in %s", code, body, d)
	}
	if code, _, _ := get("POST", "/api/v0/cluster/peers/node-b/-/reload"); code != 405 {
		t.Errorf("a write through the proxy: %d", code)
	}
	code, body, d := get("GET", "/api/v0/cluster/peers/node-d/metrics")
	if code != 503 || !strings.Contains(body, "peer node-d is unavailable") || d > proxyHeaderTimeout+2*time.Second {
		t.Errorf("silent peer: %d %q in %s", code, body, d)
	}
	t.Logf("a peer that never answers: 503 in %s", d.Round(time.Millisecond))

	code, body, _ = get("GET", "/api/v0/cluster/peers")
	for _, want := range []string{`"name": "node-a"`, `"self": true`, `"state": "dead"`} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("peers: %d, no %s in %s", code, want, body)
		}
	}
}
