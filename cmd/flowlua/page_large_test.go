package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
)

// pagePipeline is a pipeline of n components, as a production gateway's:
// n = 3 is receiver → batch → OTLP exporter; larger pipelines have an
// OTLP receiver fanning traces out to module instances of five
// processors per region, a Lua redaction, a final batch and an OTLP
// exporter (on SINK), with debug exporters to make up n. The receiver
// listens on GRPC.
func pagePipeline(n int) string {
	exporter := `otelcol.exporter.otlp "upstream" {
  endpoint = env("SINK"), tls = { insecure = true }, timeout = "1s",
  retry_on_failure = { initial_interval = "50ms", max_interval = "200ms" },
}
`
	if n == 3 {
		return `otelcol.receiver.otlp "in" {
  protocols = { grpc = { endpoint = env("GRPC") } },
  output = { traces = { otelcol.processor.batch.default.input } },
}
otelcol.processor.batch "default" { timeout = "100ms", output = { traces = { otelcol.exporter.otlp.upstream.input } } }
` + exporter
	}
	regions := []string{"eu_west_1", "us_east_2", "ap_southeast_1", "eu_central_1", "us_west_2", "sa_east_1",
		"ca_central_1", "ap_northeast_3", "me_south_1", "af_south_1", "eu_north_1", "us_gov_west_1"}[:(n-4)/5]
	var b strings.Builder
	b.WriteString(`livedebugging { enabled = true }
module "region" {
  args = { name = "string", output = "output" },
  exports = { input = "consumer" },
  body = function(args)
    otelcol.processor.memory_limiter "guard" {
      check_interval = "1s", limit_percentage = 80,
      output = { traces = { otelcol.processor.attributes.tag.input } },
    }
    otelcol.processor.attributes "tag" {
      actions = { { key = "region", value = args.name, action = "upsert" } },
      output = { traces = { otelcol.processor.attributes.scrub.input } },
    }
    otelcol.processor.attributes "scrub" {
      actions = { { key = "user.email", action = "delete" } },
      output = { traces = { otelcol.processor.filter.drop_health.input } },
    }
    otelcol.processor.filter "drop_health" {
      error_mode = "ignore",
      traces = { span = { 'attributes["http.route"] == "/healthz"' } },
      output = { traces = { otelcol.processor.batch.default.input } },
    }
    otelcol.processor.batch "default" { timeout = "100ms", output = args.output }
    return { input = otelcol.processor.memory_limiter.guard.input }
  end,
}
`)
	var inputs []string
	for _, r := range regions {
		inputs = append(inputs, "region."+r+".input")
	}
	fmt.Fprintf(&b, `otelcol.receiver.otlp "ingest" {
  protocols = { grpc = { endpoint = env("GRPC") } },
  output = { traces = { %s }, logs = { lua.redact.pii.input } },
}
`, strings.Join(inputs, ", "))
	for _, r := range regions {
		fmt.Fprintf(&b, "region %q { name = %q, output = { traces = { lua.redact.pii.input } } }\n", r, r)
	}
	outs := []string{"otelcol.processor.batch.final.input"}
	var audits []string
	for i := range (n - 4) % 5 {
		audits = append(audits, fmt.Sprintf("audit_%d", i))
		outs = append(outs, fmt.Sprintf("otelcol.exporter.debug.audit_%d.input", i))
	}
	fmt.Fprintf(&b, `lua.redact "pii" {
  keys = { "user.email", "http.request.header.authorization" },
  action = "hash",
  output = { traces = { %[1]s }, logs = { %[1]s } },
}
otelcol.processor.batch "final" {
  timeout = "100ms",
  output = { traces = { otelcol.exporter.otlp.upstream.input }, logs = { otelcol.exporter.otlp.upstream.input } },
}
`, strings.Join(outs, ", "))
	b.WriteString(exporter)
	for _, a := range audits {
		fmt.Fprintf(&b, "otelcol.exporter.debug %q { verbosity = \"basic\" }\n", a)
	}
	return b.String()
}

// pageSession is flowlua running a script, and a headless chromium.
type pageSession struct {
	t    *testing.T
	ctx  context.Context
	base string // the page's URL
	grpc string // the receiver's address
	sink string // the exporter's endpoint
	dir  string

	mu      sync.Mutex
	console []string // errors the page logged
}

