package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowlua/flowlua/bench/internal/wire"
)

// The suite (-suite) measures every figure of the performance targets and
// prints them in one table, flowlua against its peer built with the same
// components:
//
//   - the passthrough pipeline under each load (signal, payload,
//     protocol): items per CPU-second and peak RSS of flowlua (its core)
//     against collector-core (same components), medians of -reps
//     alternating repetitions, and the worst single repetition's RSS
//     ratio;
//   - the same for flowlua against collector-full (every component
//     flowlua hosts, in its core and its plugins, which start only when
//     used) on the realistic payload, unless -suite-full=false;
//   - idle RSS and start-up (start to OTLP port open) of both pairs;
//   - the Lua edit in process (go test -bench RedactEdit ./stdlib/lua/):
//     the Lua loop against OTTL, lua.redact against the attributes
//     processor, in ns per span.

// suiteLoad is one load of the suite.
type suiteLoad struct {
	signal   wire.Signal
	payload  string
	protocol string
}

func (l suiteLoad) String() string {
	return fmt.Sprintf("%s %s %s", l.signal, l.payload, l.protocol)
}

// suiteLoads returns the loads of the suite: every signal with each
// payload over OTLP/gRPC, and the realistic payload over OTLP/HTTP
// (protobuf and JSON) when the load generator speaks it.
func suiteLoads(payloads, protocols []string) []suiteLoad {
	var out []suiteLoad
	for _, proto := range protocols {
		for _, p := range payloads {
			if proto != "grpc" && p != "realistic" {
				continue
			}
			for _, sig := range []wire.Signal{wire.Traces, wire.Metrics, wire.Logs} {
				out = append(out, suiteLoad{signal: sig, payload: p, protocol: proto})
			}
		}
	}
	return out
}

// scaledItems returns the items of a load of payload over protocol:
// -suite-small-scale times -*-items for the small and one-attribute
// payloads, whose runs are otherwise 2 to 3 CPU-seconds, too short for
// their ratio to settle (their repetitions spread by 12 to 15% at one
// times), and -suite-json-scale times for OTLP/JSON, whose items cost
// the collector four to six times their protobuf cost.
func scaledItems(o *options, payload, protocol string) map[wire.Signal]int64 {
	out := maps.Clone(o.items)
	scale := 1.0
	if payload != "realistic" {
		scale *= o.suiteSmallScale
	}
	if protocol == "http-json" {
		scale *= o.suiteJSONScale
	}
	for sig, n := range out {
		out[sig] = int64(float64(n) * scale)
	}
	return out
}

// suiteRow is one line of the suite's table.
type suiteRow struct {
	what     string
	flowlua  string
	peer     string
	ratio    float64
	worst    string // the worst single repetition, when it matters
	target   string
	met      bool
	measured bool
}

// pairResult is what the repetitions of one load gave a pair of systems.
type pairResult struct {
	rate, rss     [2][]float64 // per system, per repetition
	startup, idle [2][]float64
}

