package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flowlua/flowlua/stdlib/native"

	_ "github.com/flowlua/flowlua/services/all" // the built-in services
	_ "github.com/flowlua/flowlua/stdlib/all"   // the built-in components
)

// Exit codes of the command line (SPEC section 2).
const (
	exitOK     = 0
	exitConfig = 1
	exitUsage  = 2
)

// cli is the command line.
type cli struct {
	Run        runCmd        `cmd:"" help:"Run a pipeline until SIGINT or SIGTERM; SIGHUP reloads."`
	Check      checkCmd      `cmd:"" help:"Load and check a pipeline: types, references, cycles. Starts nothing."`
	Graph      graphCmd      `cmd:"" help:"Print a pipeline's component and service graph as Graphviz DOT."`
	Components componentsCmd `cmd:"" help:"List components, or show one component's arguments and exports."`
	Test       testCmd       `cmd:"" help:"Run pipeline test cases (*_test.lua): input fed to a component, assertions on what reaches outputs."`
	Convert    convertCmd    `cmd:"" help:"Translate an OpenTelemetry Collector or a Prometheus server configuration (YAML) into a flowlua script."`
	Fmt        fmtCmd        `cmd:"" help:"Format pipeline scripts canonically (-w writes them back, -d shows the diff and exits 1 when any)."`
	Version    versionCmd    `cmd:"" help:"Print the version."`
}

// env is what every command writes to.
type env struct {
	stdout, stderr io.Writer
	// natives holds the native plugins the command opened; Main stops
	// them when the command returns.
	natives *native.Manager
}

// nativePlugins returns the command's manager of native plugins, made on
// first use with logger and registerer (nil: none) and the plugins/
// directory beside flowlua's executable.
func (e *env) nativePlugins(pf pluginFlags, logger *slog.Logger, reg prometheus.Registerer) *native.Manager {
	if e.natives == nil {
		e.natives = native.NewManager(native.Options{Logger: logger, Registerer: reg, StartTimeout: pf.StartTimeout})
	}
	return e.natives
}

// besideExecutable is the plugins/ directory beside flowlua's executable,
// where `make build` puts the first-party plugins.
func besideExecutable() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return []string{filepath.Join(filepath.Dir(exe), "plugins")}
}

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

type exitPanic int

// collectorCommandLine makes the collector's command line a run: the
// collector takes its flags without a command (otelcol --config=FILE
// --set=...), as its Helm chart and Operator start it, so that flowlua
// runs as those images' entrypoint unchanged.
func collectorCommandLine(args []string) []string {
	if len(args) > 0 && (strings.HasPrefix(args[0], "--config") || strings.HasPrefix(args[0], "--set")) {
		return append([]string{"run"}, args...)
	}
	return args
}

// Main runs the command line with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	var c cli
	parser, err := kong.New(&c,
		kong.Name("flowlua"),
		kong.Description("A telemetry pipeline engine: pipelines written in Lua, checked before they start, hot-reloaded."),
		kong.Writers(stdout, stderr),
		kong.UsageOnError(),
		kong.DefaultEnvars("FLOWLUA"),
		kong.Exit(func(code int) { panic(exitPanic(code)) }),
	)
	if err != nil {
		fmt.Fprintln(stderr, "flowlua:", err)
		return exitUsage
	}
	defer func() {
		if r := recover(); r != nil {
			p, ok := r.(exitPanic)
			if !ok {
				panic(r)
			}
			code = int(p)
			if code == 1 { // kong reports usage errors with 1
				code = exitUsage
			}
		}
	}()
	kctx, err := parser.Parse(collectorCommandLine(args))
	if err != nil {
		fmt.Fprintf(stderr, "flowlua: %v (see flowlua --help)\n", err)
		return exitUsage
	}
	e := &env{stdout: stdout, stderr: stderr}
	err = kctx.Run(e)
	if e.natives != nil {
		e.natives.Close()
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "flowlua:", err)
	return exitConfig
}
