package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flowlua/flowlua/cmd/flowlua/internal/gcsmooth"
	"github.com/flowlua/flowlua/cmd/flowlua/internal/memorylimit"
	"github.com/flowlua/flowlua/engine"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/redact"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/luabind/scriptload"
	"github.com/flowlua/flowlua/services"
	"github.com/flowlua/flowlua/stdlib/integrations"
	"github.com/flowlua/flowlua/stdlib/otelcol"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

type runCmd struct {
	Path string `arg:"" optional:"" help:"The pipeline: a script (.lua), or a collector config (.yaml, .yml), which runs as it is."`
	// Config and Set are the collector's own flags, for the command lines
	// of its Helm chart and Operator (--config=/conf/relay.yaml).
	Config []string `name:"config" placeholder:"URI" help:"The pipeline, as the collector takes it: a collector config file (FILE or file:FILE); repeated, the next ones (files, env:VAR, yaml:KEY::PATH: VALUE, http(s)://URL) merge over it as the collector merges them. Instead of the path argument."`
	Set    []string `name:"set" placeholder:"KEY::PATH=VALUE" help:"Override one value of the collector config, as the collector's --set (VALUE is YAML); after every --config."`

	HTTPListenAddr string        `name:"http.listen-addr" default:"127.0.0.1:12345" env:"FLOWLUA_HTTP_LISTEN_ADDR" help:"Address of the HTTP service."`
	StoragePath    string        `name:"storage.path" default:"data-flowlua/" env:"FLOWLUA_STORAGE_PATH" help:"Where components keep state (queues, offsets)."`
	DrainTimeout   time.Duration `name:"drain.timeout" default:"30s" env:"FLOWLUA_DRAIN_TIMEOUT" help:"How long a component a reload replaces or removes may take to send what it still queues, and how long SIGINT/SIGTERM waits for the whole pipeline to drain; what is left then is dropped and counted in flowlua_component_dropped_items_total. A second SIGINT/SIGTERM exits at once."`
	Watch          bool          `name:"watch" default:"true" negatable:"" env:"FLOWLUA_WATCH" help:"Reload when the script or a module or plugin it loaded changes."`
	FastDecoding   bool          `name:"otlp.fast-decoding" default:"true" negatable:"" env:"FLOWLUA_OTLP_FAST_DECODING" help:"Decode OTLP/gRPC requests and OTLP/HTTP protobuf bodies with flowlua's decoder: the same data as pdata's decoder with fewer allocations; input it does not handle goes to pdata's."`
	EncodedQueue   bool          `name:"otlp.encoded-queue" default:"true" negatable:"" env:"FLOWLUA_OTLP_ENCODED_QUEUE" help:"The OTLP/gRPC exporters queue and batch each request as its protobuf encoding, not as pdata: a quarter of the memory for what waits in sending_queue; a batch is decoded only to split it. Off, they are the upstream exporter, queueing pdata. The config and what is sent are the same."`
	GCSmooth       bool          `name:"gc.smooth" default:"true" negatable:"" env:"FLOWLUA_GC_SMOOTH" help:"After a garbage collection whose live heap is an outlier (more than 20% above the goal of the median of the last 16), lower GOGC for the next cycle so that one spike does not set the heap's size; counted in flowlua_gc_goal_clipped_total. Off when the environment sets GOGC."`
	EnablePprof    bool          `name:"http.enable-pprof" default:"true" negatable:"" env:"FLOWLUA_HTTP_ENABLE_PPROF" help:"Serve the Go profiler under /debug/pprof/. Off, those routes answer 404 and the runtime no longer samples heap allocations (whose stack walks cost CPU and memory), as in a collector built without its pprof extension."`
	pluginFlags
	clusterFlags
	opampFlags
	LogLevel  string `name:"log.level" default:"info" enum:"debug,info,warn,error" env:"FLOWLUA_LOG_LEVEL" help:"Log level: debug, info, warn, error."`
	LogFormat string `name:"log.format" default:"logfmt" enum:"logfmt,json" env:"FLOWLUA_LOG_FORMAT" help:"Log format: logfmt or json."`

	FeatureGates []string `name:"feature-gates" env:"FLOWLUA_FEATURE_GATES" help:"Upstream collector feature gates to enable (name or +name) or disable (-name), as the collector's --feature-gates."`
}

// Help is the text `flowlua run --help` shows under the summary: what run
// reads from the environment besides its flags' variables.
func (r *runCmd) Help() string {
	return fmt.Sprintf("In a container with a memory limit (a cgroup), run sets the Go runtime's soft memory limit to %g%% of it and reads the container's limit again every minute. ", memorylimit.DefaultRatio*100) +
		memorylimit.EnvGoMemLimit + ", when set, wins; " + memorylimit.EnvRatio + " sets another share (a ratio in (0, 1]) or turns it off (off)."
}

