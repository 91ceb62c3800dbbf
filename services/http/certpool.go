package http

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
)

func certPool(pem string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(pem)) {
		return nil, errors.New("client_ca_pem: no certificate found")
	}
	return pool, nil
}

// peerClientConfig returns the TLS client configuration that reaches the
// peers of a cluster, whose http services serve TLS as this one does
// (the peer proxy, /api/v0/cluster/peers/{name}/...). It trusts the
// system's roots, the CAs of client_ca_pem and every certificate of
// cert_pem (a certificate the nodes share, or a chain that holds their
// CA), and presents this node's certificate to a peer that asks for one.
func (c TLSConfig) peerClientConfig(server *tls.Config) *tls.Config {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	pool.AppendCertsFromPEM([]byte(c.ClientCAPEM))
	rest := []byte(c.CertPEM)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if cert, err := x509.ParseCertificate(b.Bytes); err == nil {
			pool.AddCert(cert)
		}
	}
	return &tls.Config{
		RootCAs:      pool,
		Certificates: server.Certificates,
		MinVersion:   server.MinVersion,
	}
}

// PeerTLSConfig returns the client TLS configuration the cluster's peer
// proxy reaches peers with while `http { tls }` is on, nil while the
// service serves plaintext (see TLSConfig.peerClientConfig).
func (s *Service) PeerTLSConfig() *tls.Config { return s.peerTLS.Load() }
