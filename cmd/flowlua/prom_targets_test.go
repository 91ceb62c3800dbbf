package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// linkFirstParty makes the first-party plugin NAME, built once, a plugin
// of the scripts in dir (dir/plugins/NAME).
func linkFirstParty(t *testing.T, dir, name string) {
	t.Helper()
	src, err := firstPartyPlugin(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(src, filepath.Join(dir, "plugins", name)); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
}

// TestPrometheusTargetsKeptAcrossReload: a reload that changes only the
// static targets of a Prometheus receiver served by the prometheus
// plugin (as cluster.shard's change on a membership change) keeps the
// receiver running in the plugin: the target that stays is scraped
// without a pause, the new one is scraped, the removed one no more, and
// the targets are in a file under the component's data path. A change of
// anything else starts it anew, still scraping.
func TestPrometheusTargetsKeptAcrossReload(t *testing.T) {
	if testing.Short() {
		t.Skip("runs flowlua with the prometheus plugin")
	}
	bin, err := exec.LookPath("flowlua") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	st := startScrapeTargets(t, 3, []string{"solo"})
	dir := t.TempDir()
	linkFirstParty(t, dir, "prometheus")
	script := func(interval string, targets ...string) {
		t.Helper()
		s := `otelcol.receiver.prometheus "p" {
  config = { scrape_configs = { {
    job_name = "t/1",
    scrape_interval = "` + interval + `",
    scrape_timeout = "1s",
    params = { node = { "solo" } },
    static_configs = { { targets = { "` + strings.Join(targets, `", "`) + `" }, labels = { env = "test" } } },
  } } },
  output = { metrics = { otelcol.exporter.debug.d.input } },
}
otelcol.exporter.debug "d" { use_internal_logger = false }
`
		if err := os.WriteFile(filepath.Join(dir, "main.lua"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script("1s", st.addrs[0], st.addrs[1])
	addr, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncWriter{w: &strings.Builder{}}
	cmd := exec.Command(bin, "run", "--no-watch", "main.lua")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FLOWLUA_HTTP_LISTEN_ADDR="+addr, "FLOWLUA_STORAGE_PATH="+filepath.Join(dir, "data"))
	cmd.Stdout, cmd.Stderr = io.Discard, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
		if t.Failed() {
			logs.mu.Lock()
			t.Logf("flowlua's log:\n%s", logs.w.(*strings.Builder).String())
			logs.mu.Unlock()
		}
	})
	scrapes := func(i int) []time.Time {
		st.mu.Lock()
		defer st.mu.Unlock()
		var out []time.Time
		for _, e := range st.events[i] {
			out = append(out, e.at)
		}
		return out
	}
	since := func(i int, at time.Time) int {
		n := 0
		for _, s := range scrapes(i) {
			if s.After(at) {
				n++
			}
		}
		return n
	}
	reload := func() {
		t.Helper()
		resp, err := http.Post("http://"+addr+"/-/reload", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("reload: %s: %s", resp.Status, body)
		}
	}
	began := time.Now()
	waitFor(t, 60*time.Second, "targets 0 and 1 scraped twice", func() bool { return since(0, began) >= 2 && since(1, began) >= 2 })

	script("1s", st.addrs[1], st.addrs[2])
	updated := time.Now()
	reload()
	waitFor(t, 15*time.Second, "the added target scraped twice", func() bool { return since(2, updated) >= 2 })
	added := time.Now()
	waitFor(t, 5*time.Second, "the kept target scraped twice more", func() bool { return since(1, added) >= 2 })
	var longest time.Duration
	var last time.Time
	for _, at := range scrapes(1) {
		if at.After(updated.Add(-2*time.Second)) && !last.IsZero() && at.Sub(last) > longest {
			longest = at.Sub(last)
		}
		last = at
	}
	t.Logf("target kept: longest interval between scrapes across the reload %s; target added: first scraped %s after it",
		longest.Round(time.Millisecond), scrapes(2)[0].Sub(updated).Round(time.Millisecond))
	if longest > 1500*time.Millisecond {
		t.Errorf("the target kept across the reload was not scraped for %s: the receiver was rebuilt", longest.Round(time.Millisecond))
	}
	if n := since(0, added); n != 0 {
		t.Errorf("the removed target was scraped %d times after the added one was", n)
	}
	var files []string
	_ = filepath.WalkDir(filepath.Join(dir, "data"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(path)) == "targets" && strings.HasSuffix(path, ".json") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) != 1 {
		t.Fatalf("target files under the data path: %v, want one", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"targets":["` + st.addrs[1] + `","` + st.addrs[2] + `"],"labels":{"env":"test"}}]`; strings.TrimSpace(string(data)) != want {
		t.Errorf("%s holds %s, want %s", files[0], data, want)
	}

	// Another change starts the receiver anew, still reading the file:
	// the target is scraped at the new interval.
	script("2s", st.addrs[2])
	rebuilt := time.Now()
	reload()
	waitFor(t, 30*time.Second, "the target scraped three times after a rebuild", func() bool { return since(2, rebuilt) >= 3 })
	s2 := scrapes(2)
	if gap := s2[len(s2)-1].Sub(s2[len(s2)-2]); gap < 1500*time.Millisecond {
		t.Errorf("after the scrape interval became 2s, scrapes %s apart: the change was not applied", gap.Round(time.Millisecond))
	}
}
