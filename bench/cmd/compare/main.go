// Command compare benchmarks flowlua against the upstream OpenTelemetry
// Collector: for each pipeline, signal, repetition and system under test it
// starts a counting sink, starts the system with the pipeline, waits for its
// OTLP/gRPC port, drives a fixed load with the load generator, waits until the
// sink has counted every item sent, and reads the system's CPU time
// (utime+stime from /proc/PID/stat, from after startup to the end of the run)
// and peak RSS (VmHWM from /proc/PID/status). It prints the medians over the
// repetitions and the ratios flowlua/collector.
//
// Run it from the bench directory:
//
//	go run ./cmd/compare -signals traces,metrics,logs -pipelines passthrough
//
// By default the system under test is pinned to CPU 0 and the load generator
// and sink to the other CPUs with taskset, so that they do not compete for the
// same core (see README.md).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/flowlua/flowlua/bench/internal/gen"
	"github.com/flowlua/flowlua/bench/internal/loadgen"
	"github.com/flowlua/flowlua/bench/internal/sink"
	"github.com/flowlua/flowlua/bench/internal/wire"
)

// options are the command-line settings.
type options struct {
	benchDir     string
	signals      []wire.Signal
	pipelines    []string
	systems      []string
	reps         int
	items        map[wire.Signal]int64
	workers      int
	payload      string
	rate         float64
	sinkWindow   int // the sink's flow-control window, bytes (0: gRPC's dynamic window)
	batch        int
	pin          string
	flowluaBin   string
	collectorBin string
	// collectorCoreBin and collectorFullBin are the systems
	// collector-core (the components of flowlua's core) and
	// collector-full (every component flowlua hosts), built by the
	// runner.
	collectorCoreBin string
	collectorFullBin string
	// The suite (-suite, suite.go).
	suite          bool
	suiteFull      bool
	suitePayloads  []string
	suiteProtocols []string
	idleSettle     time.Duration
	// suiteSmallScale multiplies the items of the suite's small and
	// one-attribute loads.
	suiteSmallScale float64
	// suiteJSONScale multiplies the items of the suite's OTLP/JSON loads.
	suiteJSONScale float64
	baselineBin    string // a second flowlua binary, system "flowlua-baseline"
	// pprof serves flowlua's /debug/pprof/ (and so samples its heap);
	// off, flowlua runs with --no-http.enable-pprof, as the collector
	// builds, which link no pprof extension.
	pprof          bool
	startTimeout   time.Duration
	drainTimeout   time.Duration
	rebuild        bool
	quiet          float64
	quietWait      time.Duration
	buildOnly      bool
	jsonOut        string
	markdown       bool
	protocol       string        // what the load generator sends: one of protocols
	cpuProfile     string        // directory for flowlua CPU profiles, "" for none
	profileFor     time.Duration // length of each profile
	sutCPU, genCPU string        // taskset CPU lists, empty when not pinning
}

// measurement is one run of one system on one pipeline and signal.
type measurement struct {
	System   string      `json:"system"`
	Pipeline string      `json:"pipeline"`
	Signal   wire.Signal `json:"signal"`
	Protocol string      `json:"protocol"` // OTLP over grpc, http or http-json
	Rep      int         `json:"rep"`
	// Items is what the load generator sent and the sink counted.
	Items int64 `json:"items"`
	// CPUSeconds is the system's utime+stime, with its child processes', from startup done to drained.
	CPUSeconds float64 `json:"cpu_seconds"`
	// ItemsPerCPUSecond is Items / CPUSeconds.
	ItemsPerCPUSecond float64 `json:"items_per_cpu_second"`
	// PeakRSSMB is VmHWM at the end of the run, in MB.
	PeakRSSMB float64 `json:"peak_rss_mb"`
	// StartupMS is the time from exec to the receiver's port accepting.
	StartupMS float64 `json:"startup_ms"`
	// WallSeconds is the time from the start of the load to the sink having
	// counted everything.
	WallSeconds float64 `json:"wall_seconds"`
	// Util is CPUSeconds / WallSeconds: ~1 means the system saturated one
	// core (the pinned case), well below 1 that something else limited it.
	Util float64 `json:"util"`
	// LoadgenCPUSeconds and SinkCPUSeconds show what the helpers used.
	LoadgenCPUSeconds float64 `json:"loadgen_cpu_seconds"`
	SinkCPUSeconds    float64 `json:"sink_cpu_seconds"`
	// OtherCores is the CPU time the rest of the machine (anything but the
	// system, load generator and sink) used during the run, divided by
	// WallSeconds: other work on a shared machine makes figures noisy.
	OtherCores float64 `json:"other_cores"`
}