// newLogger returns the process's logger. Levels are written in lowercase
// (level=info), as Alloy and the collector write them, so that operators'
// filters such as LogQL's level="info" work unchanged. Every line is
// redacted by secrets: the secrets the engine learnt and URL userinfo
// never reach the log, whoever logs them (flowlua, a service, a hosted
// collector component through its zap logger).
func newLogger(w io.Writer, level, format string, secrets *redact.Set) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(strings.ToUpper(level)))
	opts := &slog.HandlerOptions{Level: lvl, ReplaceAttr: lowercaseLevel}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(redact.Handler(h, secrets))
}

// lowercaseLevel writes the level attribute in lowercase.
func lowercaseLevel(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.LevelKey {
		if l, ok := a.Value.Any().(slog.Level); ok {
			a.Value = slog.StringValue(strings.ToLower(l.String()))
		}
	}
	return a
}

func (r *runCmd) Run(e *env) error {
	if err := r.pipelinePath(); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	tel := r.configTelemetry()
	secrets := redact.NewSet()
	logger := newLogger(e.stderr, r.LogLevel, r.LogFormat, secrets)
	if err := setFeatureGates(r.FeatureGates); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	// GOMEMLIMIT from the container's memory limit, read in the
	// background from here on.
	limits, stopLimits := context.WithCancel(context.Background())
	defer stopLimits()
	if err := memorylimit.Start(limits, memorylimit.Options{Logger: logger}); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	// SIGHUP reloads; it is caught from the start, so that one sent while
	// the pipeline is still starting does not kill the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	if !r.EnablePprof {
		// Nothing can read the heap profile: stop sampling for it.
		runtime.MemProfileRate = 0
	}
	metrics := prometheus.NewRegistry()
	// Before any receiver exists: they decode as this says when built.
	metrics.MustRegister(otelcol.SetOTLPDecoding(r.FastDecoding))
	otelcol.SetEncodedQueue(r.EncodedQueue)
	if r.GCSmooth {
		if gogc, set := os.LookupEnv("GOGC"); set && gogc != "" {
			logger.Info("GOGC is set: --gc.smooth leaves the garbage collector as it says", "GOGC", gogc)
		} else {
			gcsmooth.New(gcsmooth.DefaultPolicy, metrics).Start(limits)
		}
	}
	metrics.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(),
	)
	if tel.MetricsAddr != "" {
		stopMetrics, err := serveTelemetryMetrics(tel.MetricsAddr, metrics, logger)
		if err != nil {
			return &exitError{code: exitConfig, err: fmt.Errorf("%s: service::telemetry::metrics: %w", r.Path, err)}
		}
		defer stopMetrics()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, fatal := context.WithCancelCause(ctx)
	defer fatal(nil)

	clusterOpts, err := r.clusterFlags.options()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	opampOpts, err := r.opampFlags.options()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	start, err := r.startingPipeline(opampOpts, logger)
	if err != nil {
		return &exitError{code: exitConfig, err: err}
	}
	pipe := newPipeline(start)
	var ctrl *engine.Controller
	svcs, err := services.NewAll(services.Options{
		Logger:         logger,
		HTTPListenAddr: r.HTTPListenAddr,
		StoragePath:    r.StoragePath,
		Ready:          func() error { return ctrl.Ready() },
		Reload:         pipe.Reload,
		ReloadFrom:     pipe.ReloadFrom,
		Pipeline:       pipe.Files,
		Metrics:        metrics,
		Registerer:     metrics,
		Fatal:          func(err error) { fatal(&fatalError{err}) },
		DisablePprof:   !r.EnablePprof,
		Cluster:        clusterOpts,
		OpAMP:          opampOpts,
	})
	if err != nil {
		return err
	}
	defs := make([]service.Definition, len(svcs))
	for i, s := range svcs {
		defs[i] = s.Definition()
	}
	reg := component.DefaultRegistry
	loadOpts := scriptload.Options{Registry: reg, Services: serviceNames(defs), PluginPaths: r.PluginsPath, Prelude: integrations.Sources(),
		Native: e.nativePlugins(r.pluginFlags, logger, metrics).Loader(), NativeDirs: besideExecutable(), Translate: r.translator()}
	ctrl = engine.NewController(engine.ControllerOptions{
		Logger:       logger,
		Registry:     reg,
		Services:     svcs,
		DataPath:     r.StoragePath,
		Registerer:   metrics,
		DrainTimeout: r.DrainTimeout,
		Secrets:      secrets,
		Load: func() (*script.Script, *component.Registry, error) {
			return scriptload.Load(pipe.Path(), loadOpts)
		},
	})
	pipe.ctrl = ctrl

	if err := pipe.Reload(); err != nil {
		return configError(err)
	}
	logger.Info("pipeline running", "script", pipe.Path(), "components", len(ctrl.ListComponents()))

	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				logger.Info("SIGHUP: reloading")
				_ = pipe.Reload()
			}
		}
	}()
	if r.Watch {
		go func() {
			err := engine.Watch(ctx, engine.WatchOptions{
				Logger:   logger,
				Files:    ctrl.Files, // the script is among them: the first load succeeded
				OnChange: func() { _ = pipe.Reload() },
			})
			if err != nil {
				logger.Error("watching files failed: hot reload is off", "err", err)
			}
		}()
	}
	ran := make(chan struct{})
	go forceExitOnSecondSignal(ctx, ran, logger)
	err = ctrl.Run(ctx)
	close(ran)
	var fe *fatalError
	if errors.As(context.Cause(ctx), &fe) {
		logger.Error("stopped on a fatal error", "err", fe.err)
		return &exitError{code: exitConfig, err: fmt.Errorf("flowlua: %w", fe.err)}
	}
	logger.Info("shut down")
	return err
}

