package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/html"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/service"
	"github.com/flowlua/flowlua/services"
)

// pipelineHost is receiver → processor → exporter, the processor reading
// a file.read export, with the http service used by the exporter.
func pipelineHost() *fakeHost {
	h := &fakeHost{load: service.Load{Time: time.Now(), Err: errors.New("main.lua:3: a.proc.p: boom"),
		Plugins: []service.Plugin{{Namespace: "acme", Name: "acme", Version: "1.2.0"}}}}
	h.set(
		component.Info{ID: "a.recv.r", Name: "a.recv", Health: component.Health{Health: component.HealthHealthy},
			Dependencies: []string{"a.proc.p"}, Sends: []component.Send{{Signal: "traces", To: "a.proc.p", Items: 10}}},
		component.Info{ID: "a.proc.p", Name: "a.proc", Health: component.Health{Health: component.HealthUnhealthy, Message: "sad"},
			Dependencies: []string{"a.exp.e", "file.read.f"}, Dependants: []string{"a.recv.r"},
			Sends: []component.Send{{Signal: "traces", To: "a.exp.e", Items: 7}, {Signal: "logs", To: "a.exp.e", Items: 1}}},
		component.Info{ID: "a.exp.e", Name: "a.exp", Health: component.Health{Health: component.HealthHealthy}, Dependencies: []string{ServiceName}},
		component.Info{ID: "file.read.f", Name: "file.read", Health: component.Health{Health: component.HealthHealthy}},
	)
	return h
}

// componentCounters is a registry holding what the collector's
// components and flowlua count for a component: a receiver's accepted
// and refused items, an exporter's sent and failed ones, drops.
func componentCounters(t testing.TB, values map[string]map[string]float64) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	vecs := map[string]*prometheus.CounterVec{}
	for id, byName := range values {
		for name, v := range byName {
			vec := vecs[name]
			if vec == nil {
				vec = prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: name}, []string{"component_id"})
				reg.MustRegister(vec)
				vecs[name] = vec
			}
			vec.WithLabelValues(id).Add(v)
		}
	}
	return reg
}

// The graph carries the edges with their signal and items, and each
// component's counters: items in (sent to it, or accepted by a
// receiver), items out (sent on, or by an exporter to its endpoint) and
// errors (refused, failed, dropped).
func TestGraphJSON(t *testing.T) {
	reg := componentCounters(t, map[string]map[string]float64{
		"a.recv.r": {"otelcol_receiver_accepted_spans_total": 12, "otelcol_receiver_refused_spans_total": 2},
		"a.exp.e":  {"otelcol_exporter_sent_spans_total": 5, "otelcol_exporter_send_failed_spans_total": 3, "flowlua_component_dropped_items_total": 1},
		"a.proc.p": {"otelcol_processor_batch_batch_send_size_count": 9}, // not an error
	})
	s := newHostedService(services.Options{Metrics: reg}, pipelineHost())
	code, body := serve(s, "GET", "/api/v0/graph")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var g graphJSON
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatal(err)
	}
	type io struct{ in, out, errors uint64 }
	got := map[string]io{}
	kinds := map[string]string{}
	for _, n := range g.Nodes {
		got[n.ID] = io{n.ItemsIn, n.ItemsOut, n.Errors}
		kinds[n.ID] = n.Kind + "/" + n.Origin
	}
	want := map[string]io{"a.recv.r": {12, 10, 2}, "a.proc.p": {10, 8, 0}, "a.exp.e": {8, 5, 4}, "file.read.f": {}, "http": {}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("counters %v, want %v", got, want)
	}
	if kinds["a.recv.r"] != "component/builtin" || kinds["http"] != "service/" {
		t.Errorf("kinds %v", kinds)
	}
	edges := map[string]uint64{}
	for _, e := range g.Edges {
		edges[e.Kind+" "+e.From+" "+e.To+" "+e.Signal] = e.Items
	}
	for k, v := range map[string]uint64{
		"data a.recv.r a.proc.p traces": 10, "data a.proc.p a.exp.e traces": 7, "data a.proc.p a.exp.e logs": 1,
		"reference file.read.f a.proc.p ": 0, "service http a.exp.e ": 0,
	} {
		if got, ok := edges[k]; !ok || got != v {
			t.Errorf("edge %q: %d (present %v); all %v", k, got, ok, edges)
		}
	}
	if g.Load.OK || g.Load.Error != "main.lua:3: a.proc.p: boom" || len(g.Plugins) != 1 || g.Plugins[0].Version != "1.2.0" {
		t.Errorf("load %+v plugins %+v", g.Load, g.Plugins)
	}
}

