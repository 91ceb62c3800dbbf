package opamp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/open-telemetry/opamp-go/client"
	"github.com/open-telemetry/opamp-go/client/types"
	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/flowlua/flowlua/services"
)

// connSettings are what the agent connects to the server with: the
// command line's, or those the server offered since.
type connSettings struct {
	endpoint string
	header   http.Header
	tls      *tls.Config // nil: the system's roots for https/wss
}

// baseSettings checks the --opamp.* flags and makes the settings they say.
func baseSettings(o services.OpAMPOptions) (connSettings, error) {
	if err := checkEndpoint(o.Endpoint); err != nil {
		return connSettings{}, fmt.Errorf("--opamp.endpoint: %w", err)
	}
	cs := connSettings{endpoint: o.Endpoint, header: o.Headers.Clone()}
	if cs.header == nil {
		cs.header = http.Header{}
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return connSettings{}, errors.New("--opamp.tls.cert-file and --opamp.tls.key-file go together")
	}
	if o.CAFile == "" && o.CertFile == "" && !o.InsecureSkipVerify {
		return cs, nil
	}
	if !secure(o.Endpoint) {
		return connSettings{}, fmt.Errorf("--opamp.tls.* flags need a wss:// or https:// endpoint, got %s", o.Endpoint)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipVerify} //nolint:gosec // the operator's choice, by flag
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return connSettings{}, fmt.Errorf("--opamp.tls.ca-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return connSettings{}, fmt.Errorf("--opamp.tls.ca-file %s: no PEM certificate in it", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return connSettings{}, fmt.Errorf("--opamp.tls.cert-file/--opamp.tls.key-file: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	cs.tls = cfg
	return cs, nil
}

// checkEndpoint accepts ws://, wss://, http:// and https:// URLs with a
// host.
func checkEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
	default:
		return fmt.Errorf("%q: want a ws://, wss://, http:// or https:// URL", endpoint)
	}
	if u.Host == "" {
		return fmt.Errorf("%q: no host", endpoint)
	}
	return nil
}

func secure(endpoint string) bool {
	return strings.HasPrefix(endpoint, "wss://") || strings.HasPrefix(endpoint, "https://")
}

// withOffer returns cs changed by what the server offers: its endpoint,
// its headers (each replacing the header of its name) and its
// certificates (a CA to verify it with, a client certificate). A TLS
// offer on a plaintext endpoint is refused.
func (cs connSettings) withOffer(offer *protobufs.OpAMPConnectionSettings) (connSettings, error) {
	next := connSettings{endpoint: cs.endpoint, header: cs.header.Clone(), tls: cs.tls}
	if e := offer.GetDestinationEndpoint(); e != "" {
		if err := checkEndpoint(e); err != nil {
			return cs, fmt.Errorf("offered endpoint: %w", err)
		}
		next.endpoint = e
	}
	for _, h := range offer.GetHeaders().GetHeaders() {
		if h.GetKey() == "" {
			return cs, errors.New("offered header without a name")
		}
		next.header.Set(h.GetKey(), h.GetValue())
	}
	if c := offer.GetCertificate(); c != nil && (len(c.GetCaCert()) > 0 || len(c.GetCert()) > 0) {
		if !secure(next.endpoint) {
			return cs, fmt.Errorf("offered TLS certificates for the plaintext endpoint %s", next.endpoint)
		}
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if next.tls != nil {
			cfg = next.tls.Clone()
		}
		if len(c.GetCaCert()) > 0 {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(c.GetCaCert()) {
				return cs, errors.New("offered CA certificate: no PEM certificate in it")
			}
			cfg.RootCAs = pool
		}
		if len(c.GetCert()) > 0 {
			cert, err := tls.X509KeyPair(c.GetCert(), c.GetPrivateKey())
			if err != nil {
				return cs, fmt.Errorf("offered client certificate: %w", err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		next.tls = cfg
	}
	return next, nil
}

// newClient returns the client of the endpoint's transport.
func newClient(endpoint string, logger types.Logger) client.OpAMPClient {
	if strings.HasPrefix(endpoint, "http://") || strings.HasPrefix(endpoint, "https://") {
		return client.NewHTTP(logger)
	}
	return client.NewWebSocket(logger)
}

// slogLogger is opamp-go's logger over slog. The library's errors are
// mostly connection attempts that it retries: warnings.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Debugf(ctx context.Context, format string, v ...any) {
	s.l.DebugContext(ctx, fmt.Sprintf(format, v...))
}

func (s slogLogger) Errorf(ctx context.Context, format string, v ...any) {
	s.l.WarnContext(ctx, fmt.Sprintf(format, v...))
}