// startPage runs script with GRPC and SINK set to free ports (nothing
// listens on SINK) and opens a browser of width×height.
func startPage(t *testing.T, script string, width, height int) *pageSession {
	return startPageFile(t, "main.lua", []byte(script), nil, width, height)
}

// startPageFile is startPage for a pipeline file of any name (a script or
// a collector config), with the environment env returns (called once the
// session's ports and directory are chosen) added to GRPC and SINK.
func startPageFile(t *testing.T, name string, content []byte, env func(*pageSession) []string, width, height int) *pageSession {
	chromium := chromiumPath(t)
	bin, err := exec.LookPath("flowlua") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	p := &pageSession{t: t, dir: t.TempDir()}
	var httpAddr string
	for _, a := range []*string{&httpAddr, &p.grpc, &p.sink} {
		if *a, err = freePort(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(p.dir, name), content, 0o644); err != nil {
		t.Fatal(err)
	}
	vars := []string{"FLOWLUA_HTTP_LISTEN_ADDR=" + httpAddr, "FLOWLUA_STORAGE_PATH=" + filepath.Join(p.dir, "data"), "GRPC=" + p.grpc, "SINK=" + p.sink}
	if env != nil {
		vars = append(vars, env(p)...)
	}
	runPipeline(t, bin, p.dir, name, vars...)
	p.base = "http://" + httpAddr
	waitFor(t, 30*time.Second, "flowlua ready", func() bool {
		resp, err := http.Get(p.base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(p.dir, "chromium")),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(cancelCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelTimeout)
	p.ctx = ctx
	p.run("start the browser")
	if err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				for _, a := range ev.Args {
					msg += string(a.Value) + a.Description + " "
				}
			}
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		}
		if msg != "" {
			p.mu.Lock()
			p.console = append(p.console, msg)
			p.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.console) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(p.console, "\n"))
		}
	})
	return p
}

