//go:build !flowlua_minimal && !flowlua_lean

package otelcol

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// promTargets are HTTP servers that serve a tiny exposition and record
// when each was scraped.
type promTargets struct {
	addrs []string
	mu    sync.Mutex
	at    [][]time.Time
}

func startPromTargets(t *testing.T, n int) *promTargets {
	t.Helper()
	pt := &promTargets{at: make([][]time.Time, n)}
	for i := range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		pt.addrs = append(pt.addrs, l.Addr().String())
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			pt.mu.Lock()
			pt.at[i] = append(pt.at[i], time.Now())
			pt.mu.Unlock()
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			fmt.Fprintf(w, "# TYPE up_test gauge\nup_test{target=\"%d\"} 1\n", i)
		}), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(l) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
	return pt
}

// scrapes returns target i's scrape times.
func (pt *promTargets) scrapes(i int) []time.Time {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return append([]time.Time(nil), pt.at[i]...)
}

// scrapedSince counts target i's scrapes after since.
func (pt *promTargets) scrapedSince(i int, since time.Time) int {
	n := 0
	for _, at := range pt.scrapes(i) {
		if at.After(since) {
			n++
		}
	}
	return n
}

func promArgs(s *sink, interval string, targets ...string) map[string]any {
	ts := make([]any, len(targets))
	for i, a := range targets {
		ts[i] = a
	}
	return map[string]any{
		"config": map[string]any{"scrape_configs": []any{map[string]any{
			"job_name":        "t/1",
			"scrape_interval": interval,
			"scrape_timeout":  "1s",
			"static_configs": []any{map[string]any{
				"targets": ts,
				"labels":  map[string]any{"env": "test"},
			}},
		}}},
		"output": map[string]any{"metrics": []any{s}},
	}
}

