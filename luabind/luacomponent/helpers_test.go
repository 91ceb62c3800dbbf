package luacomponent

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// loadKind reads the component name of a plugin archive (files
// "<plugin>/<file>.lua"; plugin.lua gives the version) as a plugin
// declared under namespace ns with args would, and returns its
// registration as ns.<name>.
func loadKind(t testing.TB, archive, ns, name string, args map[string]any) (component.Registration, error) {
	t.Helper()
	var p *Plugin
	var ds script.Diagnostics
	for _, f := range txtar.Parse([]byte(archive)).Files {
		dir, rel, _ := strings.Cut(f.Name, "/")
		if p == nil {
			p = &Plugin{Name: dir, Version: "1", Modules: map[string]*Chunk{}, File: func(rel string) string { return dir + "/" + rel }}
			if grants, ok := args["grants"].([]any); ok {
				for _, g := range grants {
					p.Grants = append(p.Grants, g.(string))
				}
				slices.Sort(p.Grants)
			}
		}
		if rel == "plugin.lua" {
			if m := regexp.MustCompile(`version = "([^"]*)"`).FindSubmatch(f.Data); m != nil {
				p.Version = string(m[1])
			}
			continue
		}
		ch, err := Compile(f.Name, f.Data)
		if err != nil {
			ds = append(ds, script.AsDiagnostics(err)...)
			continue
		}
		p.Modules[strings.ReplaceAll(strings.TrimSuffix(rel, ".lua"), "/", ".")] = ch
	}
	if len(ds) > 0 {
		return component.Registration{}, ds
	}
	k, err := Read(p, name)
	if err != nil {
		return component.Registration{}, err
	}
	return k.Registration(ns+"."+name, "plugin "+p.Name+" "+p.Version, "fingerprint"), nil
}

// mustLoad reads a component of a plugin archive under namespace ns and
// returns the registration of ns.<name>.
func mustLoad(t testing.TB, archive, ns, name string, args map[string]any) component.Registration {
	t.Helper()
	r, err := loadKind(t, archive, ns, name, args)
	if err != nil {
		t.Fatalf("loading: %v", err)
	}
	return r
}

// env is what a test component is built with, recorded.
type env struct {
	opts    component.Options
	metrics *prometheus.Registry
	logs    *syncBuffer

	mu      sync.Mutex
	exports []map[string]any
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(id string) *env {
	e := &env{metrics: prometheus.NewRegistry(), logs: &syncBuffer{}}
	e.opts = component.Options{
		ID:         id,
		Logger:     slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With("component_id", id),
		DataPath:   "/nonexistent",
		Registerer: prometheus.WrapRegistererWith(prometheus.Labels{"component_id": id}, e.metrics),
		OnStateChange: func(x component.Exports) {
			e.mu.Lock()
			e.exports = append(e.exports, decode.ExportValues(x))
			e.mu.Unlock()
		},
		GetServiceData: func(name string) (any, error) { return nil, os.ErrNotExist },
	}
	return e
}

// lastExports returns the exports last published.
func (e *env) lastExports() map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.exports) == 0 {
		return nil
	}
	return e.exports[len(e.exports)-1]
}

// build decodes args and builds the component.
func build(t testing.TB, r component.Registration, e *env, args map[string]any) *instance {
	t.Helper()
	a, err := r.DecodeArgs(args)
	if err != nil {
		t.Fatalf("decoding arguments: %v", err)
	}
	c, err := r.Build(e.opts, a)
	if err != nil {
		t.Fatalf("building: %v", err)
	}
	return c.(*instance)
}

// run runs c until the test ends.
func run(t *testing.T, c component.Component) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// eventually polls cond until it holds or 10 seconds passed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// diagnostics returns the lines of a load error.
func diagnostics(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimSpace(script.AsDiagnostics(err).Error())
}

// metricValue returns the value of the counter or gauge name whose
// labels include labels (component_id aside), or -1.
func metricValue(t *testing.T, e *env, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := e.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			if have["component_id"] != e.opts.ID {
				continue
			}
			for k, v := range labels {
				if have[k] != v {
					continue metrics
				}
			}
			if m.Counter != nil {
				return m.Counter.GetValue()
			}
			return m.Gauge.GetValue()
		}
	}
	return -1
}
