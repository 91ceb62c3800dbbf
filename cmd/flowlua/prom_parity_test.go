package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ciBinary returns the path of a Debian package's command, or skips the
// test when it is absent outside CI (in CI, .ci/run installs it and the
// test must run).
func ciBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") == "" {
		t.Skipf("%s is not installed (apt-get install %s); CI installs it", name, pkg)
	}
	t.Fatalf("%s is not installed, and CI is set: .ci/run should have installed %s", name, pkg)
	return ""
}

// startDaemon starts a long-running command, stopped with SIGTERM when
// the test ends; its output is logged if the test fails.
func startDaemon(t *testing.T, dir, name string, env []string, args ...string) {
	t.Helper()
	logs := &syncWriter{w: &strings.Builder{}}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			logs.mu.Lock()
			t.Logf("%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), logs.w.(*strings.Builder).String())
			logs.mu.Unlock()
		}
	})
}

// promSeries returns the label sets (each written `{a="1", b="2"}`,
// sorted) of the series a Prometheus at addr holds for the series
// selector match, sorted.
func promSeries(addr, match string) ([]string, error) {
	resp, err := client.Get("http://" + addr + "/api/v1/series?" + url.Values{"match[]": {match}}.Encode())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, body)
	}
	var r struct {
		Status string              `json:"status"`
		Data   []map[string]string `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%w: %s", err, body)
	}
	out := make([]string, 0, len(r.Data))
	for _, ls := range r.Data {
		pairs := make([]string, 0, len(ls))
		for k, v := range ls {
			pairs = append(pairs, fmt.Sprintf("%s=%q", k, v))
		}
		sort.Strings(pairs)
		out = append(out, "{"+strings.Join(pairs, ", ")+"}")
	}
	sort.Strings(out)
	return out, nil
}

// setDiff lists what only a holds and what only b holds.
func setDiff(a, b []string) (onlyA, onlyB []string) {
	for _, s := range a {
		if !slices.Contains(b, s) {
			onlyA = append(onlyA, s)
		}
	}
	for _, s := range b {
		if !slices.Contains(a, s) {
			onlyB = append(onlyB, s)
		}
	}
	return onlyA, onlyB
}

// TestPrometheusParity: a prometheus.yml that scrapes a node exporter and
// remote-writes, converted by flowlua convert and run with the prometheus
// plugin, writes to a real Prometheus (the remote-write receiver) the
// series a second real Prometheus scraping the same exporter itself
// holds: the same names and label sets (values aside) for
// node_cpu_seconds_total, up and the other scrape metrics, and no
// otel_scope_* label or target_info series.
func TestPrometheusParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs flowlua, two Prometheus servers and a node exporter")
	}
	prometheus := ciBinary(t, "prometheus", "prometheus")
	nodeExporter := ciBinary(t, "prometheus-node-exporter", "prometheus-node-exporter")
	bin, err := exec.LookPath("flowlua") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	var addrs [4]string
	for i := range addrs {
		if addrs[i], err = freePort(); err != nil {
			t.Fatal(err)
		}
	}
	nodeAddr, rwAddr, refAddr, flowAddr := addrs[0], addrs[1], addrs[2], addrs[3]
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	startDaemon(t, dir, nodeExporter, nil, "--web.listen-address="+nodeAddr)

	// The remote-write target scrapes nothing itself.
	write("rw.yml", "global:\n  scrape_interval: 1m\n")
	startDaemon(t, dir, prometheus, nil, "--config.file=rw.yml", "--web.listen-address="+rwAddr,
		"--storage.tsdb.path="+filepath.Join(dir, "rw-data"), "--web.enable-remote-write-receiver")

	// The same scrape config, once run by Prometheus, once converted.
	scrape := `global:
  scrape_interval: 2s
  scrape_timeout: 2s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ["` + nodeAddr + `"]
`
	write("ref.yml", scrape)
	startDaemon(t, dir, prometheus, nil, "--config.file=ref.yml", "--web.listen-address="+refAddr,
		"--storage.tsdb.path="+filepath.Join(dir, "ref-data"))

	write("prometheus.yml", scrape+"remote_write:\n  - url: http://"+rwAddr+"/api/v1/write\n")
	linkFirstParty(t, dir, "prometheus")
	conv := exec.Command(bin, "convert", "prometheus.yml", "-o", "main.lua")
	conv.Dir = dir
	if out, err := conv.CombinedOutput(); err != nil {
		t.Fatalf("flowlua convert: %v\n%s", err, out)
	}
	script, err := os.ReadFile(filepath.Join(dir, "main.lua"))
	if err != nil {
		t.Fatal(err)
	}
	startDaemon(t, dir, bin, []string{"FLOWLUA_HTTP_LISTEN_ADDR=" + flowAddr, "FLOWLUA_STORAGE_PATH=" + filepath.Join(dir, "data")},
		"run", "--no-watch", "main.lua")

	// Both hold the same series once both have scraped twice or so; a
	// series that one has and the other not yet is a mismatch only at
	// the deadline.
	selectors := []string{
		"node_cpu_seconds_total",
		"up",
		`{__name__=~"scrape_.+"}`,
		`{job="node"}`, // every series, the node exporter's and the scrape's
	}
	deadline := time.Now().Add(90 * time.Second)
	var report []string
	for {
		report = report[:0]
		for _, sel := range selectors {
			got, err := promSeries(rwAddr, sel)
			if err != nil {
				report = append(report, fmt.Sprintf("%s: remote-write Prometheus: %v", sel, err))
				continue
			}
			want, err := promSeries(refAddr, sel)
			if err != nil {
				report = append(report, fmt.Sprintf("%s: scraping Prometheus: %v", sel, err))
				continue
			}
			onlyGot, onlyWant := setDiff(got, want)
			switch {
			case len(want) == 0:
				report = append(report, sel+": the scraping Prometheus has no series yet")
			case len(onlyGot) > 0 || len(onlyWant) > 0:
				report = append(report, fmt.Sprintf("%s: %d series remote-written by flowlua, %d scraped by Prometheus;\nonly flowlua's:\n  %s\nonly Prometheus's:\n  %s",
					sel, len(got), len(want), strings.Join(onlyGot, "\n  "), strings.Join(onlyWant, "\n  ")))
			}
		}
		if len(report) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if len(report) > 0 {
		t.Fatalf("the series differ after 90s:\n%s\nthe converted script:\n%s", strings.Join(report, "\n"), script)
	}
	for _, sel := range []string{`{__name__="target_info"}`, `{otel_scope_name!=""}`, `{otel_scope_version!=""}`} {
		got, err := promSeries(rwAddr, sel)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			t.Errorf("%s: flowlua remote-wrote %d series Prometheus does not make, e.g. %s", sel, len(got), got[0])
		}
	}
	all, _ := promSeries(rwAddr, `{job="node"}`)
	cpu, _ := promSeries(rwAddr, "node_cpu_seconds_total")
	t.Logf("%d series alike, %d of node_cpu_seconds_total, e.g. %s", len(all), len(cpu), cpu[0])
}
