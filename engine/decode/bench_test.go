package decode

import (
	"errors"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component/dataplane"
)

// benchArgs is shaped like an exporter's arguments: 15 fields, nested
// structs, a map, and lists of consumers.
type benchArgs struct {
	Endpoint      string            `lua:"endpoint,required" doc:"host:port to send to"`
	Compression   string            `lua:"compression" enum:"gzip,zstd,none"`
	Timeout       time.Duration     `lua:"timeout"`
	Headers       map[string]string `lua:"headers"`
	TLS           benchTLS          `lua:"tls"`
	Retry         benchRetry        `lua:"retry_on_failure"`
	QueueSize     int               `lua:"queue_size"`
	NumConsumers  int               `lua:"num_consumers"`
	SendBatchSize uint32            `lua:"send_batch_size"`
	Ratio         float64           `lua:"ratio"`
	Keys          []string          `lua:"keys"`
	Storage       any               `lua:"storage"`
	Balancer      string            `lua:"balancer_name"`
	Debug         bool              `lua:"debug"`
	Output        dataplane.Output  `lua:"output"`
}

type benchTLS struct {
	Insecure   bool   `lua:"insecure"`
	CAFile     string `lua:"ca_file"`
	CertFile   string `lua:"cert_file"`
	KeyFile    string `lua:"key_file"`
	ServerName string `lua:"server_name"`
	MinVersion string `lua:"min_version" enum:"1.2,1.3"`
}

type benchRetry struct {
	Enabled         bool          `lua:"enabled"`
	InitialInterval time.Duration `lua:"initial_interval"`
	MaxInterval     time.Duration `lua:"max_interval"`
	MaxElapsed      time.Duration `lua:"max_elapsed_time"`
}

func (a *benchArgs) SetToDefault() {
	a.Compression = "gzip"
	a.Timeout = 5 * time.Second
	a.QueueSize = 1000
	a.NumConsumers = 10
	a.Retry = benchRetry{Enabled: true, InitialInterval: 5 * time.Second, MaxInterval: 30 * time.Second, MaxElapsed: 5 * time.Minute}
}

func (a *benchArgs) Validate() error {
	if a.QueueSize < 0 {
		return errors.New("queue_size must not be negative")
	}
	return nil
}

func benchInput() map[string]any {
	consumers := []any{nop, nop, nop}
	return map[string]any{
		"endpoint":    "127.0.0.1:4317",
		"compression": "zstd",
		"timeout":     "10s",
		"headers":     map[string]any{"authorization": "Bearer token", "x-tenant": "acme"},
		"tls": map[string]any{
			"insecure": false, "ca_file": "/etc/ca.pem", "cert_file": "/etc/cert.pem",
			"key_file": "/etc/key.pem", "server_name": "collector", "min_version": "1.3",
		},
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "1s", "max_interval": "30s", "max_elapsed_time": "5m"},
		"queue_size":       5000.0,
		"num_consumers":    4.0,
		"send_batch_size":  8192.0,
		"ratio":            0.25,
		"keys":             []any{"user.email", "user.id"},
		"storage":          "file_storage.queue",
		"balancer_name":    "round_robin",
		"debug":            true,
		"output":           map[string]any{"traces": consumers, "metrics": consumers, "logs": consumers},
	}
}

func BenchmarkDecode(b *testing.B) {
	in := benchInput()
	var args benchArgs
	if err := Decode(in, &args); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		args = benchArgs{}
		if err := Decode(in, &args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeCheck decodes in check mode: every consumer and a few
// strings are placeholders.
func BenchmarkDecodeCheck(b *testing.B) {
	in := benchInput()
	p := ph[dataplane.Consumer]("otelcol.processor.batch.default.input")
	consumers := []any{p, p, p}
	in["output"] = map[string]any{"traces": consumers, "metrics": consumers, "logs": consumers}
	in["endpoint"] = ph[string]("file.read.endpoint.content")
	in["headers"] = map[string]any{"authorization": ph[string]("file.read.token.content")}
	b.ReportAllocs()
	for b.Loop() {
		var args benchArgs
		if err := Decode(in, &args); err != nil {
			b.Fatal(err)
		}
	}
}
