package native

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/flowlua/flowlua/pluginsdk/wire"
)

// Restart backoff after a plugin process died.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// Plugin is one plugin executable (one content: a replaced file is
// another Plugin) and the process that serves it, when running.
type Plugin struct {
	m    *Manager
	path string
	sum  string
	log  *slog.Logger

	mu        sync.Mutex
	desc      *wire.Description
	proc      *process
	starting  chan struct{} // closed when the start under way ends
	instances map[string]*proxy
	backoff   time.Duration
	idle      *time.Timer
	closed    bool
	// down says why the plugin is not serving: its last exit, or a
	// failed start; "" while it serves.
	down string
	// socket is where its processes serve routes (routesSocket).
	socket string
}

func newPlugin(m *Manager, path, sum string) *Plugin {
	return &Plugin{m: m, path: path, sum: sum, instances: map[string]*proxy{},
		log: m.logger.With("plugin", filepath.Base(path))}
}

// Path is the executable.
func (p *Plugin) Path() string { return p.path }

// Sum is the executable's sha256, in hex.
func (p *Plugin) Sum() string { return p.sum }

// Description is what the plugin said it serves.
func (p *Plugin) Description() wire.Description {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.desc == nil {
		return wire.Description{}
	}
	return *p.desc
}

func (p *Plugin) label() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.labelLocked()
}

func (p *Plugin) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proc == nil || p.proc.isDead() {
		return 0
	}
	return p.proc.pid
}

// describe asks the plugin what it serves, once per Plugin.
func (p *Plugin) describe() error {
	p.mu.Lock()
	done := p.desc != nil
	p.mu.Unlock()
	if done {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.m.opts.StartTimeout)
	defer cancel()
	proc, err := p.ensure(ctx)
	if err != nil {
		return err
	}
	var d wire.Description
	if err := proc.call(ctx, wire.MethodDescribe, struct{}{}, &d); err != nil {
		return fmt.Errorf("plugin %s: Describe: %w", p.path, err)
	}
	if err := checkDescription(&d); err != nil {
		return fmt.Errorf("plugin %s: %w", p.path, err)
	}
	p.mu.Lock()
	p.desc = &d
	p.mu.Unlock()
	p.idleCheck()
	return nil
}

// checkDescription refuses what the host could not register.
func checkDescription(d *wire.Description) error {
	if d.Plugin == "" {
		return errors.New("it describes itself without a name")
	}
	seen := map[string]bool{}
	for _, c := range d.Components {
		if seen[c.Name] {
			return fmt.Errorf("it serves %s twice", c.Name)
		}
		seen[c.Name] = true
		switch c.Class {
		case "receiver", "processor", "exporter":
		default:
			return fmt.Errorf("%s: class %q is not served by this flowlua", c.Name, c.Class)
		}
	}
	return nil
}

// ensure returns the running process, starting one if there is none.
func (p *Plugin) ensure(ctx context.Context) (*process, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, errors.New("the plugin is stopped")
		}
		if p.proc != nil && !p.proc.isDead() {
			proc := p.proc
			p.mu.Unlock()
			return proc, nil
		}
		if ch := p.starting; ch != nil {
			p.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		p.starting = ch
		p.mu.Unlock()

		proc, err := p.spawn()
		p.mu.Lock()
		p.starting = nil
		close(ch)
		if err != nil {
			p.down = err.Error()
			p.mu.Unlock()
			return nil, err
		}
		p.proc = proc
		p.down = ""
		p.mu.Unlock()
		go p.supervise(proc)
		return proc, nil
	}
}

