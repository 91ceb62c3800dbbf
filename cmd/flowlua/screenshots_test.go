package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// screenshotCSS stills the page for a screenshot: no caret, no
// transitions or animations.
const screenshotCSS = `(() => { const s = document.createElement('style');
  s.textContent = '*, *::before, *::after { caret-color: transparent !important; transition: none !important; animation: none !important; }';
  document.head.appendChild(s); document.activeElement && document.activeElement.blur(); return true; })()`

// TestScreenshots writes the page's screenshots of docs/ (make
// screenshots) to the directory FLOWLUA_SCREENSHOTS names: the graph of
// the quick start (3 components), of docs/page-18.yaml (a production
// collector config, run as it is: 18 components) and of the 50-component
// gateway of TestPageLargePipeline, and that gateway's component list;
// each with data flowing, its exporter's sink up, in a 1400×900 window.
// Without FLOWLUA_SCREENSHOTS it is skipped.
func TestScreenshots(t *testing.T) {
	out := os.Getenv("FLOWLUA_SCREENSHOTS")
	if out == "" {
		t.Skip("FLOWLUA_SCREENSHOTS=DIR writes the page's screenshots to DIR (make screenshots)")
	}
	out, err := filepath.Abs(out)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		name     string
		file     string
		content  []byte
		env      func(*pageSession) []string
		signals  []string // what the receiver takes
		receiver string
		n        int
		list     bool // also the component list
	}{
		{name: "page-3", file: "main.lua", content: read("examples/quickstart.lua"), signals: []string{"traces", "metrics", "logs"},
			receiver: "otelcol.receiver.otlp.default", n: 3,
			env: func(p *pageSession) []string {
				h, err := freePort()
				if err != nil {
					t.Fatal(err)
				}
				return []string{"OTLP_GRPC_ENDPOINT=" + p.grpc, "OTLP_HTTP_ENDPOINT=" + h}
			}},
		{name: "page-18", file: "page-18.yaml", content: read("docs/page-18.yaml"), signals: []string{"traces", "metrics", "logs"},
			receiver: "otelcol.receiver.otlp.default", n: 18,
			env: func(p *pageSession) []string {
				logs := filepath.Join(p.dir, "logs")
				if err := os.MkdirAll(logs, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(logs, "app.log"), []byte("level=info msg=\"checkout started\"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{"LOGS=" + logs}
			}},
		{name: "page-50", file: "main.lua", content: []byte(pagePipeline(50)), signals: []string{"traces", "logs"},
			receiver: "otelcol.receiver.otlp.ingest", n: 50, list: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startPageFile(t, c.file, c.content, c.env, 1400, 900)
			p.startSink()
			stop := p.sendExamples(c.signals, read)
			defer stop()
			p.run("open the graph", chromedp.Navigate(p.base+"/#graph"))
			p.js(fmt.Sprintf("%d nodes", c.n), fmt.Sprintf(`document.querySelectorAll('#graph .node').length === %d`, c.n), 20*time.Second)
			p.js("every component healthy", `/all healthy/.test(document.getElementById('summary').textContent)`, 20*time.Second)
			// The receiver's edges show their rates, and the layout is done:
			// fit, then two refreshes with the same transform.
			p.js("the receiver's edges show rates", fmt.Sprintf(`(() => { const e = [...document.querySelectorAll('#graph .edge.data[data-from="%s"]')];
				return e.length > 0 && e.every(x => /[0-9.]+\/s$/.test(x.textContent) && !/ 0\.00\/s$/.test(x.textContent)); })()`, c.receiver), 20*time.Second)
			p.run("fit", chromedp.Click("#zoom-fit"))
			p.js("still", screenshotCSS, time.Second)
			settled(p)
			shoot(t, p, filepath.Join(out, c.name+".png"))
			if !c.list {
				return
			}
			p.run("the list", chromedp.Click("#tab-list"))
			p.js("the list shows rates", fmt.Sprintf(`(() => { const r = document.querySelector('#list tr[data-id="%s"]');
				return r !== null && /[1-9]/.test(r.cells[4].textContent); })()`, c.receiver), 10*time.Second)
			p.js("still, at the top", `(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)`, time.Second)
			settled(p)
			shoot(t, p, filepath.Join(out, c.name+"-list.png"))
		})
	}
}

// settled waits for two refreshes of the page in which the graph's view
// did not move.
func settled(p *pageSession) {
	p.t.Helper()
	state := `document.getElementById('graph').dataset.updated + ' ' + document.getElementById('viewport').getAttribute('transform')`
	for prev, same := "", 0; same < 2; {
		p.js("a refresh", fmt.Sprintf(`document.getElementById('graph').dataset.updated !== %q`, strings.SplitN(prev, " ", 2)[0]), 5*time.Second)
		cur := p.eval(state)
		if prev != "" && strings.SplitN(cur, " ", 2)[1] == strings.SplitN(prev, " ", 2)[1] {
			same++
		} else {
			same = 0
		}
		prev = cur
	}
}

// shoot writes the window's screenshot to path.
func shoot(t *testing.T, p *pageSession, path string) {
	t.Helper()
	buf, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d KB", path, len(buf)/1024)
}

// sendExamples sends the OTLP examples of testdata/otlp for each signal
// to the receiver every 100 ms until the returned function is called.
func (p *pageSession) sendExamples(signals []string, read func(string) []byte) (stop func()) {
	files := map[string]string{"traces": "trace.json", "metrics": "metrics.json", "logs": "logs.json"}
	requests := map[string][]byte{}
	for _, s := range signals {
		requests[s] = read(filepath.Join("testdata", "otlp", files[s]))
	}
	return p.sendEvery(requests)
}
