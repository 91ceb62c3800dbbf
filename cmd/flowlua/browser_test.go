package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath returns Debian's chromium, or skips the test when it is
// absent outside CI (in CI, .ci/run installs it and the test must run).
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "" {
		t.Skip("chromium is not installed (apt-get install chromium); CI installs it")
	}
	t.Fatal("chromium is not installed, and CI is set: .ci/run should have installed it")
	return ""
}

const browserScript = `livedebugging { enabled = true }
otelcol.receiver.otlp "in" {
  protocols = { grpc = { endpoint = env("GRPC") } },
  output = { traces = { otelcol.processor.batch.b.input } },
}
otelcol.processor.batch "b" {
  timeout = "10ms",
  output = { traces = { otelcol.exporter.debug.out.input } },
}
otelcol.exporter.debug "out" { }
testing.health "h" { healthy = %s, message = %q }
%s
`

// browserModules is a module instance (OTLP in, on GRPC2) holding a nested
// one (a batch processor), sending to the exporter spare.
const browserModules = `module "stage" {
  args = { output = "output" },
  exports = { input = "consumer" },
  body = function(args)
    otelcol.processor.batch "b" { timeout = "10ms", output = args.output }
    return { input = otelcol.processor.batch.b.input }
  end,
}
module "gw" {
  args = { endpoint = "string", output = "output" },
  body = function(args)
    otelcol.receiver.otlp "in" {
      protocols = { grpc = { endpoint = args.endpoint } },
      output = { traces = { stage.s.input } },
    }
    stage "s" { output = args.output }
  end,
}
gw "eu" { endpoint = env("GRPC2"), output = { traces = { otelcol.exporter.debug.spare.input } } }
otelcol.exporter.debug "spare" { }`