// spawn starts the executable and completes the handshake.
func (p *Plugin) spawn() (*process, error) {
	sum, _ := hex.DecodeString(p.sum)
	proc := &process{exited: make(chan struct{}), tail: &tail{max: 20}}
	cmd := exec.Command(p.path)
	// go-plugin adds flowlua's own environment after this.
	cmd.Env = []string{wire.EnvRoutesSocket + "=" + p.routesSocket()}
	proc.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		Plugins:          plugin.PluginSet{wire.PluginName: &wire.HostPlugin{}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  wire.DialOptions(),
		StartTimeout:     p.m.opts.StartTimeout,
		SecureConfig:     &plugin.SecureConfig{Checksum: sum, Hash: sha256.New()},
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: "plugin", Level: hclog.Info, JSONFormat: true,
			Output: &lifecycleSink{proc: proc, log: p.log},
		}),
		Stderr: &stderrSink{proc: proc, log: p.log},
	})
	fail := func(format string, err error) (*process, error) {
		proc.client.Kill()
		msg := fmt.Sprintf(format, p.path, err)
		if t := proc.tail.String(); t != "" {
			msg += "; its stderr ended: " + t
		}
		return nil, errors.New(msg)
	}
	rpc, err := proc.client.Client()
	if err != nil {
		if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
			return fail("plugin %s changed since it was opened: %v", err)
		}
		return fail("plugin %s did not start: %v", err)
	}
	raw, err := rpc.Dispense(wire.PluginName)
	if err != nil {
		return fail("plugin %s: %v", err)
	}
	conn, ok := raw.(*wire.Conn)
	if !ok {
		return fail("plugin %s: %v", fmt.Errorf("dispensed %T", raw))
	}
	proc.conn = conn
	proc.hostID = conn.Broker.NextId()
	go conn.Broker.AcceptAndServe(proc.hostID, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(append(opts, wire.ServerOptions()...)...)
		s.RegisterService(hostServiceDesc(p), p)
		return s
	})
	if rc := proc.client.ReattachConfig(); rc != nil {
		proc.pid = rc.Pid
	}
	p.log.Debug("plugin started", "path", p.path, "pid", proc.pid)
	return proc, nil
}

// supervise waits for proc to exit and, unless that was asked for,
// restarts the plugin with backoff and starts its instances again.
func (p *Plugin) supervise(proc *process) {
	<-proc.exited
	p.mu.Lock()
	if p.proc == proc {
		p.proc = nil
	}
	stopping := p.closed || proc.stopping.Load()
	why := fmt.Sprintf("plugin %s exited: %s", p.labelLocked(), proc.exitReason())
	if t := proc.tail.String(); t != "" {
		why += "; its stderr ended: " + t
	}
	if !stopping {
		p.down = why
	}
	insts := p.instanceList()
	p.mu.Unlock()
	if stopping || p.m.isClosed() {
		return
	}
	p.log.Error("plugin process died", "reason", why)
	p.m.restarts.WithLabelValues(p.label()).Inc()
	for _, px := range insts {
		px.processDied(proc, why)
	}
	if len(insts) == 0 {
		return // nothing runs on it: the next use starts it
	}
	p.restart()
}

// restart brings the plugin back and its instances with it, retrying
// with a growing backoff until it serves or nothing needs it.
func (p *Plugin) restart() {
	for {
		p.mu.Lock()
		if p.backoff == 0 {
			p.backoff = minBackoff
		}
		wait := p.backoff
		p.backoff = min(2*p.backoff, maxBackoff)
		p.mu.Unlock()
		t := time.NewTimer(wait)
		<-t.C
		p.mu.Lock()
		insts := p.instanceList()
		closed := p.closed
		p.mu.Unlock()
		if closed || p.m.isClosed() || len(insts) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), p.m.opts.StartTimeout)
		proc, err := p.ensure(ctx)
		if err == nil {
			for _, px := range insts {
				// A component refusing to start is its own health; only
				// a process dying again makes the restart fail.
				if _, serr := px.ensureStarted(ctx); serr != nil && proc.isDead() {
					err = serr
					break
				}
			}
		}
		cancel()
		if err == nil && !proc.isDead() {
			p.log.Info("plugin restarted", "pid", proc.pid)
			go p.resetBackoff(proc)
			return
		}
		if err != nil {
			p.log.Error("restarting the plugin failed", "err", err, "retry_in", p.currentBackoff())
			for _, px := range insts {
				px.setDown(err.Error())
			}
		}
		if proc != nil && proc.isDead() {
			return // its own supervise restarts it
		}
	}
}