// A unique component's placement and owner reach the page.
func TestGraphPlacement(t *testing.T) {
	h := &fakeHost{}
	h.set(
		component.Info{ID: "a.b.here", Name: "a.b", Placement: "unique", Owner: "node-a"},
		component.Info{ID: "a.b.there", Name: "a.b", Placement: "unique", Owner: "node-b", Standby: "standby (owned by node-b)"},
	)
	_, body := serve(newHostedService(services.Options{}, h), "GET", "/api/v0/graph")
	var g graphJSON
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 2 || g.Nodes[0].Owner != "node-a" || g.Nodes[1].Standby != "standby (owned by node-b)" || g.Nodes[1].Placement != "unique" {
		t.Errorf("nodes %+v", g.Nodes)
	}
}

// A component's page escapes what a script or a component put in it: a
// browser's parser finds the values as text and attribute values, and no
// markup of theirs.
func TestComponentPageEscapes(t *testing.T) {
	hostile := `<script>alert("x")</script> & 'q' +`
	page := writeComponentPage(componentPage{
		C: componentJSON{ID: "a.b.c d", Label: hostile, Health: healthJSON{State: "unhealthy", Message: hostile},
			Arguments: map[string]any{"k": hostile}, Dependencies: []string{"x.y.<z>"}, Services: []string{hostile}},
		Name:    "a.b",
		Sends:   []sendRow{{Signal: "traces", To: `q.r."s"`, Items: 3}, {Signal: "logs", Items: 1}},
		Routes:  "/api/v0/component/a.b.c d/",
		Metrics: []string{`m{k="` + hostile + `"} 1`},
	})
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var scripts, hrefs []string
	byID := map[string]string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch a.Key {
				case "id":
					byID[a.Val] = textOf(n)
				case "href":
					hrefs = append(hrefs, a.Val)
				case "data-id":
					if a.Val != "a.b.c d" {
						t.Errorf("data-id %q", a.Val)
					}
				}
			}
			if n.Data == "script" {
				scripts = append(scripts, fmt.Sprint(n.Attr))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if len(scripts) != 1 || !strings.Contains(scripts[0], "/static/component.js") {
		t.Errorf("scripts on the page: %v", scripts)
	}
	if byID["health-message"] != hostile {
		t.Errorf("health message %q", byID["health-message"])
	}
	if !strings.Contains(byID["arguments"], `k = "<script>alert(\"x\")</script> & 'q' +"`) {
		t.Errorf("arguments %q", byID["arguments"])
	}
	if byID["metrics"] != `m{k="`+hostile+`"} 1`+"\n" {
		t.Errorf("metrics %q", byID["metrics"])
	}
	want := []string{"/", "/component/q.r.%22s%22", "/component/x.y.%3cz%3e", "/api/v0/component/a.b.c%20d/"}
	for _, w := range want {
		if !slices.Contains(hrefs, w) {
			t.Errorf("no link to %q in %q", w, hrefs)
		}
	}
	missing := writeMissingPage(hostile)
	if bytes.Contains(missing, []byte("<script>")) || !bytes.Contains(missing, []byte("&lt;script&gt;")) {
		t.Errorf("missing page: %s", missing)
	}
}

// textOf is the text under n.
func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

func TestPages(t *testing.T) {
	s := newHostedService(services.Options{}, pipelineHost())
	code, body := serve(s, "GET", "/")
	if code != 200 || !strings.Contains(body, `<script type="module" src="/static/page.js">`) {
		t.Fatalf("/: %d %s", code, body)
	}
	if code, body := serve(s, "GET", "/static/page.js"); code != 200 || !strings.Contains(body, "/api/v0/graph") {
		t.Fatalf("page.js: %d", code)
	}
	// The layout library is in the binary, with its license.
	for _, p := range []string{"/static/vendor/elkjs/elk-api.js", "/static/vendor/elkjs/elk-worker.min.js", "/static/vendor/elkjs/LICENSE.md"} {
		if code, body := serve(s, "GET", p); code != 200 || len(body) < 1000 {
			t.Errorf("%s: %d, %d bytes", p, code, len(body))
		}
	}
	code, body = serve(s, "GET", "/component/a.proc.p")
	for _, want := range []string{"<h1>a.proc.p</h1>", "unhealthy", "sad", `href="/component/a.exp.e"`, "Live debugging is off"} {
		if !strings.Contains(body, want) {
			t.Errorf("component page lacks %q", want)
		}
	}
	if code != 200 {
		t.Fatalf("component page: %d", code)
	}
	if code, _ := serve(s, "GET", "/component/no.such"); code != 404 {
		t.Errorf("missing component: %d", code)
	}
}