func (p *pageSession) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// js polls a JavaScript boolean expression until it holds.
func (p *pageSession) js(what, expr string, within time.Duration) {
	p.t.Helper()
	var last error
	deadline := time.Now().Add(within)
	for {
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		last = err
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: not within %s (last error: %v)", what, within, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eval returns the string a JavaScript expression evaluates to.
func (p *pageSession) eval(expr string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr, chromedp.EvalAsValue))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// send sends a span and a log record to the receiver every 100 ms until
// the returned function is called.
func (p *pageSession) send() (stop func()) {
	span := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"page","kind":2,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000"}]}]}]}`
	log := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1544712660000000000","body":{"stringValue":"page"}}]}]}]}`
	return p.sendEvery(map[string][]byte{"traces": []byte(span), "logs": []byte(log)})
}

// sendEvery sends each signal's OTLP JSON request to the receiver every
// 100 ms until the returned function is called.
func (p *pageSession) sendEvery(requests map[string][]byte) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
				for signal, body := range requests {
					_ = sendGRPC(signal, body, p.grpc)
				}
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// startSink serves OTLP/gRPC on the session's SINK address until the test
// ends.
func (p *pageSession) startSink() *sink {
	l, err := net.Listen("tcp", p.sink)
	if err != nil {
		p.t.Fatal(err)
	}
	s := &sink{server: grpc.NewServer()}
	ptraceotlp.RegisterGRPCServer(s.server, &traceSink{s: s})
	pmetricotlp.RegisterGRPCServer(s.server, &metricSink{s: s})
	plogotlp.RegisterGRPCServer(s.server, &logSink{s: s})
	go func() { _ = s.server.Serve(l) }()
	p.t.Cleanup(s.server.Stop)
	return s
}

// overlapsJS returns, as text, every pair of the graph's elements that
// overlap (nodes, collapsed modules, module titles, edge labels), and
// every node text that leaves its node; "" when there is none.
const overlapsJS = `(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return { l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width }; };
  const name = (e) => (e.closest('[data-id]') || e).dataset.id + ' ' + e.getAttribute('class');
  const over = (a, b) => a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5;
  const items = [];
  for (const g of document.querySelectorAll('#graph .node, #graph .group.collapsed')) items.push({ e: g.querySelector('rect'), what: name(g) });
  for (const t of document.querySelectorAll('#graph .edge-label, #graph .group-title')) if (t.textContent) items.push({ e: t, what: name(t) + ' "' + t.textContent + '"' });
  const out = [];
  const boxes = items.map(i => box(i.e));
  for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) {
    if (over(boxes[i], boxes[j])) out.push(items[i].what + ' overlaps ' + items[j].what);
  }
  for (const g of document.querySelectorAll('#graph .node, #graph .group.collapsed')) {
    const r = box(g.querySelector('rect'));
    for (const t of g.querySelectorAll('text')) {
      const b = box(t);
      if (b.w > 0 && (b.l < r.l - 0.5 || b.r > r.r + 0.5 || b.t < r.t - 0.5 || b.b > r.b + 0.5)) out.push(name(g) + ' text "' + t.textContent + '" leaves its node');
    }
  }
  for (const f of document.querySelectorAll('#graph .group:not(.collapsed)')) {
    const r = box(f.querySelector('.frame')), t = box(f.querySelector('.group-title'));
    if (t.r > r.r + 0.5) out.push(f.dataset.id + ' title leaves its box');
  }
  return out.slice(0, 20).join('\n');
})()`

// TestPageLargePipeline drives the page of a 50-component pipeline in a
// headless chromium: the component list is the default view, sorts and
// filters; every id is found by the search, in the list and in the
// graph; nothing in the graph overlaps anything else and the page does
// not scroll sideways; zoom and pan change the view; an exporter whose
// sink is down turns red with its reason within 10 s, on its node and in
// the list, and green once the sink is up.
func TestPageLargePipeline(t *testing.T) {
	p := startPage(t, pagePipeline(50), 1400, 1000)
	p.run("open the page", chromedp.Navigate(p.base+"/"))
	p.js("the list is the default view of 50 components", `document.body.dataset.view === 'list' && document.querySelectorAll('#list tbody tr[data-id]:not(.module)').length === 50`, 15*time.Second)
	ids := strings.Split(p.eval(`[...document.querySelectorAll('#list tbody tr:not(.module)')].map(r => r.dataset.id).join(' ')`), " ")
	if len(ids) != 50 {
		t.Fatalf("%d ids in the list", len(ids))
	}
	kinds := p.eval(`[...new Set([...document.querySelectorAll('#list tbody tr')].map(r => r.cells[1].textContent))].sort().join(',')`)
	if kinds != "Lua plugin,built-in,module" {
		t.Errorf("kinds in the list: %q", kinds)
	}

	// Sorting: by id, then reversed; by health, unhealthy first.
	p.run("sort by id", chromedp.Click(`#list th[data-sort="id"]`))
	p.js("sorted by id, descending", `(() => { const r = [...document.querySelectorAll('#list tbody tr')].map(r => r.dataset.id);
		return r.length > 50 && r.every((id, i) => i === 0 || r[i-1] >= id); })()`, 2*time.Second)
	p.run("sort by id again", chromedp.Click(`#list th[data-sort="id"]`))
	p.js("sorted by id, ascending", `(() => { const r = [...document.querySelectorAll('#list tbody tr')].map(r => r.dataset.id);
		return r.every((id, i) => i === 0 || r[i-1] <= id); })()`, 2*time.Second)

	// Every id is found by the search: in the list, and in the graph.
	for _, id := range ids {
		p.js("search lists "+id, fmt.Sprintf(`(() => { const s = document.getElementById('search'); s.value = %q; s.dispatchEvent(new Event('input'));
			const rows = [...document.querySelectorAll('#list tbody tr')]; return rows.length >= 1 && rows.some(r => r.dataset.id === %[1]q); })()`, id), 2*time.Second)
	}
	p.eval(`(document.getElementById('search').value = '', '')`)
	p.run("type an id and Enter", chromedp.SendKeys("#search", ids[7]+"\r"))
	p.js("Enter shows the graph", `document.body.dataset.view === 'graph' && document.querySelectorAll('#graph .node').length === 50`, 20*time.Second)
	visible := func(id string) string {
		return fmt.Sprintf(`(() => { const n = document.querySelector('#graph .node[data-id=%q]'); if (!n || !n.classList.contains('found')) return false;
			const a = n.querySelector('rect').getBoundingClientRect(), b = document.getElementById('graph').getBoundingClientRect();
			return a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom; })()`, id)
	}
	p.js("the typed id is shown", visible(ids[7]), 5*time.Second)
	for _, id := range ids {
		p.run("find "+id, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById('search'); s.value = %q;
			s.dispatchEvent(new Event('input')); s.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' })); })()`, id)))
		p.js("the graph shows "+id, visible(id), 5*time.Second)
	}

	// Nothing overlaps, at the size fit gives and at full size.
	p.run("fit", chromedp.Click("#zoom-fit"))
	if o := p.eval(overlapsJS); o != "" {
		t.Errorf("overlaps after fit:\n%s", o)
	}
	// (what is checked is there: a label on every data edge, a title on
	// every module box)
	if n := p.eval(`[...document.querySelectorAll('#graph .edge.data')].filter(e => !/^(traces|logs)/.test(e.textContent)).length + ' ' +
		document.querySelectorAll('#graph .edge.data').length + ' ' + document.querySelectorAll('#graph .group-title').length`); n != "0 61 9" {
		t.Errorf("data edges without a label, data edges, module titles: %s, want 0 61 9", n)
	}
	if w := p.eval(`document.documentElement.scrollWidth + ' ' + document.documentElement.clientWidth`); w != "1400 1400" {
		t.Errorf("the page scrolls sideways: its scroll width and width are %s", w)
	}

	// Zoom: the buttons and the wheel change the view's transform, fit
	// brings the whole graph back.
	transform := `document.getElementById('viewport').getAttribute('transform')`
	fitted := p.eval(transform)
	p.run("zoom in", chromedp.Click("#zoom-in"))
	p.js("zoomed in", transform+` !== `+fmt.Sprintf("%q", fitted), 2*time.Second)
	scale := `parseFloat(/scale\(([0-9.]+)\)/.exec(` + transform + `)[1])`
	before := p.eval(`String(` + scale + `)`)
	p.run("wheel", chromedp.Evaluate[chromedp.Void](`document.getElementById('graph').dispatchEvent(new WheelEvent('wheel', { deltaY: -300, clientX: 500, clientY: 400, bubbles: true, cancelable: true }))`))
	p.js("the wheel zooms in", scale+` > `+before, 2*time.Second)
	if o := p.eval(overlapsJS); o != "" {
		t.Errorf("overlaps zoomed in:\n%s", o)
	}
	p.run("fit", chromedp.Click("#zoom-fit"))
	p.js("fit restores the view", transform+` === `+fmt.Sprintf("%q", fitted), 2*time.Second)

	// The sink is down: the exporter turns red, with why, within 10 s.
	stop := p.send()
	defer stop()
	exporter := `document.querySelector('#graph .node[data-id="otelcol.exporter.otlp.upstream"]')`
	p.js("the exporter turns red with its reason", exporter+`.dataset.health === 'unhealthy' && `+exporter+`.querySelector('rect').getAttribute('fill') === '#c62828' && `+
		exporter+`.querySelector('.msg').textContent.startsWith('unhealthy: sending failed')`, 10*time.Second)
	if o := p.eval(overlapsJS); o != "" {
		t.Errorf("overlaps with an unhealthy node:\n%s", o)
	}
	p.run("the list", chromedp.Click("#tab-list"))
	row := `document.querySelector('#list tr[data-id="otelcol.exporter.otlp.upstream"]')`
	p.js("the list says why", `(document.getElementById('search').value = '', document.getElementById('search').dispatchEvent(new Event('input')), true) && `+
		row+`.dataset.health === 'unhealthy' && /sending failed: .*connection refused/.test(`+row+`.querySelector('.health-message').textContent)`, 5*time.Second)
	p.js("the header counts it", `/not healthy/.test(document.getElementById('summary').textContent)`, 2*time.Second)

	// The sink is up: the exporter turns green again.
	p.run("the graph", chromedp.Click("#tab-graph"))
	p.startSink()
	p.js("the exporter turns green", exporter+`.dataset.health === 'healthy' && `+exporter+`.querySelector('rect').getAttribute('fill') === '#2e7d32'`, 15*time.Second)
	p.js("rates show on the edges", `[...document.querySelectorAll('#graph .edge-label')].some(t => /^traces [0-9.]+\/s$/.test(t.textContent) && !/ 0\.00\/s$/.test(t.textContent))`, 10*time.Second)
}