// resetBackoff forgets past failures once a process has served a minute.
func (p *Plugin) resetBackoff(proc *process) {
	t := time.NewTimer(time.Minute)
	defer t.Stop()
	select {
	case <-t.C:
		p.mu.Lock()
		if p.proc == proc {
			p.backoff = 0
		}
		p.mu.Unlock()
	case <-proc.exited:
	}
}

func (p *Plugin) currentBackoff() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.backoff
}

func (p *Plugin) labelLocked() string {
	if p.desc != nil && p.desc.Plugin != "" {
		return p.desc.Plugin
	}
	return filepath.Base(p.path)
}

func (p *Plugin) instanceList() []*proxy {
	out := make([]*proxy, 0, len(p.instances))
	for _, px := range p.instances {
		out = append(out, px)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].wireID < out[j].wireID })
	return out
}

func (p *Plugin) addInstance(px *proxy) {
	p.mu.Lock()
	p.instances[px.wireID] = px
	if p.idle != nil {
		p.idle.Stop()
		p.idle = nil
	}
	p.mu.Unlock()
}

func (p *Plugin) removeInstance(px *proxy) {
	p.mu.Lock()
	delete(p.instances, px.wireID)
	p.mu.Unlock()
	p.idleCheck()
}

func (p *Plugin) instance(id string) *proxy {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.instances[id]
}

// idleCheck stops the process after the idle timeout when no instance
// runs on it.
func (p *Plugin) idleCheck() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.instances) > 0 || p.proc == nil || p.idle != nil {
		return
	}
	proc := p.proc
	p.idle = time.AfterFunc(p.m.opts.IdleTimeout, func() {
		p.mu.Lock()
		idle := len(p.instances) == 0 && p.proc == proc
		p.idle = nil
		if idle {
			p.proc = nil
		}
		p.mu.Unlock()
		if idle {
			proc.stop()
		}
	})
}

// close stops the process for good.
func (p *Plugin) close() {
	p.mu.Lock()
	p.closed = true
	proc := p.proc
	p.proc = nil
	if p.idle != nil {
		p.idle.Stop()
	}
	p.mu.Unlock()
	if proc != nil {
		proc.stop()
	}
}

// process is one running plugin process.
type process struct {
	client   *plugin.Client
	conn     *wire.Conn
	hostID   uint32
	pid      int
	tail     *tail
	stopping atomic.Bool

	exitOnce sync.Once
	exited   chan struct{}
	exitErr  string
}

func (pr *process) isDead() bool {
	select {
	case <-pr.exited:
		return true
	default:
		return pr.client.Exited()
	}
}

func (pr *process) markExited(reason string) {
	pr.exitOnce.Do(func() {
		pr.exitErr = reason
		close(pr.exited)
	})
}

func (pr *process) exitReason() string {
	if pr.exitErr == "" {
		return "exit status 0"
	}
	return pr.exitErr
}

// stop ends the process on purpose: go-plugin asks it to exit, then
// kills it after two seconds.
func (pr *process) stop() {
	pr.stopping.Store(true)
	pr.client.Kill()
}

// call makes a control call with JSON in and out.
func (pr *process) call(ctx context.Context, method string, req, resp any) error {
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	out := new(wire.Frame)
	if err := pr.conn.Conn.Invoke(ctx, "/"+wire.PluginService+"/"+method, &wire.Frame{Value: in}, out, grpc.ForceCodecV2(wire.Codec{})); err != nil {
		return err
	}
	if resp == nil {
		return nil
	}
	return json.Unmarshal(out.Value, resp)
}

// tail keeps the last lines a process wrote to stderr.
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// String returns the last lines, the last five at most, joined.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