// configTelemetry applies a collector config's service::telemetry to the
// log flags left at their defaults, and returns it; a script has none.
func (r *runCmd) configTelemetry() convert.Telemetry {
	if !(convert.Translator{}).Translates(r.Path) {
		return convert.Telemetry{}
	}
	tel, err := r.translator().Telemetry(r.Path)
	if err != nil {
		return convert.Telemetry{} // the load reports it
	}
	if tel.LogLevel != "" && r.LogLevel == "info" {
		r.LogLevel = tel.LogLevel
	}
	if tel.LogFormat != "" && r.LogFormat == "logfmt" {
		r.LogFormat = tel.LogFormat
	}
	return tel
}

// serveTelemetryMetrics serves /metrics of reg at addr, where a
// collector config's telemetry says Prometheus pulls the collector's own
// metrics (:8888 in the Helm chart), besides the HTTP service's address.
// It is set when flowlua starts; a reload does not move it.
func serveTelemetryMetrics(addr string, reg *prometheus.Registry, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	logger.Info("serving the collector config's telemetry metrics", "addr", ln.Addr().String(), "path", "/metrics")
	return func() { _ = srv.Close() }, nil
}

// pipelinePath sets Path from --config, which names the pipeline as the
// collector's command line does; one of them must be given. The configs
// after the first, and --set, make the translator that merges them.
func (r *runCmd) pipelinePath() error {
	switch {
	case len(r.Config) > 0 && r.Path != "":
		return fmt.Errorf("flowlua run: give the pipeline as the argument or as --config, not both")
	case len(r.Config) > 0:
		first := r.Config[0]
		path, ok := strings.CutPrefix(first, "file:")
		if scheme, _, found := strings.Cut(first, ":"); !ok && found && !strings.ContainsAny(scheme, `/\.`) {
			return fmt.Errorf("flowlua run: --config %s: the first config is the pipeline's file (FILE or file:FILE); the %s: provider can give the ones after it", first, scheme)
		}
		r.Path = path
	case len(r.Set) > 0:
		return fmt.Errorf("flowlua run: --set overrides a collector config given with --config")
	case r.Path == "" && r.OpAMPEndpoint != "":
		return nil // the OpAMP server sends it
	case r.Path == "":
		return fmt.Errorf("flowlua run: expected the pipeline: a script (.lua) or a collector config (.yaml), as the argument or --config")
	}
	if (len(r.Config) > 1 || len(r.Set) > 0) && !(convert.Translator{}).Translates(r.Path) {
		return fmt.Errorf("flowlua run: --config %s: more configs and --set merge into a collector config (.yaml), not a script", r.Path)
	}
	return nil
}

// translator is the collector configs' translator of this command line.
func (r *runCmd) translator() convert.Translator {
	t := convert.Translator{Set: r.Set}
	if len(r.Config) > 1 {
		t.Also = r.Config[1:]
	}
	return t
}

// forceExitOnSecondSignal waits for the first SIGINT/SIGTERM (ctx ends),
// then exits the process with exitConfig on a second one: the drain is
// bounded by --drain.timeout, but an operator may not want to wait for it.
// It returns once ran is closed (the pipeline has stopped).
func forceExitOnSecondSignal(ctx context.Context, ran <-chan struct{}, logger *slog.Logger) {
	select {
	case <-ctx.Done():
	case <-ran:
		return
	}
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	select {
	case <-again:
		logger.Error("second signal: exiting without waiting for the drain; what is still queued is lost")
		os.Exit(exitConfig)
	case <-ran:
	}
}

// fatalError is why a service stopped the process.
type fatalError struct{ err error }

func (f *fatalError) Error() string { return f.err.Error() }

func buildInfo() prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "flowlua_build_info",
		Help:        "A metric with a constant 1 labelled by flowlua's version.",
		ConstLabels: prometheus.Labels{"version": version},
	}, func() float64 { return 1 })
}