// skipError marks a system that cannot run a pipeline (missing binary or
// pipeline file); the runner notes it and goes on.
type skipError struct{ reason string }

func (e skipError) Error() string { return e.reason }

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "compare: "+format+"\n", args...)
}

func main() {
	o, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runAll(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func parseFlags() (*options, error) {
	o := &options{items: map[wire.Signal]int64{}}
	var signals, pipelines, systems string
	var traces, metrics, logs int64
	flag.StringVar(&o.benchDir, "dir", "", "the bench directory (default: . or ./bench, whichever holds collector/builder-config.yaml)")
	flag.StringVar(&signals, "signals", "traces,metrics,logs", "signals to measure")
	flag.StringVar(&pipelines, "pipelines", "passthrough", "pipelines to measure: collector/NAME.yaml and pipelines/NAME.lua")
	flag.StringVar(&systems, "systems", "collector,flowlua", "systems under test")
	flag.IntVar(&o.reps, "reps", 3, "repetitions per measurement (the median is reported)")
	flag.Int64Var(&traces, "traces-items", 3_000_000, "spans per traces run")
	flag.Int64Var(&metrics, "metrics-items", 6_000_000, "data points per metrics run")
	flag.Int64Var(&logs, "logs-items", 4_000_000, "log records per logs run")
	flag.IntVar(&o.workers, "workers", 4, "load generator workers (one connection each)")
	flag.StringVar(&o.payload, "payload", "realistic", "load generator data: realistic, small (telemetrygen-like) or oneattr (one attribute per item; metrics: one Sum of all points)")
	flag.IntVar(&o.sinkWindow, "sink-window", sink.DefaultWindow, "the sink's HTTP/2 flow-control window in bytes (0: gRPC's dynamic window, which a sink sharing a CPU with the load generator grows slowly; see internal/sink)")
	flag.Float64Var(&o.rate, "rate", 0, "cap the load at this many items per second (0 = as fast as the system accepts); applies to every signal")
	flag.IntVar(&o.batch, "batch", 500, "items per export request sent by the load generator")
	flag.StringVar(&o.protocol, "protocol", "grpc", "OTLP transport of the load: grpc (RECEIVER_ENDPOINT), http (protobuf to RECEIVER_HTTP_ENDPOINT) or http-json (OTLP/JSON to RECEIVER_HTTP_ENDPOINT)")
	flag.StringVar(&o.pin, "pin", "auto", "pin with taskset: auto (if taskset exists and there are 2+ CPUs), on, off")
	defBin := os.Getenv("FLOWLUA_BIN")
	flag.StringVar(&o.flowluaBin, "flowlua", defBin, "flowlua binary (env FLOWLUA_BIN; default bin/flowlua at the repo root)")
	flag.StringVar(&o.baselineBin, "flowlua-baseline", "", "a second flowlua binary, measured as the system flowlua-baseline (e.g. a build without PGO)")
	flag.BoolVar(&o.pprof, "pprof", false, "let flowlua serve /debug/pprof/ and sample its heap for it; by default flowlua runs with --no-http.enable-pprof (where the binary has it), as neither collector build links the pprof extension")
	flag.StringVar(&o.collectorBin, "collector", "", "collector binary (default: build .build/otelcol-bench with the builder)")
	flag.DurationVar(&o.startTimeout, "start-timeout", 20*time.Second, "deadline for a system's receiver port to open")
	flag.DurationVar(&o.drainTimeout, "drain-timeout", 60*time.Second, "deadline for the sink to count everything after the load ends")
	flag.Float64Var(&o.quiet, "quiet", 0.25, "before each measurement, wait until other processes use at most this many cores (0 = don't wait)")
	flag.DurationVar(&o.quietWait, "quiet-wait", 10*time.Second, "longest wait for the machine to be quiet before measuring anyway")
	flag.BoolVar(&o.rebuild, "rebuild", false, "rebuild the collector even if its build is current")
	flag.BoolVar(&o.buildOnly, "build-only", false, "build the collector, load generator and sink, then exit")
	flag.StringVar(&o.jsonOut, "json", "", "also write every measurement to this JSON file")
	flag.BoolVar(&o.markdown, "markdown", false, "print the summary as a Markdown table")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of flowlua under each load to this directory (what `make pgo` merges into cmd/flowlua/default.pgo)")
	flag.DurationVar(&o.profileFor, "profile-for", 8*time.Second, "length of each -cpuprofile profile, from the start of the load")
	var suitePayloads, suiteProtocols string
	flag.BoolVar(&o.suite, "suite", false, "measure every target figure (loads, idle, the Lua edit) and print one table (suite.go); -signals, -pipelines and -systems are ignored")
	flag.BoolVar(&o.suiteFull, "suite-full", true, "with -suite, also compare flowlua with the collector built with every component flowlua hosts, core and plugins (collector-full)")
	flag.StringVar(&suitePayloads, "suite-payloads", "realistic,small,oneattr", "with -suite, the payloads of the loads")
	flag.StringVar(&suiteProtocols, "suite-protocols", "grpc,http,http-json", "with -suite, the protocols of the loads (OTLP/HTTP ones with the realistic payload only)")
	flag.Float64Var(&o.suiteSmallScale, "suite-small-scale", 2, "with -suite, multiply -*-items by this for the small and one-attribute payloads (their runs are short)")
	flag.Float64Var(&o.suiteJSONScale, "suite-json-scale", 0.25, "with -suite, multiply -*-items by this for the OTLP/JSON loads (their items cost several times more)")
	flag.DurationVar(&o.idleSettle, "idle-settle", 3*time.Second, "with -suite, how long a system idles after its port opens before its RSS is read")
	flag.Parse()
	o.suitePayloads, o.suiteProtocols = splitList(suitePayloads), splitList(suiteProtocols)
	if o.suite {
		o.systems = []string{"collector-core", "flowlua"}
		if o.suiteFull {
			o.systems = append(o.systems, "collector-full")
		}
		systems = strings.Join(o.systems, ",")
	}
	if flag.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", flag.Args())
	}

	if o.benchDir == "" {
		for _, d := range []string{".", "bench"} {
			if _, err := os.Stat(filepath.Join(d, builderConfig)); err == nil {
				o.benchDir = d
				break
			}
		}
		if o.benchDir == "" {
			return nil, errors.New("run from the bench directory or pass -dir")
		}
	}
	abs, err := filepath.Abs(o.benchDir)
	if err != nil {
		return nil, err
	}
	o.benchDir = abs
	if o.flowluaBin == "" {
		o.flowluaBin = filepath.Join(filepath.Dir(o.benchDir), "bin", "flowlua")
	}
	for _, s := range splitList(signals) {
		sig, err := wire.ParseSignal(s)
		if err != nil {
			return nil, err
		}
		o.signals = append(o.signals, sig)
	}
	o.pipelines = splitList(pipelines)
	o.systems = splitList(systems)
	for _, s := range o.systems {
		if !slices.Contains(knownSystems, s) {
			return nil, fmt.Errorf("unknown system %q (want one of %s)", s, strings.Join(knownSystems, ", "))
		}
		if s == "flowlua-baseline" && o.baselineBin == "" {
			return nil, errors.New("system flowlua-baseline needs -flowlua-baseline")
		}
	}
	if _, err := gen.ParsePayload(o.payload); err != nil {
		return nil, err
	}
	if o.reps < 1 {
		return nil, errors.New("-reps must be at least 1")
	}
	if err := sink.CheckWindow(o.sinkWindow); err != nil {
		return nil, fmt.Errorf("-sink-window: %w", err)
	}
	if !slices.Contains(protocols, o.protocol) {
		return nil, fmt.Errorf("-protocol: want grpc, http or http-json, got %q", o.protocol)
	}
	for _, p := range o.suiteProtocols {
		if !slices.Contains(protocols, p) {
			return nil, fmt.Errorf("-suite-protocols: want grpc, http or http-json, got %q", p)
		}
	}
	o.items[wire.Traces], o.items[wire.Metrics], o.items[wire.Logs] = traces, metrics, logs

	switch o.pin {
	case "off":
	case "on", "auto":
		_, err := exec.LookPath("taskset")
		n := runtime.NumCPU()
		if err != nil || n < 2 {
			if o.pin == "on" {
				return nil, fmt.Errorf("-pin=on needs taskset and 2+ CPUs (have %d CPUs, taskset: %v)", n, err)
			}
			logf("not pinning (taskset missing or fewer than 2 CPUs)")
			break
		}
		o.sutCPU = "0"
		o.genCPU = "1"
		if n > 2 {
			o.genCPU = "1-" + strconv.Itoa(n-1)
		}
	default:
		return nil, fmt.Errorf("-pin: want auto, on or off, got %q", o.pin)
	}
	return o, nil
}

func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func runAll(ctx context.Context, o *options) error {
	if err := buildTools(o.benchDir); err != nil {
		return err
	}
	if err := buildSystems(o); err != nil {
		return err
	}
	if o.buildOnly {
		return nil
	}
	if err := stageBinaries(o); err != nil {
		return err
	}
	logDir := filepath.Join(o.benchDir, buildDir, "logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	if o.sutCPU != "" {
		logf("pinning: system under test on CPU %s, load generator and sink on CPU %s", o.sutCPU, o.genCPU)
	}

	if o.suite {
		return runSuite(ctx, o, logDir)
	}
	start := time.Now()
	var all []measurement
	var failures []string
	notes := map[string]bool{}
	for _, p := range o.pipelines {
		for _, sig := range o.signals {
			for rep := 1; rep <= o.reps; rep++ {
				// Alternate which system goes first, so that neither
				// always follows the other.
				systems := slices.Clone(o.systems)
				if rep%2 == 0 {
					slices.Reverse(systems)
				}
				for _, sys := range systems {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					// Skip before waiting for quiet (measure checks again).
					var skip skipError
					if _, err := command(o, sys, p); errors.As(err, &skip) {
						if !notes[skip.reason] {
							logf("skipping %s: %s", sys, skip.reason)
							notes[skip.reason] = true
						}
						continue
					}
					if o.quiet > 0 {
						if busy, err := waitQuiet(ctx, o.quiet, o.quietWait); err != nil {
							return err
						} else if busy > o.quiet {
							logf("other processes still use %.2f cores after %v: measuring anyway (see the other cores column)", busy, o.quietWait)
						}
					}
					m, err := measure(ctx, o, sys, p, sig, rep, logDir)
					if errors.As(err, &skip) {
						if !notes[skip.reason] {
							logf("skipping %s: %s", sys, skip.reason)
							notes[skip.reason] = true
						}
						continue
					}
					if err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						// Go on with the other measurements; report at the end.
						f := fmt.Sprintf("%s %s %s rep %d: %v", sys, p, sig, rep, err)
						logf("FAILED %s", f)
						failures = append(failures, f)
						continue
					}
					logf("%-9s %-12s %-7s rep %d: %d items, %.2f CPU-s, %.0f items/CPU-s, peak RSS %.0f MB, util %.2f, loadgen %.2f CPU-s, sink %.2f CPU-s, other %.2f cores",
						sys, p, sig, rep, m.Items, m.CPUSeconds, m.ItemsPerCPUSecond, m.PeakRSSMB, m.Util, m.LoadgenCPUSeconds, m.SinkCPUSeconds, m.OtherCores)
					all = append(all, m)
				}
			}
		}
	}
	logf("done in %v", time.Since(start).Round(time.Second))
	if o.jsonOut != "" {
		b, err := json.MarshalIndent(all, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	printSummary(os.Stdout, o, all, notes)
	if len(failures) > 0 {
		for _, f := range failures {
			fmt.Fprintf(os.Stdout, "FAILED: %s\n", f)
		}
		return fmt.Errorf("%d measurement(s) failed", len(failures))
	}
	return nil
}

// knownSystems are the systems a run can measure.
// protocols are the load generator's: OTLP/gRPC, OTLP/HTTP with
// protobuf bodies, OTLP/HTTP with JSON bodies.
var protocols = []string{"grpc", "http", "http-json"}

var knownSystems = []string{"collector", "collector-core", "collector-full", "flowlua", "flowlua-baseline"}

// buildSystems builds what the systems of o need and o does not name: the
// collector builds.
func buildSystems(o *options) error {
	if slices.Contains(o.systems, "collector") && o.collectorBin == "" {
		if err := ensureCollector(o.benchDir, collectorMinimal, o.rebuild); err != nil {
			return err
		}
		o.collectorBin = filepath.Join(o.benchDir, collectorMinimal.bin)
	}
	if slices.Contains(o.systems, "collector-full") && o.collectorFullBin == "" {
		if err := ensureCollector(o.benchDir, collectorFull, o.rebuild); err != nil {
			return err
		}
		o.collectorFullBin = filepath.Join(o.benchDir, collectorFull.bin)
	}
	if slices.Contains(o.systems, "collector-core") && o.collectorCoreBin == "" {
		if err := ensureCollector(o.benchDir, collectorCore, o.rebuild); err != nil {
			return err
		}
		o.collectorCoreBin = filepath.Join(o.benchDir, collectorCore.bin)
	}
	return nil
}

// command returns the command line of system sys for pipeline p, or a
// skipError when the system or its pipeline file is missing.
func command(o *options, sys, p string) ([]string, error) {
	switch sys {
	case "collector":
		cfg := filepath.Join(o.benchDir, "collector", p+".yaml")
		if _, err := os.Stat(cfg); err != nil {
			return nil, skipError{fmt.Sprintf("no collector config for pipeline %s (%s)", p, cfg)}
		}
		return []string{o.collectorBin, "--config=" + cfg}, nil
	case "collector-core", "collector-full":
		cfg := filepath.Join(o.benchDir, "collector", p+".yaml")
		if _, err := os.Stat(cfg); err != nil {
			return nil, skipError{fmt.Sprintf("no collector config for pipeline %s (%s)", p, cfg)}
		}
		bin := o.collectorCoreBin
		if sys == "collector-full" {
			bin = o.collectorFullBin
		}
		return []string{bin, "--config=" + cfg}, nil
	case "flowlua", "flowlua-baseline":
		bin := o.flowluaBin
		if sys == "flowlua-baseline" {
			bin = o.baselineBin
		}
		if _, err := os.Stat(bin); err != nil {
			return nil, skipError{fmt.Sprintf("flowlua binary %s not found (set FLOWLUA_BIN or -flowlua)", bin)}
		}
		file := filepath.Join(o.benchDir, "pipelines", p+".lua")
		if _, err := os.Stat(file); err != nil {
			return nil, skipError{fmt.Sprintf("no flowlua pipeline %s (%s)", p, file)}
		}
		if err := checkFlowlua(bin, file); err != nil {
			return nil, err
		}
		args := []string{bin, "run", "--no-watch", "--http.listen-addr=127.0.0.1:0"}
		if !o.pprof && hasFlag(bin, "http.enable-pprof") {
			args = append(args, "--no-http.enable-pprof")
		}
		return append(args, file), nil
	}
	return nil, fmt.Errorf("unknown system %q", sys)
}

// flowluaFlags caches `flowlua run --help` by binary.
var flowluaFlags = map[string]string{}

// hasFlag reports whether the help of the flowlua binary bin's run
// command names flag (without its dashes: kong writes --[no-]name): a
// baseline build may predate it.
func hasFlag(bin, flag string) bool {
	help, ok := flowluaFlags[bin]
	if !ok {
		out, _ := exec.Command(bin, "run", "--help").CombinedOutput()
		help = string(out)
		flowluaFlags[bin] = help
	}
	return strings.Contains(help, flag)
}

// flowluaChecks caches checkFlowlua's verdicts by binary and pipeline file.
var flowluaChecks = map[string]error{}

// checkFlowlua runs `flowlua check FILE` once per file and turns a failure
// into a skipError: while flowlua lacks a component a pipeline needs, the
// runner notes it and measures the rest.
func checkFlowlua(bin, file string) error {
	if err, ok := flowluaChecks[bin+"\x00"+file]; ok {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "check", file)
	// Endpoints for env() in the script; check starts nothing.
	cmd.Env = append(os.Environ(), "RECEIVER_ENDPOINT=127.0.0.1:4317", "RECEIVER_HTTP_ENDPOINT=127.0.0.1:4318", "EXPORTER_ENDPOINT=127.0.0.1:4319")
	out, err := cmd.CombinedOutput()
	if err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		err = skipError{fmt.Sprintf("%s check %s failed (%v): %s", bin, file, err, first)}
	}
	flowluaChecks[bin+"\x00"+file] = err
	return err
}

// proc is a started child process.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has exited
	err    error         // Wait's result, valid after exited is closed
}