// TestPageInBrowser drives the web page in a headless chromium against
// the real command (flowlua run): the graph shows every component, a
// component turning unhealthy turns red, a span sent in shows in live
// debugging, an edit of the script adds and removes nodes, and a module
// instance is a box that collapses to one node and expands again, all
// without a reload of the page and without console errors.
func TestPageInBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	bin, err := exec.LookPath("flowlua") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shots := os.Getenv("FLOWLUA_TEST_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(dir, "screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	httpAddr, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	grpcAddr, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	grpcAddr2, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "main.lua")
	writeScript := func(healthy bool, msg, extra string) {
		t.Helper()
		tmp := script + ".tmp"
		if err := os.WriteFile(tmp, fmt.Appendf(nil, browserScript, fmt.Sprint(healthy), msg, extra), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, script); err != nil {
			t.Fatal(err)
		}
	}
	writeScript(true, "fine", "")

	runPipeline(t, bin, dir, "main.lua", "FLOWLUA_HTTP_LISTEN_ADDR="+httpAddr, "FLOWLUA_STORAGE_PATH="+filepath.Join(dir, "data"), "GRPC="+grpcAddr, "GRPC2="+grpcAddr2)
	base := "http://" + httpAddr
	waitFor(t, 30*time.Second, "flowlua ready", func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")),
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelTimeout()

	var consoleMu sync.Mutex
	var consoleErrors []string
	listen := func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				msg = "console.error: " + strings.Join(parts, " ")
			}
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				msg = "log: " + ev.Entry.Text + " " + ev.Entry.URL
			}
		}
		if msg != "" {
			consoleMu.Lock()
			consoleErrors = append(consoleErrors, msg)
			consoleMu.Unlock()
		}
	}
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	screenshot := func(name string) {
		t.Helper()
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		p := filepath.Join(shots, name+".png")
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
	// js polls a JavaScript boolean expression until it holds.
	js := func(what, expr string, within time.Duration) {
		t.Helper()
		waitFor(t, within, what, func() bool {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
			return err == nil && ok
		})
	}
	node := func(id string) string {
		return fmt.Sprintf(`document.querySelector('#graph .node[data-id="%s"]')`, id)
	}

	run("start the browser")
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatal(err)
	}
	run("open the page", chromedp.Navigate(base+"/"))
	ids := []string{"otelcol.receiver.otlp.in", "otelcol.processor.batch.b", "otelcol.exporter.debug.out", "testing.health.h"}
	for _, id := range ids {
		js("node "+id, node(id)+" !== null", 10*time.Second)
	}
	js("data edges labelled by signal", `document.querySelectorAll('#graph .edge.data[data-signal="traces"]').length === 2`, 10*time.Second)
	js("receivers left of exporters", fmt.Sprintf(`%s.querySelector('rect').x.baseVal.value < %s.querySelector('rect').x.baseVal.value`,
		node("otelcol.receiver.otlp.in"), node("otelcol.exporter.debug.out")), 5*time.Second)
	js("last load shown", `document.getElementById('load').textContent.startsWith('loaded at')`, 5*time.Second)
	screenshot("graph")

	// A component turning unhealthy turns its node red within 2 s.
	writeScript(false, "disk full", "")
	waitFor(t, 30*time.Second, "testing.health.h unhealthy in the API", func() bool {
		return strings.Contains(get(t, base+"/api/v0/components/testing.health.h"), `"state": "unhealthy"`)
	})
	js("node turns red", node("testing.health.h")+`.querySelector('rect').getAttribute('fill') === '#c62828'`, 2*time.Second)
	screenshot("graph-unhealthy")

	// An edit adds a component and removes one, without a reload of the page.
	js("mark the page", `(window.notReloaded = true)`, time.Second)
	writeScript(false, "disk full", `testing.health "added" { healthy = true, message = "new" }`)
	js("added node appears", node("testing.health.added")+" !== null", 30*time.Second)
	writeScript(false, "disk full", `testing.health "added" { healthy = true, message = "new" }
otelcol.exporter.debug "spare" { }`)
	js("second added node appears", node("otelcol.exporter.debug.spare")+" !== null", 30*time.Second)
	writeScript(true, "fine", `otelcol.exporter.debug "spare" { }`)
	js("removed node disappears", node("testing.health.added")+" === null", 30*time.Second)
	js("page not reloaded", `window.notReloaded === true`, time.Second)
	screenshot("graph-after-edit")

	// Live debugging: the receiver's page shows a span sent in.
	run("open the receiver's page", chromedp.Navigate(base+"/component/otelcol.receiver.otlp.in"))
	js("stream connected", `document.getElementById('stream-state').textContent.startsWith('watching')`, 10*time.Second)
	span := fmt.Sprintf(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"browser-span-%d","kind":2,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000"}]}]}]}`, time.Now().UnixNano())
	name := span[strings.Index(span, "browser-span-"):]
	name = name[:strings.Index(name, `"`)]
	waitFor(t, 30*time.Second, "span in live debugging", func() bool {
		if err := sendGRPC("traces", []byte(span), grpcAddr); err != nil {
			t.Logf("sending: %v", err)
			return false
		}
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('stream').textContent`))
		return strings.Contains(text, name)
	})
	// Pause stops new samples; the filter hides what does not match.
	run("pause", chromedp.Click("#pause"))
	js("paused", `document.getElementById('stream-state').textContent === 'paused'`, 2*time.Second)
	run("filter", chromedp.SendKeys("#filter", "no-such-text"))
	js("filter hides samples", `[...document.querySelectorAll('#stream .sample')].every(d => d.style.display === 'none')`, 2*time.Second)
	js("clear filter", `(document.getElementById('filter').value = '', document.getElementById('filter').dispatchEvent(new Event('input')))`, time.Second)
	js("filter cleared", `[...document.querySelectorAll('#stream .sample')].some(d => d.style.display === '')`, 2*time.Second)
	screenshot("live-debugging")

	// Back on the graph, with data flowing, the edges show their rates.
	stop := make(chan struct{})
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				_ = sendGRPC("traces", []byte(span), grpcAddr)
			}
		}
	}()
	run("open the graph", chromedp.Navigate(base+"/"))
	js("edges show a rate", `[...document.querySelectorAll('#graph .edge.data text')].length === 2 &&
		[...document.querySelectorAll('#graph .edge.data text')].every(t => /^traces [0-9.]+\/s$/.test(t.textContent) && !/ 0\.00\/s$/.test(t.textContent))`, 20*time.Second)
	screenshot("graph-rates")
	close(stop)
	<-sent

	// A module instance is a box around its components, a nested instance
	// a box in it; collapsed, it is one node that edges attach to (with
	// their rates), and it stays collapsed across refreshes.
	js("mark the page again", `(window.notReloaded = true)`, time.Second)
	writeScript(true, "fine", browserModules)
	group := func(id string) string {
		return fmt.Sprintf(`document.querySelector('#graph .group[data-id="%s"]')`, id)
	}
	inside := func(inner, outer string) string {
		return fmt.Sprintf(`(() => { const a = %s.querySelector('rect').getBBox(), b = %s.querySelector('rect').getBBox();
			return a.x > b.x && a.y > b.y && a.x + a.width < b.x + b.width && a.y + a.height < b.y + b.height; })()`, inner, outer)
	}
	js("module instance drawn as a box", group("gw.eu")+` !== null && `+group("gw.eu")+`.dataset.collapsed === 'false'`, 30*time.Second)
	js("nested instance drawn as a box", group("gw.eu.stage.s")+` !== null`, 5*time.Second)
	js("the box holds its components and the nested box", inside(node("gw.eu.otelcol.receiver.otlp.in"), group("gw.eu"))+" && "+
		inside(group("gw.eu.stage.s"), group("gw.eu"))+" && "+inside(node("gw.eu.stage.s.otelcol.processor.batch.b"), group("gw.eu.stage.s")), 5*time.Second)
	js("the nested box is titled relative to its parent", group("gw.eu.stage.s")+`.querySelector('.group-head text').textContent === '▾ stage.s'`, 5*time.Second)
	screenshot("graph-module")

	stop = make(chan struct{})
	sent = make(chan struct{})
	go func() {
		defer close(sent)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				_ = sendGRPC("traces", []byte(span), grpcAddr2)
			}
		}
	}()
	run("collapse the instance", chromedp.Click(`#graph .group[data-id="gw.eu"] .group-head`))
	js("collapsed to one node", group("gw.eu")+`.dataset.collapsed === 'true' && `+node("gw.eu.otelcol.receiver.otlp.in")+` === null && `+group("gw.eu.stage.s")+` === null`, 2*time.Second)
	edge := `document.querySelector('#graph .edge.data[data-from="module:gw.eu"][data-to="otelcol.exporter.debug.spare"]')`
	js("the edge leaves the collapsed node with its rate", edge+` !== null && /^traces [0-9.]+\/s$/.test(`+edge+`.textContent) && !/ 0\.00\/s$/.test(`+edge+`.textContent)`, 20*time.Second)
	js("no edge inside the collapsed node", `document.querySelectorAll('#graph .edge[data-to^="gw.eu."]').length === 0`, time.Second)
	js("remember the refresh", `(window.refreshed = document.getElementById('graph').dataset.updated) !== ''`, time.Second)
	js("refreshed twice", `document.getElementById('graph').dataset.updated !== window.refreshed`, 5*time.Second)
	js("still collapsed after the refresh", group("gw.eu")+`.dataset.collapsed === 'true'`, time.Second)
	screenshot("graph-module-collapsed")
	close(stop)
	<-sent

	run("expand the instance", chromedp.Click(`#graph .group.collapsed[data-id="gw.eu"]`))
	js("expanded again", group("gw.eu")+`.dataset.collapsed === 'false' && `+node("gw.eu.otelcol.receiver.otlp.in")+` !== null`, 2*time.Second)
	run("collapse the nested instance", chromedp.Click(`#graph .group[data-id="gw.eu.stage.s"] .group-head`))
	js("only the nested instance collapses", group("gw.eu.stage.s")+`.dataset.collapsed === 'true' && `+group("gw.eu")+`.dataset.collapsed === 'false' && `+
		inside(group("gw.eu.stage.s"), group("gw.eu")), 2*time.Second)
	js("page not reloaded", `window.notReloaded === true`, time.Second)

	consoleMu.Lock()
	defer consoleMu.Unlock()
	if len(consoleErrors) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(consoleErrors, "\n"))
	}
}

func get(t *testing.T, url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// runPipeline runs `flowlua run FILE` in dir, with env added to the
// environment, until the test ends: its cleanup stops flowlua with SIGINT
// (SIGKILL after 20 s) and logs flowlua's output if the test failed.
func runPipeline(t *testing.T, bin, dir, file string, env ...string) {
	t.Helper()
	cmd := exec.Command(bin, "run", file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &syncWriter{w: &logs}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("flowlua's log:\n%s", logs.String())
		}
	})
}
