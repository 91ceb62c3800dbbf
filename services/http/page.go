package http

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// The web page: server-rendered HTML with a little JavaScript that polls
// /api/v0/graph and /api/v0/components/{id} and reads live debugging's
// stream, all built into the binary. The graph's page is a static file;
// a component's page is written by writeComponentPage (pagehtml.go).
// There is no html/template: the template engine looks fields and methods
// up by name, which stops the linker from dropping any exported method of
// the whole program, and costs the smaller builds megabytes of resident
// executable (bench/HISTORY.md, "Round sixteen").

//go:embed web
var webFS embed.FS

// serveIndex answers GET /: the graph.
func (s *Service) serveIndex(w http.ResponseWriter, r *http.Request) {
	index, err := webFS.ReadFile("web/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeHTML(w, http.StatusOK, index)
}

// componentPage is what a component's page shows.
type componentPage struct {
	C    componentJSON
	Name string
	// Refs are the strings of C's values that stand for another
	// component's export (apiView.references).
	Refs          map[string]bool
	Sends         []sendRow
	Routes        string // the prefix of its routes, "" when it has none
	Metrics       []string
	LiveDebugging bool
	HasOutput     bool
}

type sendRow struct {
	Signal, To string
	Items      uint64
}

// serveComponentPage answers GET /component/{id}.
func (s *Service) serveComponentPage(w http.ResponseWriter, r *http.Request) {
	host := s.currentHost()
	if host == nil {
		http.Error(w, "not running yet", http.StatusServiceUnavailable)
		return
	}
	id := r.PathValue("id")
	infos := host.ListComponents()
	for _, info := range infos {
		if info.ID != id {
			continue
		}
		view := newAPIView(host, infos)
		p := componentPage{C: view.component(info), Name: info.Name, Refs: view.references()}
		for _, send := range info.Sends {
			p.Sends = append(p.Sends, sendRow{send.Signal, send.To, send.Items})
		}
		p.HasOutput = len(info.Sends) > 0
		if s.routes.lookup(id, host) != nil {
			p.Routes = ComponentPrefix(id)
		}
		p.Metrics = s.componentMetrics(id)
		d := s.liveDebugger()
		p.LiveDebugging = d != nil && d.Enabled()
		writeHTML(w, http.StatusOK, writeComponentPage(p))
		return
	}
	writeHTML(w, http.StatusNotFound, writeMissingPage(id))
}

// writeHTML answers with a page.
func writeHTML(w http.ResponseWriter, code int, page []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(page)
}

// serveStatic serves the page's scripts and style.
func (s *Service) serveStatic(w http.ResponseWriter, r *http.Request) {
	sub, _ := fs.Sub(webFS, "web")
	http.StripPrefix("/static/", http.FileServerFS(sub)).ServeHTTP(w, r)
}

// componentMetrics returns the series of the process's metrics labelled
// with the component's id, one "name{labels} value" a line, sorted.
func (s *Service) componentMetrics(id string) []string {
	if s.opts.Metrics == nil {
		return nil
	}
	mfs, _ := s.opts.Metrics.Gather()
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			mine := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "component_id" {
					mine = lp.GetValue() == id
					continue
				}
				labels = append(labels, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			if !mine {
				continue
			}
			ls := ""
			if len(labels) > 0 {
				ls = "{" + strings.Join(labels, ",") + "}"
			}
			for _, sv := range sampleValues(mf.GetName(), m) {
				out = append(out, sv[0]+ls+" "+sv[1])
			}
		}
	}
	sort.Strings(out)
	return out
}

// sampleValues returns a metric's name and value pairs (a histogram's or
// summary's count and sum).
func sampleValues(name string, m *dto.Metric) [][2]string {
	f := func(v float64) string { return fmt.Sprintf("%g", v) }
	switch {
	case m.Counter != nil:
		return [][2]string{{name, f(m.Counter.GetValue())}}
	case m.Gauge != nil:
		return [][2]string{{name, f(m.Gauge.GetValue())}}
	case m.Untyped != nil:
		return [][2]string{{name, f(m.Untyped.GetValue())}}
	case m.Histogram != nil:
		return [][2]string{{name + "_count", fmt.Sprint(m.Histogram.GetSampleCount())}, {name + "_sum", f(m.Histogram.GetSampleSum())}}
	case m.Summary != nil:
		return [][2]string{{name + "_count", fmt.Sprint(m.Summary.GetSampleCount())}, {name + "_sum", f(m.Summary.GetSampleSum())}}
	}
	return nil
}
