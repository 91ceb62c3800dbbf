package http

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"sort"
	"strings"
	"sync"

	dto "github.com/prometheus/client_model/go"
)

// The web page: server-rendered HTML (html/template) with a little
// JavaScript that polls /api/v0/graph and /api/v0/components/{id} and
// reads live debugging's stream, all built into the binary.

//go:embed web
var webFS embed.FS

// pages parses the page templates when the first page is asked for, not
// at start: a flowlua nobody browses never runs html/template's parser
// (its code and the parsed trees stay out of memory). TestPages renders
// every template, so a template that does not parse fails the tests, not
// a viewer.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"json": func(v any) string {
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return err.Error()
			}
			return string(b)
		},
	}).ParseFS(webFS, "web/*.html"))
})

// serveIndex answers GET /: the graph.
func (s *Service) serveIndex(w http.ResponseWriter, r *http.Request) {
	s.render(w, "index.html", nil)
}

// componentPage is what component.html shows.
type componentPage struct {
	C             componentJSON
	Name          string
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
		p := componentPage{C: newAPIView(host, infos).component(info), Name: info.Name}
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
		s.render(w, "component.html", p)
		return
	}
	w.WriteHeader(http.StatusNotFound)
	s.render(w, "missing.html", id)
}

func (s *Service) render(w http.ResponseWriter, name string, data any) {
	var b strings.Builder
	if err := pages().ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
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