// runSuite runs the suite and prints its table.
func runSuite(ctx context.Context, o *options, logDir string) error {
	start := time.Now()
	var rows []suiteRow
	var failures []string
	pairs := [][2]string{{"flowlua", "collector-core"}}
	if o.suiteFull {
		pairs = append(pairs, [2]string{"flowlua", "collector-full"})
	}
	loads := suiteLoads(o.suitePayloads, o.suiteProtocols)

	for _, pair := range pairs {
		// Idle: start, wait for the port, settle, read RSS.
		var idle pairResult
		for rep := 1; rep <= o.reps; rep++ {
			for _, sys := range ordered(pair, rep) {
				if err := quiet(ctx, o); err != nil {
					return err
				}
				startup, rss, err := measureIdle(ctx, o, sys, rep, logDir)
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					failures = append(failures, fmt.Sprintf("idle %s rep %d: %v", sys, rep, err))
					continue
				}
				j := slices.Index(pair[:], sys)
				idle.startup[j] = append(idle.startup[j], startup)
				idle.idle[j] = append(idle.idle[j], rss)
				logf("idle %-16s rep %d: start-up %.1f ms, RSS %.1f MB", sys, rep, startup, rss)
			}
		}
		rows = append(rows,
			ratioRow(fmt.Sprintf("idle RSS MB, %s / %s", pair[0], pair[1]), idle.idle, "≤ 1.00", 1.0, true, false),
			ratioRow(fmt.Sprintf("start-up ms, %s / %s", pair[0], pair[1]), idle.startup, "report", 0, true, false))

		for _, l := range loads {
			if pair[1] == "collector-full" && (l.payload != "realistic" || l.protocol != "grpc") {
				continue // every component: its memory on the realistic load
			}
			lo := *o
			lo.payload, lo.protocol = l.payload, l.protocol
			lo.items = scaledItems(o, l.payload, l.protocol)
			var res pairResult
			for rep := 1; rep <= o.reps; rep++ {
				for _, sys := range ordered(pair, rep) {
					if err := quiet(ctx, o); err != nil {
						return err
					}
					m, err := measure(ctx, &lo, sys, "passthrough", l.signal, rep, logDir)
					if err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						failures = append(failures, fmt.Sprintf("%s %s rep %d: %v", sys, l, rep, err))
						continue
					}
					j := slices.Index(pair[:], sys)
					res.rate[j] = append(res.rate[j], m.ItemsPerCPUSecond)
					res.rss[j] = append(res.rss[j], m.PeakRSSMB)
					logf("%-16s %-24s rep %d: %.0f items/CPU-s, peak RSS %.0f MB, other %.2f cores", sys, l, rep, m.ItemsPerCPUSecond, m.PeakRSSMB, m.OtherCores)
				}
			}
			if pair[1] == "collector-core" {
				rows = append(rows, ratioRow(fmt.Sprintf("items/CPU-s, %s", l), res.rate, "≥ 1.25", 1.25, false, false))
			}
			rows = append(rows, ratioRow(fmt.Sprintf("peak RSS MB, %s, %s / %s", l, pair[0], pair[1]), res.rss, "≤ 0.90 (each ≤ 1.20)", 0.9, true, true))
		}
	}

	edit, err := editBench(ctx, o)
	if err != nil {
		failures = append(failures, fmt.Sprintf("edit benchmark: %v", err))
	}
	rows = append(rows, edit...)

	logf("suite done in %v", time.Since(start).Round(time.Second))
	printSuite(os.Stdout, o, rows)
	for _, f := range failures {
		fmt.Fprintf(os.Stdout, "FAILED: %s\n", f)
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d measurement(s) failed", len(failures))
	}
	return nil
}

// ordered returns the pair in the order of repetition rep: the systems
// alternate which goes first.
func ordered(pair [2]string, rep int) []string {
	if rep%2 == 0 {
		return []string{pair[1], pair[0]}
	}
	return []string{pair[0], pair[1]}
}

func quiet(ctx context.Context, o *options) error {
	if o.quiet <= 0 {
		return nil
	}
	busy, err := waitQuiet(ctx, o.quiet, o.quietWait)
	if err != nil {
		return err
	}
	if busy > o.quiet {
		logf("other processes still use %.2f cores after %v: measuring anyway", busy, o.quietWait)
	}
	return nil
}

// ratioRow makes the row of the medians of two systems' values and their
// ratio; worstRSS adds the largest ratio of one repetition's values.
func ratioRow(what string, v [2][]float64, target string, bound float64, lowerIsGood, worstRSS bool) suiteRow {
	r := suiteRow{what: what, target: target}
	if len(v[0]) == 0 || len(v[1]) == 0 {
		return r
	}
	a, b := median(v[0]), median(v[1])
	r.flowlua, r.peer = formatFigure(a), formatFigure(b)
	r.measured = b > 0
	if !r.measured {
		return r
	}
	r.ratio = a / b
	switch {
	case bound == 0:
		r.met = true
	case lowerIsGood:
		r.met = r.ratio <= bound
	default:
		r.met = r.ratio >= bound
	}
	if worstRSS {
		worst := 0.0
		for i := range min(len(v[0]), len(v[1])) {
			worst = max(worst, v[0][i]/v[1][i])
		}
		r.worst = fmt.Sprintf("%.2fx", worst)
		r.met = r.met && worst <= 1.2
	}
	return r
}

func formatFigure(x float64) string {
	switch {
	case x >= 10000:
		return fmt.Sprintf("%.0fk", x/1000)
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	default:
		return fmt.Sprintf("%.1f", x)
	}
}

