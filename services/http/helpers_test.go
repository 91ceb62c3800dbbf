package http

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/component/dataplane"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// fakeHost is a service.Host over a list of components the test sets.
type fakeHost struct {
	mu       sync.Mutex
	infos    []component.Info
	taps     map[string]*dataplane.Tap
	load     service.Load
	services map[string]service.Service
}

func (h *fakeHost) Tap(id string) *dataplane.Tap {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.taps[id]
}

func (h *fakeHost) LastLoad() service.Load {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.load
}

func (h *fakeHost) set(infos ...component.Info) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.infos = infos
}

func (h *fakeHost) GetComponent(id string) (component.Info, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, i := range h.infos {
		if i.ID == id {
			return i, nil
		}
	}
	return component.Info{}, fmt.Errorf("no component %q", id)
}

func (h *fakeHost) ListComponents() []component.Info {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]component.Info(nil), h.infos...)
}

func (h *fakeHost) GetServiceConsumers(string) []service.Consumer { return nil }

func (h *fakeHost) GetService(name string) (service.Service, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.services[name]; ok {
		return s, true
	}
	return nil, name == ServiceName
}

// nopComponent is a component that does nothing.
type nopComponent struct{ name string }

func (*nopComponent) Run(ctx context.Context) error    { <-ctx.Done(); return nil }
func (*nopComponent) Update(component.Arguments) error { return nil }

// healthyInfo returns a healthy component using the http service.
func healthyInfo(id string, c component.Component) component.Info {
	return component.Info{
		ID:           id,
		Component:    c,
		Health:       component.Health{Health: component.HealthHealthy, Message: "started"},
		Dependencies: []string{ServiceName},
	}
}

// startService runs a service on a free port until the test ends and
// returns it once it listens.
func startService(t *testing.T, opts services.Options, host service.Host) *Service {
	t.Helper()
	opts.HTTPListenAddr = "127.0.0.1:0"
	if opts.Registerer == nil {
		opts.Registerer = prometheus.NewRegistry()
	}
	s := New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, host) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for s.Addr() == "" {
		if time.Now().After(deadline) {
			t.Fatal("the service did not listen within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return s
}

// testCA is a certificate authority made for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  string
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pem: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), pool: pool}
}

// leaf returns the PEM certificate and key of a server certificate for
// 127.0.0.1 with common name cn.
func (ca *testCA) leaf(t *testing.T, cn string) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
}

// tlsClient trusts only ca and keeps no connections.
func tlsClient(ca *testCA) *http.Client {
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: ca.pool},
			DisableKeepAlives: true,
		},
	}
}

// plainClient keeps no connections.
var plainClient = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{DisableKeepAlives: true},
}