// TestPrometheusTargetsUpdatedInPlace: a Prometheus receiver whose
// static targets change (as cluster.shard's do on a membership change)
// keeps its upstream instance and scrape loops: the target that stays is
// scraped without a pause, the new one is scraped on the scrape
// manager's next reload, the removed one no more. The targets are read
// from a file under the data path that holds them and their labels. A
// change of anything else rebuilds the receiver.
func TestPrometheusTargetsUpdatedInPlace(t *testing.T) {
	pt := startPromTargets(t, 3)
	s := newSink()
	r := start(t, "otelcol.receiver.prometheus", "p", promArgs(s, "1s", pt.addrs[0], pt.addrs[1]))
	a := r.comp.(*adapter)
	current := func() *instance {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.cur
	}
	began := time.Now()
	waitScraped := func(i, n int, since time.Time, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for pt.scrapedSince(i, since) < n {
			if time.Now().After(deadline) {
				t.Fatalf("target %d: fewer than %d scrapes within %s", i, n, within)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitScraped(0, 2, began, 20*time.Second)
	waitScraped(1, 2, began, 20*time.Second)

	file := filepath.Join(a.opts.DataPath, "targets", targetFileName("t/1"))
	var groups []fileTargetGroup
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &groups); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	want := []fileTargetGroup{{Targets: []string{pt.addrs[0], pt.addrs[1]}, Labels: map[string]string{"env": "test"}}}
	if !reflect.DeepEqual(groups, want) {
		t.Fatalf("%s holds %+v, want %+v", file, groups, want)
	}

	before := current()
	updated := time.Now()
	if err := r.update("otelcol.receiver.prometheus", promArgs(s, "1s", pt.addrs[1], pt.addrs[2])); err != nil {
		t.Fatal(err)
	}
	if current() != before {
		t.Error("changing the targets alone rebuilt the receiver")
	}
	waitScraped(2, 2, updated, 15*time.Second)
	added := time.Now()
	waitScraped(1, 2, added, 5*time.Second)
	// Target 1 was scraped all along: no interval longer than 1.5 s.
	var longest time.Duration
	var last time.Time
	for _, at := range pt.scrapes(1) {
		if at.After(updated.Add(-2*time.Second)) && !last.IsZero() && at.Sub(last) > longest {
			longest = at.Sub(last)
		}
		last = at
	}
	t.Logf("target kept: longest interval between scrapes across the update %s; target added: first scraped %s after the update",
		longest.Round(time.Millisecond), (pt.scrapes(2)[0]).Sub(updated).Round(time.Millisecond))
	if longest > 1500*time.Millisecond {
		t.Errorf("the target kept across the update was not scraped for %s", longest.Round(time.Millisecond))
	}
	if n := pt.scrapedSince(0, added); n != 0 {
		t.Errorf("the removed target was scraped %d times after the added one was", n)
	}

	// The scraped metrics carry the labels of the target group, not the
	// file's path.
	var attrs map[string]any
	for _, md := range s.metrics.AllMetrics() {
		rms := md.ResourceMetrics()
		for i := range rms.Len() {
			sms := rms.At(i).ScopeMetrics()
			for j := range sms.Len() {
				ms := sms.At(j).Metrics()
				for k := range ms.Len() {
					if m := ms.At(k); m.Name() == "up_test" && m.Type() == pmetric.MetricTypeGauge {
						attrs = m.Gauge().DataPoints().At(0).Attributes().AsRaw()
					}
				}
			}
		}
	}
	if attrs == nil || attrs["env"] != "test" {
		t.Errorf("up_test's attributes %v, want env=test", attrs)
	}
	if _, ok := attrs["__meta_filepath"]; ok {
		t.Errorf("up_test's attributes %v hold the target file's path", attrs)
	}

	// Another change rebuilds the receiver, still fed from the file.
	if err := r.update("otelcol.receiver.prometheus", promArgs(s, "2s", pt.addrs[2])); err != nil {
		t.Fatal(err)
	}
	if current() == before {
		t.Error("changing the scrape interval kept the receiver")
	}
	rebuilt := time.Now()
	waitScraped(2, 1, rebuilt, 15*time.Second)
	data, err = os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &groups); err != nil || len(groups) != 1 || !reflect.DeepEqual(groups[0].Targets, []string{pt.addrs[2]}) {
		t.Errorf("%s holds %s (%v), want target %s", file, data, err, pt.addrs[2])
	}
}

// TestFeedPrometheusTargets: the scrape configs with static_configs read
// them from a file of their own instead, next to any file_sd_configs
// they have; the others are left alone; a config without static targets
// is not fed.
func TestFeedPrometheusTargets(t *testing.T) {
	dir := t.TempDir()
	values := map[string]any{"config": map[string]any{"scrape_configs": []any{
		map[string]any{"job_name": "a", "static_configs": []any{
			map[string]any{"targets": []any{"h:1", "h:2"}},
			map[string]any{"targets": []any{"h:3"}, "labels": map[string]any{"x": "y"}},
		}},
		map[string]any{"job_name": "b", "file_sd_configs": []any{map[string]any{"files": []any{"/etc/b.json"}}}},
		map[string]any{"job_name": "c c", "static_configs": []any{map[string]any{"targets": []any{}}},
			"file_sd_configs": []any{map[string]any{"files": []any{"/etc/c.json"}}}},
	}}}
	cfg := decodePromConfig(t, values)
	fed, files, ok, err := feedPrometheusTargets(values, cfg, dir)
	if err != nil || !ok {
		t.Fatalf("fed %v, err %v", ok, err)
	}
	fa, fc := filepath.Join(dir, targetFileName("a")), filepath.Join(dir, targetFileName("c c"))
	wantFiles := map[string][]byte{
		fa: []byte(`[{"targets":["h:1","h:2"]},{"targets":["h:3"],"labels":{"x":"y"}}]` + "\n"),
		fc: []byte(`[{"targets":[]}]` + "\n"),
	}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files %q, want %q", files, wantFiles)
	}
	scs := fed["config"].(map[string]any)["scrape_configs"].([]any)
	wantScs := []any{
		map[string]any{"job_name": "a", "file_sd_configs": []any{map[string]any{"files": []any{fa}, "refresh_interval": promTargetsRefresh}}},
		values["config"].(map[string]any)["scrape_configs"].([]any)[1],
		map[string]any{"job_name": "c c", "file_sd_configs": []any{
			map[string]any{"files": []any{"/etc/c.json"}},
			map[string]any{"files": []any{fc}, "refresh_interval": promTargetsRefresh},
		}},
	}
	if !reflect.DeepEqual(scs, wantScs) {
		t.Errorf("scrape configs %v, want %v", scs, wantScs)
	}
	if _, has := values["config"].(map[string]any)["scrape_configs"].([]any)[0].(map[string]any)["static_configs"]; !has {
		t.Error("the values given were changed")
	}

	none := map[string]any{"config": map[string]any{"scrape_configs": []any{values["config"].(map[string]any)["scrape_configs"].([]any)[1]}}}
	if _, _, ok, err := feedPrometheusTargets(none, decodePromConfig(t, none), dir); ok || err != nil {
		t.Errorf("no static targets: fed %v, err %v", ok, err)
	}
	if a, b := targetFileName("a/b"), targetFileName("a_b"); a == b {
		t.Errorf("job names a/b and a_b share the file %s", a)
	}
}

func decodePromConfig(t *testing.T, values map[string]any) *prometheusreceiver.Config {
	t.Helper()
	_, v, err := decodeFor(t, "otelcol.receiver.prometheus", values)
	if err != nil {
		t.Fatal(err)
	}
	return v.(Args).Config.(*prometheusreceiver.Config)
}
