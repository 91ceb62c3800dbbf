package http

import (
	"crypto/x509"
	"errors"
)

func certPool(pem string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(pem)) {
		return nil, errors.New("client_ca_pem: no certificate found")
	}
	return pool, nil
}