// measureIdle starts sys with the passthrough pipeline, measures the time
// to its OTLP port, lets it settle for -idle-settle and returns its
// resident memory then (VmRSS).
func measureIdle(ctx context.Context, o *options, sys string, rep int, logDir string) (startupMS, rssMB float64, err error) {
	argv, err := command(o, sys, "passthrough")
	if err != nil {
		return 0, 0, err
	}
	addrs, err := freePorts(4)
	if err != nil {
		return 0, 0, err
	}
	// The exporter's endpoint listens nowhere: an idle system does not send.
	env := systemEnv(addrs[0], addrs[1], addrs[3], addrs[2])
	tag := fmt.Sprintf("idle-%s-%d", sys, rep)
	t0 := time.Now()
	p, err := start(argv, env, o.sutCPU, filepath.Join(logDir, tag+".log"), nil)
	if err != nil {
		return 0, 0, err
	}
	defer p.stop()
	if err := waitPort(ctx, addrs[0], o.startTimeout, p.exited); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", sys, err)
	}
	startupMS = float64(time.Since(t0).Microseconds()) / 1000
	select {
	case <-time.After(o.idleSettle):
	case <-p.exited:
		return 0, 0, fmt.Errorf("%s exited while idle: %v", sys, p.err)
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
	rssMB, err = statusMB(p.cmd.Process.Pid, "VmRSS")
	return startupMS, rssMB, err
}

// editLine matches a line of the RedactEdit benchmark's output.
var editLine = regexp.MustCompile(`^BenchmarkRedactEdit/(\S+?)(-\d+)?\s+\d+\s+.*?([0-9.]+) ns/span`)

// editBench runs the edit benchmark in process and returns its rows: the
// Lua loop against OTTL (target 0.75) and lua.redact against the
// attributes processor (target 1.0).
func editBench(ctx context.Context, o *options) ([]suiteRow, error) {
	root := filepath.Dir(o.benchDir)
	args := []string{"test", "-run", "^$", "-bench", "^BenchmarkRedactEdit$", "-benchtime", "20000x", "-count", strconv.Itoa(o.reps), "./stdlib/lua/"}
	logf("go %s", strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	if o.sutCPU != "" {
		cmd = exec.CommandContext(ctx, "taskset", append([]string{"-c", o.sutCPU, "go"}, args...)...)
		cmd.Dir = root
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLines(out, 10))
	}
	ns, err := parseEdit(strings.NewReader(string(out)))
	if err != nil {
		return nil, err
	}
	row := func(what, a, b string, bound float64) suiteRow {
		r := suiteRow{what: what, target: fmt.Sprintf("≤ %.2f", bound)}
		if len(ns[a]) == 0 || len(ns[b]) == 0 {
			return r
		}
		x, y := median(ns[a]), median(ns[b])
		r.flowlua, r.peer = fmt.Sprintf("%.0f ns", x), fmt.Sprintf("%.0f ns", y)
		r.ratio, r.measured = x/y, true
		r.met = r.ratio <= bound
		return r
	}
	return []suiteRow{
		row("per span: Lua loop (set + delete) / OTTL", "lua-loop", "ottl", 0.75),
		row("per span: lua.redact / attributes processor", "lua-redact", "attributes", 1.0),
	}, nil
}

// parseEdit reads ns/span by case from the benchmark's output.
func parseEdit(r io.Reader) (map[string][]float64, error) {
	ns := map[string][]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := editLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return nil, err
		}
		ns[m[1]] = append(ns[m[1]], v)
	}
	if len(ns) == 0 {
		return nil, errors.New("no BenchmarkRedactEdit results in the output")
	}
	return ns, sc.Err()
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// printSuite prints the suite's one table.
func printSuite(w io.Writer, o *options, rows []suiteRow) {
	pin := "not pinned"
	if o.sutCPU != "" {
		pin = fmt.Sprintf("system on CPU %s, load on CPU %s", o.sutCPU, o.genCPU)
	}
	fmt.Fprintf(w, "\nflowlua against the upstream collector %s built with the same components; medians of %d alternating repetitions; %d workers x %d items per request; %s; %s.\n\n",
		builderVersion, o.reps, o.workers, o.batch, pin, sinkWindowText(o.sinkWindow))
	header := []string{"measure", "flowlua", "collector", "ratio", "worst run", "target", "met"}
	var out [][]string
	for _, r := range rows {
		ratio, met := "-", "not measured"
		if r.measured {
			ratio = fmt.Sprintf("%.2fx", r.ratio)
			met = map[bool]string{true: "yes", false: "NO"}[r.met]
		}
		out = append(out, []string{r.what, r.flowlua, r.peer, ratio, r.worst, r.target, met})
	}
	printTable(w, o.markdown, 0, header, out)
}
