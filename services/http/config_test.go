package http

import (
	"strings"
	"testing"
)

func TestTLSConfigValidate(t *testing.T) {
	ca := newTestCA(t)
	cert, key := ca.leaf(t, "one")
	_, otherKey := ca.leaf(t, "two")
	for _, tc := range []struct {
		name string
		cfg  TLSConfig
		want string
	}{
		{"valid", TLSConfig{CertPEM: cert, KeyPEM: key}, ""},
		{"no certificate", TLSConfig{CertPEM: "garbage", KeyPEM: key}, "cert_pem: no PEM certificate found"},
		{"no key", TLSConfig{CertPEM: cert, KeyPEM: cert}, "key_pem: no PEM private key found"},
		{"mismatch", TLSConfig{CertPEM: cert, KeyPEM: otherKey}, "key_pem: private key does not match public key"},
		{"bad CA", TLSConfig{CertPEM: cert, KeyPEM: key, ClientCAPEM: "x"}, "client_ca_pem: no PEM certificate found"},
		{"verify without CA", TLSConfig{CertPEM: cert, KeyPEM: key, ClientAuth: "require_and_verify"}, `client_auth: "require_and_verify" needs client_ca_pem`},
		{"CA", TLSConfig{CertPEM: cert, KeyPEM: key, ClientCAPEM: ca.pem, ClientAuth: "require_and_verify"}, ""},
	} {
		err := tc.cfg.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
