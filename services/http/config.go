package http

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/flowlua/flowlua/engine/decode"
)

// ServiceName is the name of the service and of its script block.
const ServiceName = "http"

// Config is the `http { ... }` block.
type Config struct {
	TLS       *TLSConfig       `lua:"tls" doc:"serve TLS instead of plaintext"`
	BasicAuth *BasicAuthConfig `lua:"basic_auth" doc:"require these users' credentials everywhere but /-/ready and /-/healthy"`
}

// TLSConfig configures TLS. Certificates and keys come as PEM text, so that
// they can be read by components (file.read) and rotated at run time.
type TLSConfig struct {
	CertPEM     string `lua:"cert_pem,required" doc:"server certificate chain, PEM"`
	KeyPEM      string `lua:"key_pem,required" doc:"server private key, PEM"`
	ClientCAPEM string `lua:"client_ca_pem" doc:"CA bundle to verify client certificates with, PEM"`
	ClientAuth  string `lua:"client_auth" enum:"none,request,require,verify_if_given,require_and_verify" doc:"client certificate policy"`
	MinVersion  string `lua:"min_version" enum:"TLS1.2,TLS1.3" doc:"lowest TLS version accepted"`
}

// SetToDefault sets the defaults.
func (c *TLSConfig) SetToDefault() {
	c.ClientAuth = "none"
	c.MinVersion = "TLS1.2"
}

// Validate checks that the key pair and the CA parse, with the field at
// fault in each error's path.
func (c TLSConfig) Validate() error {
	if c.CertPEM == "" || c.KeyPEM == "" {
		return nil // required fields are reported by the decoder
	}
	var errs decode.Errors
	switch {
	case !hasPEMBlock(c.CertPEM, "CERTIFICATE"):
		errs = append(errs, decode.Errorf("cert_pem", "no PEM certificate found"))
	case !hasPEMBlock(c.KeyPEM, "PRIVATE KEY"):
		errs = append(errs, decode.Errorf("key_pem", "no PEM private key found"))
	default:
		if _, err := tls.X509KeyPair([]byte(c.CertPEM), []byte(c.KeyPEM)); err != nil {
			errs = append(errs, decode.Errorf("key_pem", "%s", strings.TrimPrefix(err.Error(), "tls: ")))
		}
	}
	if c.ClientCAPEM != "" {
		if _, err := certPool(c.ClientCAPEM); err != nil {
			errs = append(errs, decode.Errorf("client_ca_pem", "no PEM certificate found"))
		}
	} else if c.ClientAuth == "verify_if_given" || c.ClientAuth == "require_and_verify" {
		errs = append(errs, decode.Errorf("client_auth", "%q needs client_ca_pem", c.ClientAuth))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// hasPEMBlock reports whether text holds a PEM block whose type ends with
// typ ("PRIVATE KEY" matches "EC PRIVATE KEY" and "RSA PRIVATE KEY").
func hasPEMBlock(text, typ string) bool {
	rest := []byte(text)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return false
		}
		if strings.HasSuffix(b.Type, typ) {
			return true
		}
	}
}

// Build returns the crypto/tls configuration.
func (c TLSConfig) Build() (*tls.Config, error) {
	cert, err := tls.X509KeyPair([]byte(c.CertPEM), []byte(c.KeyPEM))
	if err != nil {
		return nil, fmt.Errorf("cert_pem/key_pem: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if c.MinVersion == "TLS1.3" {
		cfg.MinVersion = tls.VersionTLS13
	}
	if c.ClientCAPEM != "" {
		pool, err := certPool(c.ClientCAPEM)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs = pool
	}
	switch c.ClientAuth {
	case "request":
		cfg.ClientAuth = tls.RequestClientCert
	case "require":
		cfg.ClientAuth = tls.RequireAnyClientCert
	case "verify_if_given":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	case "require_and_verify":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if cfg.ClientAuth >= tls.VerifyClientCertIfGiven && cfg.ClientCAs == nil {
		return nil, errors.New("client_auth " + c.ClientAuth + " needs client_ca_pem")
	}
	return cfg, nil
}