// start starts argv, pinned to cpus with taskset when cpus is set, with
// stdout and stderr to logPath.
func start(argv []string, env []string, cpus, logPath string, stdout io.Writer) (*proc, error) {
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...)
	}
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = cmp.Or[io.Writer](stdout, lf)
	cmd.Stderr = lf
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		lf.Close()
		close(p.exited)
	}()
	return p, nil
}

// stop sends SIGTERM and waits up to 10 s before killing.
func (p *proc) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// measure runs one measurement.
func measure(ctx context.Context, o *options, sys, pipeline string, sig wire.Signal, rep int, logDir string) (measurement, error) {
	m := measurement{System: sys, Pipeline: pipeline, Signal: sig, Protocol: o.protocol, Rep: rep}
	argv, err := command(o, sys, pipeline)
	if err != nil {
		return m, err
	}
	addrs, err := freePorts(6)
	if err != nil {
		return m, err
	}
	sinkGRPC, sinkHTTP, recvGRPC, recvHTTP := addrs[0], addrs[1], addrs[2], addrs[5]
	recv := recvGRPC // where the load goes
	if o.protocol != "grpc" {
		recv = recvHTTP
	}
	tag := fmt.Sprintf("%s-%s-%s-%d", sys, pipeline, sig, rep)

	// The sink first: an exporter that dials before its endpoint listens
	// backs off for about a second.
	sk, err := start([]string{filepath.Join(o.benchDir, sinkBin), "-grpc", sinkGRPC, "-http", sinkHTTP, "-window", strconv.Itoa(o.sinkWindow)},
		nil, o.genCPU, filepath.Join(logDir, tag+"-sink.log"), io.Discard)
	if err != nil {
		return m, err
	}
	defer sk.stop()
	if err := waitPort(ctx, sinkHTTP, o.startTimeout, sk.exited); err != nil {
		return m, fmt.Errorf("sink: %w", err)
	}
	if err := waitPort(ctx, sinkGRPC, o.startTimeout, sk.exited); err != nil {
		return m, fmt.Errorf("sink: %w", err)
	}

	// Both systems keep their own telemetry as shipped; the collector's
	// metrics endpoint (a fixed :8888 by default) gets a free port.
	env := systemEnv(recvGRPC, recvHTTP, sinkGRPC, addrs[3])
	profiling := o.cpuProfile != "" && sys == "flowlua"
	if profiling {
		argv = slices.Clone(argv)
		for i, a := range argv {
			if strings.HasPrefix(a, "--http.listen-addr=") {
				argv[i] = "--http.listen-addr=" + addrs[4]
			}
		}
	}
	t0 := time.Now()
	sut, err := start(argv, env, o.sutCPU, filepath.Join(logDir, tag+".log"), nil)
	if err != nil {
		return m, err
	}
	defer sut.stop()
	if err := waitPort(ctx, recv, o.startTimeout, sut.exited); err != nil {
		return m, fmt.Errorf("%s (log: %s): %w", sys, filepath.Join(logDir, tag+".log"), err)
	}
	m.StartupMS = float64(time.Since(t0).Microseconds()) / 1000
	pid := sut.cmd.Process.Pid
	cpu0, err := treeCPUSeconds(pid)
	if err != nil {
		return m, err
	}

	// The load, as a separate process pinned away from the system.
	var out strings.Builder
	lgArgs := []string{filepath.Join(o.benchDir, loadgenBin), "-json", "-protocol", o.protocol, "-addr", recv, "-signal", string(sig),
		"-items", strconv.FormatInt(o.items[sig], 10), "-workers", strconv.Itoa(o.workers), "-batch", strconv.Itoa(o.batch), "-payload", o.payload,
		"-rate", strconv.FormatFloat(o.rate, 'f', -1, 64)}
	tLoad := time.Now()
	busy0, err := busySeconds()
	if err != nil {
		return m, err
	}
	sinkCPU0, err := cpuSeconds(sk.cmd.Process.Pid)
	if err != nil {
		return m, err
	}
	var profiled chan error
	if profiling {
		profiled = make(chan error, 1)
		go func() {
			profiled <- fetchProfile(addrs[4], o.profileFor, filepath.Join(o.cpuProfile, tag+".pprof"))
		}()
	}
	lg, err := start(lgArgs, nil, o.genCPU, filepath.Join(logDir, tag+"-loadgen.log"), &out)
	if err != nil {
		return m, err
	}
	select {
	case <-lg.exited:
	case <-sut.exited:
		lg.stop()
		return m, fmt.Errorf("%s exited during the load: %v", sys, sut.err)
	case <-ctx.Done():
		lg.stop()
		return m, ctx.Err()
	}
	var res loadgen.Result
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		return m, fmt.Errorf("loadgen (exit %v) printed %q: %w", lg.err, out.String(), err)
	}
	if res.Failed > 0 {
		return m, fmt.Errorf("%s refused %d items: %s", sys, res.Failed, res.FirstError)
	}
	if lg.cmd.ProcessState != nil {
		m.LoadgenCPUSeconds = (lg.cmd.ProcessState.UserTime() + lg.cmd.ProcessState.SystemTime()).Seconds()
	}
	m.Items = res.Items

	// Wait until the sink has counted everything.
	var last int64
	err = poll(ctx, o.drainTimeout, 10*time.Millisecond, "waiting for the sink", func() (bool, error) {
		select {
		case <-sut.exited:
			return false, fmt.Errorf("%s exited: %v", sys, sut.err)
		default:
		}
		c, err := sinkCounts(sinkHTTP)
		if err != nil {
			return false, err
		}
		last = c.Get(sig)
		return last >= res.Items, nil
	})
	if err != nil {
		return m, fmt.Errorf("%w (sink has %d of %d items)", err, last, res.Items)
	}
	m.WallSeconds = time.Since(tLoad).Seconds()
	cpu1, err := treeCPUSeconds(pid)
	if err != nil {
		return m, err
	}
	if m.PeakRSSMB, err = peakRSSMB(pid); err != nil {
		return m, err
	}
	sinkCPU1, err := cpuSeconds(sk.cmd.Process.Pid)
	if err != nil {
		return m, err
	}
	busy1, err := busySeconds()
	if err != nil {
		return m, err
	}
	m.SinkCPUSeconds = sinkCPU1 - sinkCPU0
	if profiled != nil {
		if err := <-profiled; err != nil {
			return m, fmt.Errorf("cpu profile: %w", err)
		}
	}
	m.CPUSeconds = cpu1 - cpu0
	if m.CPUSeconds > 0 {
		m.ItemsPerCPUSecond = float64(m.Items) / m.CPUSeconds
	}
	if m.WallSeconds > 0 {
		m.Util = m.CPUSeconds / m.WallSeconds
		other := (busy1 - busy0) - m.CPUSeconds - m.LoadgenCPUSeconds - m.SinkCPUSeconds
		m.OtherCores = max(0, other/m.WallSeconds)
	}
	return m, nil
}