// basic_auth covers everything but the probes, and takes any of its users.
func TestBasicAuth(t *testing.T) {
	s := newHostedService(services.Options{Ready: func() error { return nil }}, pipelineHost())
	cfg := Config{BasicAuth: &BasicAuthConfig{Username: "admin", Password: "s3cret", Users: []BasicAuthUser{{"ops", "other"}}}}
	if err := cfg.BasicAuth.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(cfg); err != nil {
		t.Fatal(err)
	}
	do := func(path, user, pass string) int {
		req := httptest.NewRequest("GET", path, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		rec := httptest.NewRecorder()
		s.handler().ServeHTTP(rec, req)
		if rec.Code == http.StatusUnauthorized && rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", path)
		}
		return rec.Code
	}
	for _, path := range []string{"/", "/api/v0/components", "/api/v0/graph", "/api/v0/debug/a.proc.p", "/component/a.proc.p", "/api/v0/component/a.exp.e/x"} {
		if code := do(path, "", ""); code != 401 {
			t.Errorf("%s without credentials: %d", path, code)
		}
		if code := do(path, "admin", "wrong"); code != 401 {
			t.Errorf("%s with a wrong password: %d", path, code)
		}
	}
	for _, u := range [][2]string{{"admin", "s3cret"}, {"ops", "other"}} {
		if code := do("/api/v0/components", u[0], u[1]); code != 200 {
			t.Errorf("%s: %d", u[0], code)
		}
	}
	for _, path := range []string{"/-/ready", "/-/healthy"} {
		if code := do(path, "", ""); code == 401 {
			t.Errorf("probe %s asks for credentials", path)
		}
	}
	_ = s.Update(Config{})
	if code := do("/api/v0/components", "", ""); code != 200 {
		t.Errorf("after removing basic_auth: %d", code)
	}
	for _, bad := range []BasicAuthConfig{{}, {Username: "a"}, {Password: "p"}, {Users: []BasicAuthUser{{"a", ""}}}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

// Module instances are groups: each component names its instance, and a
// nested instance names its parent and its id relative to it.
func TestGraphGroups(t *testing.T) {
	h := &fakeHost{}
	h.set(
		component.Info{ID: "a.x.otelcol.processor.batch.b", Name: "otelcol.processor.batch", ModuleInstance: "a.x"},
		component.Info{ID: "a.x.gw.eu.otelcol.exporter.debug.out", Name: "otelcol.exporter.debug", ModuleInstance: "a.x.gw.eu"},
		component.Info{ID: "integrations.gw.us.testing.sink.s", Name: "testing.sink", ModuleInstance: "integrations.gw.us"},
		component.Info{ID: "testing.sink.top", Name: "testing.sink"},
	)
	s := newHostedService(services.Options{}, h)
	code, body := serve(s, "GET", "/api/v0/graph")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var g graphJSON
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatal(err)
	}
	want := []groupJSON{
		{ID: "a.x", Parent: "", Label: "a.x"},
		{ID: "a.x.gw.eu", Parent: "a.x", Label: "gw.eu"},
		{ID: "integrations.gw.us", Parent: "", Label: "integrations.gw.us"},
	}
	if !reflect.DeepEqual(g.Groups, want) {
		t.Errorf("groups %+v, want %+v", g.Groups, want)
	}
	inst := map[string]string{}
	for _, n := range g.Nodes {
		inst[n.ID] = n.ModuleInstance
	}
	if inst["a.x.gw.eu.otelcol.exporter.debug.out"] != "a.x.gw.eu" || inst["testing.sink.top"] != "" {
		t.Errorf("module_instance of nodes: %v", inst)
	}
	if !strings.Contains(body, `"module_instance": "a.x"`) {
		t.Errorf("no module_instance in the JSON: %s", body)
	}
}
