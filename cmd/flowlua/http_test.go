package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/flowlua/flowlua/engine/component"
	httpsvc "github.com/flowlua/flowlua/services/http"
)

// The commands and components of the http_*.txtar scripts.

func init() {
	scriptCmds["gencert"] = cmdGenCert
	scriptCmds["httpsget"] = cmdHTTPS(http.MethodGet)
	scriptCmds["httpspost"] = cmdHTTPS(http.MethodPost)
	scriptCmds["waitcert"] = cmdWaitCert

	component.Register(component.Registration{
		Name:          "testing.route",
		Args:          routeArgs{},
		NeedsServices: []string{httpsvc.ServiceName},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			return newRouteComponent(opts, args.(routeArgs))
		},
	})
}

// gencert DIR CN: writes DIR/cert.pem and DIR/key.pem, a server
// certificate for 127.0.0.1 and localhost with common name CN, signed by
// the CA of DIR/ca.pem (and ca-key.pem), which it creates on first use.
// Each file is replaced by a rename, so that readers never see half of it.
func cmdGenCert(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: gencert DIR CN")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	caCert, caKey, err := loadOrCreateCA(dir)
	ts.Check(err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	ts.Check(err)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: args[1]},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	ts.Check(err)
	kder, err := x509.MarshalECPrivateKey(key)
	ts.Check(err)
	ts.Check(writePEM(filepath.Join(dir, "cert.pem"), "CERTIFICATE", der))
	ts.Check(writePEM(filepath.Join(dir, "key.pem"), "EC PRIVATE KEY", kder))
}

// loadOrCreateCA returns the CA of dir, creating it if needed.
func loadOrCreateCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certFile, keyFile := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem")
	if certPEM, err := os.ReadFile(certFile); err == nil {
		keyPEM, err := os.ReadFile(keyFile)
		if err != nil {
			return nil, nil, err
		}
		cb, kb := pemBytes(certPEM), pemBytes(keyPEM)
		cert, err := x509.ParseCertificate(cb)
		if err != nil {
			return nil, nil, err
		}
		key, err := x509.ParseECPrivateKey(kb)
		return cert, key, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "flowlua test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	if err := writePEM(keyFile, "EC PRIVATE KEY", kder); err != nil {
		return nil, nil, err
	}
	return cert, key, writePEM(certFile, "CERTIFICATE", der)
}

func pemBytes(data []byte) []byte {
	if b, _ := pem.Decode(data); b != nil {
		return b.Bytes
	}
	return nil
}

// writePEM writes one PEM block to file through a rename.
func writePEM(file, typ string, der []byte) error {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// tlsDo sends a request to url trusting only the CA of caFile, and
// returns the response with its body read.
func tlsDo(method, caFile, url string) (*http.Response, []byte, error) {
	data, err := os.ReadFile(caFile)
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, nil, fmt.Errorf("%s: no certificate", caFile)
	}
	c := &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: pool},
			DisableKeepAlives: true,
		},
	}
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// httpsget/httpspost -cacert FILE [-status=N] URL: one request over TLS
// verified against the CA in FILE; prints "cn=<the leaf certificate's
// common name>" then the body. Without -status any 2xx passes; with ! the
// request must fail (as when TLS is off or the certificate not trusted).
func cmdHTTPS(method string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		usage := "https" + strings.ToLower(method) + " -cacert FILE [-status=N] URL"
		caFile, want, url := parseTLSArgs(ts, usage, args)
		resp, body, err := tlsDo(method, ts.MkAbs(caFile), url)
		if err != nil {
			if neg {
				return
			}
			ts.Fatalf("%s %s: %v", method, url, err)
		}
		if neg {
			ts.Fatalf("%s %s succeeded (status %d)", method, url, resp.StatusCode)
		}
		fmt.Fprintf(ts.Stdout(), "cn=%s\n%s", leafCN(resp), body)
		ok := resp.StatusCode/100 == 2
		if want != 0 {
			ok = resp.StatusCode == want
		}
		if !ok {
			ts.Fatalf("%s %s: unexpected status %d: %s", method, url, resp.StatusCode, body)
		}
	}
}

// waitcert -cacert FILE URL CN: polls URL over TLS (verified against the
// CA in FILE) until the server presents a certificate with common name CN.
func cmdWaitCert(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 || args[0] != "-cacert" {
		ts.Fatalf("usage: waitcert -cacert FILE URL CN")
	}
	caFile, url, cn := ts.MkAbs(args[1]), args[2], args[3]
	deadline := time.Now().Add(waitLimit)
	last := "no answer"
	for time.Now().Before(deadline) {
		resp, _, err := tlsDo(http.MethodGet, caFile, url)
		switch {
		case err != nil:
			last = err.Error()
		case leafCN(resp) == cn:
			return
		default:
			last = "cn=" + leafCN(resp)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("%s did not present a certificate for %q within %s; last: %s", url, cn, waitLimit, last)
}

func parseTLSArgs(ts *testscript.TestScript, usage string, args []string) (caFile string, status int, url string) {
	if len(args) < 3 || args[0] != "-cacert" {
		ts.Fatalf("usage: %s", usage)
	}
	caFile, args = args[1], args[2:]
	if strings.HasPrefix(args[0], "-status=") {
		n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-status="))
		ts.Check(err)
		status, args = n, args[1:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: %s", usage)
	}
	return caFile, status, args[0]
}

func leafCN(resp *http.Response) string {
	if resp.TLS == nil || len(resp.TLS.PeerCertificates) == 0 {
		return ""
	}
	return resp.TLS.PeerCertificates[0].Subject.CommonName
}

// routeArgs are testing.route's arguments.
type routeArgs struct {
	Body string `lua:"body" doc:"what GET /hello answers"`
	// Register says when the component registers its route: "run"
	// (and unregisters when Run returns) or "build" (and never
	// unregisters: the service must clean up after it).
	Register string `lua:"register" enum:"run,build"`
	Token    string `lua:"token" secret:"true" doc:"a secret, shown redacted by the API"`
}

// SetToDefault sets the defaults.
func (a *routeArgs) SetToDefault() { a.Register = "run" }

// routeComponent serves GET /hello under its prefix of the http service.
type routeComponent struct {
	opts component.Options
	data httpsvc.Data
	mux  *http.ServeMux

	mu   sync.Mutex
	args routeArgs
}

func newRouteComponent(opts component.Options, args routeArgs) (*routeComponent, error) {
	d, err := opts.GetServiceData(httpsvc.ServiceName)
	if err != nil {
		return nil, err
	}
	data, ok := d.(httpsvc.Data)
	if !ok {
		return nil, fmt.Errorf("http service data is a %T", d)
	}
	c := &routeComponent{opts: opts, data: data, args: args, mux: http.NewServeMux()}
	c.mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		body := c.args.Body
		c.mu.Unlock()
		fmt.Fprintln(w, body)
	})
	if args.Register == "build" {
		if _, err := data.Handle(opts.ID, c.mux); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *routeComponent) Run(ctx context.Context) error {
	c.mu.Lock()
	register := c.args.Register
	c.mu.Unlock()
	if register == "run" {
		unregister, err := c.data.Handle(c.opts.ID, c.mux)
		if err != nil {
			return err
		}
		defer unregister()
	}
	<-ctx.Done()
	return nil
}

func (c *routeComponent) Update(args component.Arguments) error {
	a := args.(routeArgs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if a.Register != c.args.Register {
		return errors.New("register cannot change")
	}
	c.args = a
	return nil
}
