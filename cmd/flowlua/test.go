package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/flowlua/flowlua/engine"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/pipetest"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/luabind/scriptload"
	"github.com/flowlua/flowlua/luabind/testdsl"
	"github.com/flowlua/flowlua/services"
	"github.com/flowlua/flowlua/stdlib/integrations"
	"github.com/flowlua/flowlua/stdlib/otelcol/convert"
)

type testCmd struct {
	Paths  []string `arg:"" optional:"" name:"path" help:"Test files (*_test.lua), pipelines (x.lua is tested by x_test.lua) or directories searched recursively (default: .)."`
	Filter string   `name:"run" placeholder:"REGEX" help:"Run only the cases whose name matches REGEX."`
	JSON   bool     `name:"json" help:"Write the results as one JSON document, for CI."`
	pluginFlags
}

// testResult is one case's result as --json writes it.
type testResult struct {
	File       string        `json:"file"`
	Line       int           `json:"line"`
	Pipeline   string        `json:"pipeline"`
	Name       string        `json:"name"`
	Status     string        `json:"status"` // "pass" or "fail"
	DurationMS float64       `json:"duration_ms"`
	Failures   []testFailure `json:"failures,omitempty"`
}

type testFailure struct {
	Pos     string `json:"pos"`
	Message string `json:"message"`
}

type testReport struct {
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Results []testResult `json:"results"`
}

func (c *testCmd) Run(e *env) error {
	var filter *regexp.Regexp
	if c.Filter != "" {
		re, err := regexp.Compile(c.Filter)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("flowlua test: --run: %v", err)}
		}
		filter = re
	}
	paths := c.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, err := findTestFiles(paths)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("flowlua test: %v", err)}
	}
	if len(files) == 0 {
		return &exitError{code: exitConfig, err: fmt.Errorf("flowlua test: no test files (*_test.lua) in %s", strings.Join(paths, ", "))}
	}

	var report testReport
	record := func(r testResult) {
		if r.Status == "pass" {
			report.Passed++
		} else {
			report.Failed++
		}
		report.Results = append(report.Results, r)
		if !c.JSON {
			writeResult(e, r)
		}
	}
	pipelines := map[string]*loadedPipeline{}
	for _, f := range files {
		tf, err := testdsl.ParseFile(f)
		if err != nil {
			record(testResult{File: f, Name: "(test file)", Status: "fail", Failures: []testFailure{{Pos: f, Message: err.Error()}}})
			continue
		}
		p := pipelines[tf.Pipeline]
		if p == nil {
			p = loadForTest(e, tf.Pipeline, c.pluginFlags)
			pipelines[tf.Pipeline] = p
		}
		for _, tc := range tf.Cases {
			if filter != nil && !filter.MatchString(tc.Name) {
				continue
			}
			r := testResult{File: f, Line: tc.Pos.Line, Pipeline: tf.Pipeline, Name: tc.Name}
			if p.err != nil {
				r.Status = "fail"
				r.Failures = []testFailure{{Pos: tc.Pos.String(), Message: "the pipeline does not load:\n" + p.err.Error()}}
				record(r)
				continue
			}
			res := pipetest.Run(context.Background(), pipetest.Options{
				Script:   p.script,
				Registry: p.registry,
				Services: testServices,
			}, tc)
			r.DurationMS = float64(res.Duration.Microseconds()) / 1000
			r.Status = "pass"
			for _, fl := range res.Failures {
				r.Status = "fail"
				pos := fl.Pos
				if pos.File == "" {
					pos = tc.Pos
				}
				r.Failures = append(r.Failures, testFailure{Pos: pos.String(), Message: fl.Message})
			}
			record(r)
		}
	}
	if c.JSON {
		if report.Results == nil {
			report.Results = []testResult{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		status := "ok"
		if report.Failed > 0 {
			status = "FAIL"
		}
		fmt.Fprintf(e.stdout, "%s: %d passed, %d failed\n", status, report.Passed, report.Failed)
	}
	if report.Failed > 0 {
		return &exitError{code: exitConfig}
	}
	return nil
}

func writeResult(e *env, r testResult) {
	if r.Status == "pass" {
		fmt.Fprintf(e.stdout, "PASS %s (%s)\n", r.Name, formatMS(r.DurationMS))
		return
	}
	if r.Line > 0 {
		fmt.Fprintf(e.stdout, "FAIL %s (%s)\n", r.Name, formatMS(r.DurationMS))
	} else {
		fmt.Fprintf(e.stdout, "FAIL %s %s\n", r.File, r.Name)
	}
	for _, f := range r.Failures {
		msg := strings.ReplaceAll(f.Message, "\n", "\n    ")
		fmt.Fprintf(e.stdout, "    %s: %s\n", f.Pos, msg)
	}
}

func formatMS(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1fms", ms)
	}
	return fmt.Sprintf("%.0fms", ms)
}

// findTestFiles returns the test files paths name, sorted: files as they
// are (a pipeline x.lua stands for x_test.lua beside it), directories
// searched recursively, skipping hidden ones.
func findTestFiles(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			switch {
			case strings.HasSuffix(p, "_test.lua"):
				add(p)
			case strings.HasSuffix(p, ".lua"):
				t := strings.TrimSuffix(p, ".lua") + "_test.lua"
				if _, err := os.Stat(t); err != nil {
					return nil, fmt.Errorf("%s has no test file %s", p, t)
				}
				add(t)
			default:
				return nil, fmt.Errorf("%s: not a test file (*_test.lua), a pipeline (.lua) or a directory", p)
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), "_test.lua") {
				add(path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// loadedPipeline is a pipeline under test, loaded once for all its cases.
type loadedPipeline struct {
	script   *script.Script
	registry *component.Registry
	err      error
}

// loadForTest loads and checks the pipeline at path: a pipeline that
// does not pass flowlua check fails every case.
func loadForTest(e *env, path string, pf pluginFlags) *loadedPipeline {
	svcs, err := testServices()
	if err != nil {
		return &loadedPipeline{err: err}
	}
	defs := make([]service.Definition, len(svcs))
	for i, s := range svcs {
		defs[i] = s.Definition()
	}
	s, reg, err := scriptload.Load(path, scriptload.Options{Registry: component.DefaultRegistry, Services: serviceNames(defs), PluginPaths: pf.PluginsPath, Prelude: integrations.Sources(),
		Native: e.nativePlugins(pf, nil, nil).Loader(), NativeDirs: besideExecutable(), Translate: convert.Translator{}})
	if s == nil || reg == nil || err != nil {
		if err == nil {
			err = errors.New("the pipeline did not load")
		}
		return &loadedPipeline{err: err}
	}
	loader := &engine.Loader{Registry: reg, Services: defs}
	if _, diags := loader.Build(s); len(diags) > 0 {
		return &loadedPipeline{err: diags}
	}
	return &loadedPipeline{script: s, registry: reg}
}

// testServices returns the services of one test graph: the built-ins
// with their defaults, the HTTP service on a free port.
func testServices() ([]service.Service, error) {
	return services.NewAll(services.Options{
		Logger:         slog.New(slog.DiscardHandler),
		HTTPListenAddr: "127.0.0.1:0",
		StoragePath:    os.TempDir(),
		Ready:          func() error { return nil },
		Reload:         func() error { return errors.New("no reload in tests") },
		Fatal:          func(error) {},
	})
}