// fetchProfile writes a CPU profile of the flowlua serving HTTP on addr,
// taken over d, to file.
func fetchProfile(addr string, d time.Duration, file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	secs := max(1, int(d.Round(time.Second)/time.Second))
	client := &http.Client{Timeout: d + 30*time.Second}
	resp, err := client.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, secs))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /debug/pprof/profile: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// median returns the median of xs (the mean of the middle two for an even
// count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// summary is the medians of one system, pipeline and signal.
type summary struct {
	system, pipeline string
	signal           wire.Signal
	n                int
	items            int64
	cpu, rate, rss   float64
	startup, util    float64
	// spread is half the range of items/CPU-s over the repetitions, in
	// percent of the median.
	spread float64
	other  float64
}

func summarize(all []measurement) []summary {
	type key struct {
		sys, p string
		sig    wire.Signal
	}
	groups := map[key][]measurement{}
	var order []key
	for _, m := range all {
		k := key{m.System, m.Pipeline, m.Signal}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], m)
	}
	var out []summary
	for _, k := range order {
		ms := groups[k]
		col := func(f func(measurement) float64) float64 {
			xs := make([]float64, len(ms))
			for i, m := range ms {
				xs[i] = f(m)
			}
			return median(xs)
		}
		out = append(out, summary{
			system: k.sys, pipeline: k.p, signal: k.sig, n: len(ms),
			items:   int64(col(func(m measurement) float64 { return float64(m.Items) })),
			cpu:     col(func(m measurement) float64 { return m.CPUSeconds }),
			rate:    col(func(m measurement) float64 { return m.ItemsPerCPUSecond }),
			rss:     col(func(m measurement) float64 { return m.PeakRSSMB }),
			startup: col(func(m measurement) float64 { return m.StartupMS }),
			util:    col(func(m measurement) float64 { return m.Util }),
			other:   col(func(m measurement) float64 { return m.OtherCores }),
		})
		s := &out[len(out)-1]
		lo, hi := s.rate, s.rate
		for _, m := range ms {
			lo, hi = min(lo, m.ItemsPerCPUSecond), max(hi, m.ItemsPerCPUSecond)
		}
		if s.rate > 0 {
			s.spread = (hi - lo) / 2 / s.rate * 100
		}
	}
	return out
}

