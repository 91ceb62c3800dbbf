package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flowlua/flowlua/engine"
	"github.com/flowlua/flowlua/services"
	"github.com/flowlua/flowlua/services/opamp"
)

// opampFlags are the flags of the opamp service: fleet management over
// OpAMP. Only flags configure it, so that a remote config cannot cut its
// own connection.
type opampFlags struct {
	OpAMPEndpoint           string        `name:"opamp.endpoint" env:"FLOWLUA_OPAMP_ENDPOINT" placeholder:"URL" help:"The OpAMP server to be managed by: ws:// or wss:// (WebSocket), http:// or https:// (polling). Its remote configs replace the pipeline, which then starts from the last one applied."`
	OpAMPHeaders            []string      `name:"opamp.header" env:"FLOWLUA_OPAMP_HEADER" sep:"none" placeholder:"NAME=VALUE" help:"A header sent to the OpAMP server (repeatable), e.g. Authorization=Bearer ...; NAME=@FILE reads the value from FILE (a mounted secret)."`
	OpAMPInstanceUID        string        `name:"opamp.instance-uid" env:"FLOWLUA_OPAMP_INSTANCE_UID" placeholder:"UUID" help:"The agent's instance uid (default: a UUIDv7 made once and kept under --storage.path)."`
	OpAMPCAFile             string        `name:"opamp.tls.ca-file" type:"path" env:"FLOWLUA_OPAMP_TLS_CA_FILE" help:"PEM CAs that sign the OpAMP server's certificate (default: the system's)."`
	OpAMPCertFile           string        `name:"opamp.tls.cert-file" type:"path" env:"FLOWLUA_OPAMP_TLS_CERT_FILE" help:"PEM client certificate for the OpAMP server (with --opamp.tls.key-file)."`
	OpAMPKeyFile            string        `name:"opamp.tls.key-file" type:"path" env:"FLOWLUA_OPAMP_TLS_KEY_FILE" help:"PEM key of --opamp.tls.cert-file."`
	OpAMPInsecureSkipVerify bool          `name:"opamp.tls.insecure-skip-verify" env:"FLOWLUA_OPAMP_TLS_INSECURE_SKIP_VERIFY" help:"Accept any certificate of the OpAMP server (testing only)."`
	OpAMPHeartbeat          time.Duration `name:"opamp.heartbeat-interval" default:"30s" env:"FLOWLUA_OPAMP_HEARTBEAT_INTERVAL" help:"How often the agent tells the OpAMP server it is alive; over http(s):// also how often it polls for remote configs."`
}

// options turns the flags into the opamp service's options.
func (f *opampFlags) options() (services.OpAMPOptions, error) {
	o := services.OpAMPOptions{
		Endpoint:           f.OpAMPEndpoint,
		InstanceUID:        f.OpAMPInstanceUID,
		CAFile:             f.OpAMPCAFile,
		CertFile:           f.OpAMPCertFile,
		KeyFile:            f.OpAMPKeyFile,
		InsecureSkipVerify: f.OpAMPInsecureSkipVerify,
		HeartbeatInterval:  f.OpAMPHeartbeat,
		Version:            version,
	}
	if f.OpAMPEndpoint == "" {
		if len(f.OpAMPHeaders) > 0 || f.OpAMPInstanceUID != "" || f.OpAMPCAFile != "" || f.OpAMPCertFile != "" || f.OpAMPKeyFile != "" || f.OpAMPInsecureSkipVerify {
			return o, fmt.Errorf("--opamp.* flags need --opamp.endpoint")
		}
		return o, nil
	}
	o.Headers = http.Header{}
	for _, h := range f.OpAMPHeaders {
		name, value, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return o, fmt.Errorf("--opamp.header %q: want NAME=VALUE", h)
		}
		if file, isFile := strings.CutPrefix(value, "@"); isFile {
			b, err := os.ReadFile(file)
			if err != nil {
				return o, fmt.Errorf("--opamp.header %s: %w", name, err)
			}
			value = strings.TrimSpace(string(b))
		}
		o.Headers.Add(strings.TrimSpace(name), value)
	}
	return o, nil
}

// pipeline is the running pipeline's main file, which a remote config
// can change, and the one reload at a time of it.
type pipeline struct {
	mu   sync.Mutex // one reload at a time
	path atomic.Pointer[string]
	ctrl *engine.Controller
}

func newPipeline(path string) *pipeline {
	p := &pipeline{}
	p.path.Store(&path)
	return p
}

// Path returns the main file.
func (p *pipeline) Path() string { return *p.path.Load() }

// Reload reloads the main file.
func (p *pipeline) Reload() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ctrl.Reload()
}

// ReloadFrom makes path the main file if it applies; else the main file
// and the running graph stay.
func (p *pipeline) ReloadFrom(path string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.path.Swap(&path)
	if err := p.ctrl.Reload(); err != nil {
		p.path.Store(old)
		return err
	}
	return nil
}

// Files returns the main file and the files of the running pipeline.
func (p *pipeline) Files() (string, []string) {
	return p.Path(), p.ctrl.AppliedFiles()
}

// startingPipeline returns the pipeline to start with: with OpAMP on, the
// last remote config that applied, if any (logged); else the local one.
// Without a local pipeline it starts from an empty one, until the server
// sends a config.
func (r *runCmd) startingPipeline(o services.OpAMPOptions, logger *slog.Logger) (string, error) {
	if o.Endpoint == "" {
		return r.Path, nil
	}
	main, hash, ok, err := opamp.Applied(r.StoragePath)
	if err != nil {
		return "", err
	}
	if ok {
		logger.Info("starting from the last remote config applied", "main", main, "hash", fmt.Sprintf("%x", hash), "local_pipeline", r.Path)
		return main, nil
	}
	if r.Path != "" {
		return r.Path, nil
	}
	empty := filepath.Join(r.StoragePath, opamp.StateDir, "empty", "pipeline.lua")
	if err := os.MkdirAll(filepath.Dir(empty), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(empty, []byte("-- No pipeline yet: the OpAMP server has not sent one.\n"), 0o600); err != nil {
		return "", err
	}
	logger.Info("no pipeline yet: waiting for a remote config from the OpAMP server")
	return empty, nil
}
