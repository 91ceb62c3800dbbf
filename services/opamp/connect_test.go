package opamp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/flowlua/flowlua/services"
)

func TestBaseSettings(t *testing.T) {
	for _, tc := range []struct {
		opts services.OpAMPOptions
		err  string
	}{
		{opts: services.OpAMPOptions{Endpoint: "ws://127.0.0.1:4320/v1/opamp"}},
		{opts: services.OpAMPOptions{Endpoint: "https://opamp.example/v1/opamp", InsecureSkipVerify: true}},
		{opts: services.OpAMPOptions{Endpoint: "tcp://x"}, err: "want a ws://, wss://, http:// or https:// URL"},
		{opts: services.OpAMPOptions{Endpoint: "ws://"}, err: "no host"},
		{opts: services.OpAMPOptions{Endpoint: "ws://x/", InsecureSkipVerify: true}, err: "need a wss:// or https:// endpoint"},
		{opts: services.OpAMPOptions{Endpoint: "wss://x/", CertFile: "c.pem"}, err: "go together"},
		{opts: services.OpAMPOptions{Endpoint: "wss://x/", CAFile: "missing.pem"}, err: "--opamp.tls.ca-file"},
	} {
		_, err := baseSettings(tc.opts)
		if tc.err == "" && err != nil {
			t.Errorf("%+v: %v", tc.opts, err)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: err = %v, want %q", tc.opts, err, tc.err)
		}
	}
}

func TestWithOffer(t *testing.T) {
	base := connSettings{endpoint: "ws://a/v1/opamp", header: http.Header{"Authorization": {"old"}, "X-Keep": {"k"}}}
	next, err := base.withOffer(&protobufs.OpAMPConnectionSettings{
		DestinationEndpoint: "ws://b/v1/opamp",
		Headers:             &protobufs.Headers{Headers: []*protobufs.Header{{Key: "Authorization", Value: "new"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if next.endpoint != "ws://b/v1/opamp" || next.header.Get("Authorization") != "new" || next.header.Get("X-Keep") != "k" {
		t.Errorf("next = %+v", next)
	}
	if base.header.Get("Authorization") != "old" {
		t.Error("the offer changed the previous settings")
	}
	if _, err := base.withOffer(&protobufs.OpAMPConnectionSettings{Certificate: &protobufs.TLSCertificate{CaCert: []byte("x")}}); err == nil || !strings.Contains(err.Error(), "plaintext") {
		t.Errorf("TLS offer on ws:// = %v, want refused", err)
	}
	if _, err := base.withOffer(&protobufs.OpAMPConnectionSettings{DestinationEndpoint: "ftp://x"}); err == nil {
		t.Error("an ftp:// endpoint was accepted")
	}
}