// printTable prints header and rows as a Markdown table, or aligned in
// columns with tabwriter's flags.
func printTable(w io.Writer, markdown bool, flags uint, header []string, rows [][]string) {
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat(" --- |", len(header)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', flags)
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}

// systemEnv is the environment of a system under test: where its
// pipeline receives (OTLP/gRPC and OTLP/HTTP) and exports, and a free
// port for the collector's own metrics endpoint (a fixed :8888 by
// default).
func systemEnv(recvGRPC, recvHTTP, exporter, metricsAddr string) []string {
	_, metricsPort, _ := net.SplitHostPort(metricsAddr)
	return []string{"RECEIVER_ENDPOINT=" + recvGRPC, "RECEIVER_HTTP_ENDPOINT=" + recvHTTP, "EXPORTER_ENDPOINT=" + exporter, "METRICS_PORT=" + metricsPort}
}

// peerOf is the collector build a flowlua system is compared with: the
// one with the same components as flowlua's core (collector-core) when
// it is measured, else collector, else collector-full.
func peerOf(system string, systems []string) string {
	for _, peer := range []string{"collector-core", "collector", "collector-full"} {
		if slices.Contains(systems, peer) {
			return peer
		}
	}
	return "collector-full"
}

// sinkWindowText describes the sink's flow-control window for a summary.
func sinkWindowText(window int) string {
	if window == 0 {
		return "sink with gRPC's dynamic window"
	}
	return fmt.Sprintf("sink window %d KiB", window>>10)
}

// printSummary prints the median table and the flowlua/collector ratios.
func printSummary(w io.Writer, o *options, all []measurement, notes map[string]bool) {
	sums := summarize(all)
	pin := "not pinned"
	if o.sutCPU != "" {
		pin = fmt.Sprintf("system on CPU %s, load on CPU %s", o.sutCPU, o.genCPU)
	}
	rate := "as fast as accepted"
	if o.rate > 0 {
		rate = fmt.Sprintf("at most %.0f items/s", o.rate)
	}
	fmt.Fprintf(w, "\nMedians of %d repetition(s); OTLP/%s load, %s payload, %d workers x %d items per request, %s; %s; %s.\n\n", o.reps, strings.ToUpper(o.protocol), o.payload, o.workers, o.batch, rate, pin, sinkWindowText(o.sinkWindow))
	header := []string{"system", "pipeline", "signal", "items", "CPU-s", "items/CPU-s", "±%", "peak RSS MB", "startup ms", "util", "other cores", "flowlua/peer items/CPU-s", "flowlua/peer RSS"}
	var rows [][]string
	for _, s := range sums {
		ratioRate, ratioRSS := "", ""
		if strings.HasPrefix(s.system, "flowlua") {
			peer := peerOf(s.system, o.systems)
			for _, c := range sums {
				if c.system == peer && c.pipeline == s.pipeline && c.signal == s.signal && c.rate > 0 && c.rss > 0 {
					ratioRate = fmt.Sprintf("%.2fx", s.rate/c.rate)
					ratioRSS = fmt.Sprintf("%.2fx", s.rss/c.rss)
				}
			}
		}
		rows = append(rows, []string{s.system, s.pipeline, string(s.signal), strconv.FormatInt(s.items, 10),
			fmt.Sprintf("%.2f", s.cpu), fmt.Sprintf("%.0f", s.rate), fmt.Sprintf("%.0f", s.spread), fmt.Sprintf("%.0f", s.rss),
			fmt.Sprintf("%.0f", s.startup), fmt.Sprintf("%.2f", s.util), fmt.Sprintf("%.2f", s.other), ratioRate, ratioRSS})
	}
	printTable(w, o.markdown, tabwriter.AlignRight, header, rows)
	var ns []string
	for n := range notes {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	for _, n := range ns {
		fmt.Fprintf(w, "skipped: %s\n", n)
	}
}
