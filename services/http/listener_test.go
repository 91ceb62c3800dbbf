package http

import (
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flowlua/flowlua/services"
)

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

func TestListenerSwitchesBetweenPlaintextAndTLS(t *testing.T) {
	ca := newTestCA(t)
	s := startService(t, services.Options{}, &fakeHost{})
	plainURL, tlsURL := "http://"+s.Addr()+"/-/ready", "https://"+s.Addr()+"/-/ready"

	if code, body := get(t, plainClient, plainURL); code != 200 || body != "ready\n" {
		t.Fatalf("plaintext before TLS: %d %q", code, body)
	}
	if _, err := tlsClient(ca).Get(tlsURL); err == nil {
		t.Fatal("TLS was accepted before it was configured")
	}

	cert, key := ca.leaf(t, "one")
	if err := s.Update(Config{TLS: &TLSConfig{CertPEM: cert, KeyPEM: key, ClientAuth: "none", MinVersion: "TLS1.2"}}); err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, plainClient, plainURL); code != 400 || !strings.Contains(body, "HTTP request to an HTTPS server") {
		t.Fatalf("plaintext with TLS on: %d %q", code, body)
	}
	resp, err := tlsClient(ca).Get(tlsURL)
	if err != nil {
		t.Fatalf("TLS: %v", err)
	}
	resp.Body.Close()
	if cn := resp.TLS.PeerCertificates[0].Subject.CommonName; cn != "one" {
		t.Fatalf("served certificate %q, want one", cn)
	}

	// A rotated certificate is served from the next connection on.
	cert, key = ca.leaf(t, "two")
	if err := s.Update(Config{TLS: &TLSConfig{CertPEM: cert, KeyPEM: key, ClientAuth: "none", MinVersion: "TLS1.2"}}); err != nil {
		t.Fatal(err)
	}
	resp, err = tlsClient(ca).Get(tlsURL)
	if err != nil {
		t.Fatalf("TLS after rotation: %v", err)
	}
	resp.Body.Close()
	if cn := resp.TLS.PeerCertificates[0].Subject.CommonName; cn != "two" {
		t.Fatalf("served certificate %q after rotation, want two", cn)
	}

	// An invalid configuration is refused and the last one stays.
	if err := s.Update(Config{TLS: &TLSConfig{CertPEM: cert, KeyPEM: "garbage"}}); err == nil {
		t.Fatal("an invalid key pair was accepted")
	}
	if _, err := tlsClient(ca).Get(tlsURL); err != nil {
		t.Fatalf("TLS after a refused update: %v", err)
	}

	// Without a tls block, plaintext is served again.
	if err := s.Update(Config{}); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, plainClient, plainURL); code != 200 {
		t.Fatalf("plaintext after TLS was removed: %d", code)
	}
}

// A plaintext keep-alive connection opened before TLS was configured is
// refused too.
func TestPlaintextKeepAliveRefusedOnceTLSIsOn(t *testing.T) {
	ca := newTestCA(t)
	s := startService(t, services.Options{}, &fakeHost{})
	keepAlive := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
	defer keepAlive.CloseIdleConnections()
	url := "http://" + s.Addr() + "/-/ready"
	if code, _ := get(t, keepAlive, url); code != 200 {
		t.Fatalf("before TLS: %d", code)
	}
	cert, key := ca.leaf(t, "one")
	if err := s.Update(Config{TLS: &TLSConfig{CertPEM: cert, KeyPEM: key}}); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, keepAlive, url); code != 400 {
		t.Fatalf("a plaintext request on an old connection with TLS on: %d, want 400", code)
	}
}

// newTestListener returns a switching listener on a free port.
func newTestListener(t *testing.T, cfg *atomic.Pointer[tls.Config], timeouts listenerTimeouts) *switchingListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sl := newSwitchingListener(ln, cfg, slog.New(slog.DiscardHandler), timeouts)
	t.Cleanup(func() { sl.Close() })
	return sl
}

// acceptOne returns the next accepted connection, failing after limit.
func acceptOne(t *testing.T, sl *switchingListener, limit time.Duration) net.Conn {
	t.Helper()
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := sl.Accept()
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("Accept: %v", r.err)
		}
		return r.c
	case <-time.After(limit):
		t.Fatalf("nothing accepted within %s", limit)
		return nil
	}
}

// One client that sends nothing does not hold up the others.
func TestListenerSlowClientDoesNotBlockOthers(t *testing.T) {
	ca := newTestCA(t)
	cert, key := ca.leaf(t, "one")
	tc, err := (&TLSConfig{CertPEM: cert, KeyPEM: key}).Build()
	if err != nil {
		t.Fatal(err)
	}
	var cfg atomic.Pointer[tls.Config]
	cfg.Store(tc)
	// Only Close may end the silent client's wait.
	sl := newTestListener(t, &cfg, listenerTimeouts{sniff: time.Hour, handshake: time.Hour})

	silent, err := net.Dial("tcp", sl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	clientErr := make(chan error, 1)
	go func() {
		c, err := tls.Dial("tcp", sl.Addr().String(), &tls.Config{RootCAs: ca.pool, ServerName: "localhost"})
		if err == nil {
			c.Close()
		}
		clientErr <- err
	}()
	conn := acceptOne(t, sl, 10*time.Second)
	defer conn.Close()
	if _, ok := conn.(*tls.Conn); !ok {
		t.Fatalf("accepted %T, want a *tls.Conn", conn)
	}
	if err := <-clientErr; err != nil {
		t.Fatalf("TLS client: %v", err)
	}

	// Close ends the silent client's wait and Accept reports the close.
	if err := sl.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sl.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v, want net.ErrClosed", err)
	}
	_ = silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("the silent client's connection was not closed: %v", err)
	}
}

// A client that starts a TLS handshake and stalls is dropped after the
// handshake timeout.
func TestListenerHandshakeTimeout(t *testing.T) {
	ca := newTestCA(t)
	cert, key := ca.leaf(t, "one")
	tc, err := (&TLSConfig{CertPEM: cert, KeyPEM: key}).Build()
	if err != nil {
		t.Fatal(err)
	}
	var cfg atomic.Pointer[tls.Config]
	cfg.Store(tc)
	sl := newTestListener(t, &cfg, listenerTimeouts{sniff: time.Hour, handshake: 100 * time.Millisecond})

	c, err := net.Dial("tcp", sl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte{0x16, 0x03, 0x01}); err != nil { // a record header, cut short
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(c); isTimeout(err) {
		t.Fatal("the stalled handshake was not dropped within 10s")
	}
}

// With TLS off, connections are handed over as they are.
func TestListenerPlaintextPassesThrough(t *testing.T) {
	var cfg atomic.Pointer[tls.Config]
	sl := newTestListener(t, &cfg, defaultTimeouts)
	c, err := net.Dial("tcp", sl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := acceptOne(t, sl, 10*time.Second)
	defer conn.Close()
	if _, ok := conn.(*net.TCPConn); !ok {
		t.Fatalf("accepted %T, want the TCP connection itself", conn)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
