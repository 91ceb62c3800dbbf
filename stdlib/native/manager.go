package native

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultStartTimeout bounds how long a plugin may take to complete the
// handshake once started.
const DefaultStartTimeout = 10 * time.Second

// DefaultIdleTimeout is how long a plugin process with no running
// instances is kept before it is stopped.
const DefaultIdleTimeout = 30 * time.Second

// Options configure a Manager.
type Options struct {
	// Logger logs the plugins' lifecycle and their stderr.
	Logger *slog.Logger
	// Registerer registers flowlua_plugin_restarts_total and
	// flowlua_plugin_resident_memory_bytes; nil registers nothing.
	Registerer prometheus.Registerer
	// StartTimeout bounds the handshake (DefaultStartTimeout when zero).
	StartTimeout time.Duration
	// IdleTimeout is how long an unused process is kept
	// (DefaultIdleTimeout when zero).
	IdleTimeout time.Duration
}

// Manager holds the plugins a flowlua process has opened: one Plugin per
// distinct executable content, shared by every load that uses it.
type Manager struct {
	opts     Options
	logger   *slog.Logger
	restarts *prometheus.CounterVec

	mu      sync.Mutex
	bySum   map[string]*Plugin
	byFile  map[fileKey]string // a file as last seen -> its sha256
	closed  bool
	counter uint64 // makes instance ids unique
	// routesDir holds the plugins' route sockets, once one needs it.
	routesDir string
	sockets   int
}

// fileKey identifies a file's content cheaply: path, size and mtime.
type fileKey struct {
	path  string
	size  int64
	mtime time.Time
}

// NewManager returns a Manager with no plugins open.
func NewManager(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	m := &Manager{opts: opts, logger: opts.Logger, bySum: map[string]*Plugin{}, byFile: map[fileKey]string{}}
	m.restarts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "flowlua_plugin_restarts_total",
		Help: "Restarts of native plugin processes after they died.",
	}, []string{"plugin"})
	if opts.Registerer != nil {
		_ = opts.Registerer.Register(m.restarts)
		_ = opts.Registerer.Register(rssCollector{m})
	}
	return m
}

// ErrNotPlugin is returned (wrapped) by Open for a file that is no
// executable.
var ErrNotPlugin = errors.New("not an executable")

// Open returns the plugin whose executable is at path, starting it to ask
// what it serves when this content was not opened before. A non-empty
// sum (hex sha256) pins the content: another is an error before anything
// runs. Open reads the file once per change of its size or mtime.
func (m *Manager) Open(path, sum string) (*Plugin, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("%s: %w", abs, ErrNotPlugin)
	}
	key := fileKey{abs, fi.Size(), fi.ModTime()}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errors.New("flowlua is stopping")
	}
	have, known := m.byFile[key]
	m.mu.Unlock()
	if !known {
		if have, err = fileSum(abs); err != nil {
			return nil, err
		}
	}
	if sum != "" && sum != have {
		return nil, fmt.Errorf("sha256 mismatch: %s is %s, the declaration pins %s", abs, have, sum)
	}
	m.mu.Lock()
	m.byFile[key] = have
	p := m.bySum[have]
	if p == nil {
		p = newPlugin(m, abs, have)
		m.bySum[have] = p
	}
	m.mu.Unlock()
	if err := p.describe(); err != nil {
		m.mu.Lock()
		if m.bySum[have] == p {
			delete(m.bySum, have)
		}
		m.mu.Unlock()
		return nil, err
	}
	return p, nil
}

// Close stops every plugin process.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	ps := make([]*Plugin, 0, len(m.bySum))
	for _, p := range m.bySum {
		ps = append(ps, p)
	}
	m.mu.Unlock()
	for _, p := range ps {
		p.close()
	}
	m.mu.Lock()
	dir := m.routesDir
	m.mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

func (m *Manager) nextInstance(id string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counter++
	return fmt.Sprintf("%s#%d", id, m.counter)
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// rssCollector reports each running plugin process's resident memory.
type rssCollector struct{ m *Manager }

var rssDesc = prometheus.NewDesc("flowlua_plugin_resident_memory_bytes",
	"Resident memory of each running native plugin process.", []string{"plugin"}, nil)

func (c rssCollector) Describe(ch chan<- *prometheus.Desc) { ch <- rssDesc }

func (c rssCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	ps := make([]*Plugin, 0, len(c.m.bySum))
	for _, p := range c.m.bySum {
		ps = append(ps, p)
	}
	c.m.mu.Unlock()
	seen := map[string]bool{}
	for _, p := range ps {
		pid := p.pid()
		if pid == 0 {
			continue
		}
		rss, ok := residentBytes(pid)
		if !ok || seen[p.label()] {
			continue
		}
		seen[p.label()] = true
		ch <- prometheus.MustNewConstMetric(rssDesc, prometheus.GaugeValue, float64(rss), p.label())
	}
}
