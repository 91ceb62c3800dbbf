package main

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// scrapeTargets are n HTTP servers on 127.0.0.1, one per free port, that
// answer any path with a tiny exposition and count their scrapes per
// scraping node, which the scrape config names in its query (?node=...).
type scrapeTargets struct {
	addrs   []string
	nodes   []string // the node names, index of counts' second dimension
	mu      sync.Mutex
	counts  [][]int         // [target][node]
	events  [][]scrapeEvent // [target]: every scrape, in order
	unknown int             // scrapes that named no known node
}

// scrapeEvent is one scrape of a target: when, and by which node (index
// of scrapeTargets.nodes).
type scrapeEvent struct {
	at   time.Time
	node int
}

func startScrapeTargets(t *testing.T, n int, nodes []string) *scrapeTargets {
	t.Helper()
	st := &scrapeTargets{nodes: nodes, counts: make([][]int, n), events: make([][]scrapeEvent, n)}
	for i := range st.counts {
		st.counts[i] = make([]int, len(nodes))
	}
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		st.addrs = append(st.addrs, l.Addr().String())
		i := i
		srv := &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				st.count(i, r.URL.Query().Get("node"))
				w.Header().Set("Content-Type", "text/plain; version=0.0.4")
				fmt.Fprintf(w, "# TYPE scrape_target_info gauge\nscrape_target_info{target=\"%d\"} 1\n", i)
			}),
			ReadHeaderTimeout: 10 * time.Second,
		}
		go func() { _ = srv.Serve(l) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
	return st
}

func (st *scrapeTargets) count(target int, node string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for j, n := range st.nodes {
		if n == node {
			st.counts[target][j]++
			st.events[target] = append(st.events[target], scrapeEvent{at: time.Now(), node: j})
			return
		}
	}
	st.unknown++
}

// reset zeroes the counts and returns them as they were.
func (st *scrapeTargets) reset() [][]int {
	st.mu.Lock()
	defer st.mu.Unlock()
	old := st.counts
	st.counts = make([][]int, len(old))
	for i := range st.counts {
		st.counts[i] = make([]int, len(st.nodes))
	}
	return old
}

func (st *scrapeTargets) unknownScrapes() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.unknown
}

func (st *scrapeTargets) snapshot() [][]int {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([][]int, len(st.counts))
	for i, c := range st.counts {
		out[i] = append([]int(nil), c...)
	}
	return out
}

// scrapeTally sums a snapshot: targets with fewer than min scrapes in all
// (missing), targets scraped by more than one node (dup), targets per
// node that scraped them, scrapes per node, and each target's scraper (-1
// when none or several).
type scrapeTally struct {
	missing, dup int
	targets      []int
	scrapes      []int
	owner        []int
}

func tally(counts [][]int, nodes, min int) scrapeTally {
	s := scrapeTally{targets: make([]int, nodes), scrapes: make([]int, nodes), owner: make([]int, len(counts))}
	for i, c := range counts {
		total, by, who := 0, 0, -1
		for j, v := range c {
			total += v
			s.scrapes[j] += v
			if v > 0 {
				by++
				who = j
				s.targets[j]++
			}
		}
		if total < min {
			s.missing++
		}
		if by > 1 {
			s.dup++
			who = -1
		}
		s.owner[i] = who
	}
	return s
}

// waitSettled returns the first window, from a reset of the counts, in
// which every target got min scrapes by exactly one node. A receiver's
// targets change through its file discovery, which the scrape manager
// applies on its fixed 5 s reload tick: for up to 5 s after a membership
// change, a moved target can still be scraped by its previous owner too,
// so a window that began within that time is measured again.
func (st *scrapeTargets) waitSettled(t *testing.T, within time.Duration, what string, min int) scrapeTally {
	t.Helper()
	deadline := time.Now().Add(within)
	for i := 1; ; i++ {
		st.reset()
		s := st.waitTally(t, time.Until(deadline), what, min)
		if s.dup == 0 || time.Now().After(deadline) {
			t.Logf("%s: settled in window %d", what, i)
			return s
		}
	}
}

// waitTally polls the counts until every target got min scrapes, failing
// with the figures when within passes.
func (st *scrapeTargets) waitTally(t *testing.T, within time.Duration, what string, min int) scrapeTally {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := tally(st.snapshot(), len(st.nodes), min)
		if s.missing == 0 {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %d targets with fewer than %d scrapes; %d duplicated; targets per node %v, scrapes per node %v",
				what, within, s.missing, min, s.dup, s.targets, s.scrapes)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func scrapeScript(targets []string) string {
	var b strings.Builder
	b.WriteString("local targets = {\n")
	for _, a := range targets {
		fmt.Fprintf(&b, "  %q,\n", a)
	}
	b.WriteString(`}

otelcol.receiver.prometheus "p" {
  config = {
    scrape_configs = {
      {
        job_name = "t",
        scrape_interval = "1s",
        scrape_timeout = "1s",
        params = { node = { env("NODE") } },
        static_configs = { { targets = cluster.shard(targets) } },
      },
    },
  },
  output = { metrics = { otelcol.exporter.debug.d.input } },
}
otelcol.exporter.debug "d" { use_internal_logger = false }
`)
	return b.String()
}

// startScrapeNode starts a flowlua process of a three-node cluster that
// runs script, with NODE set to its name.
func startScrapeNode(t *testing.T, bin, name, script string, join []string) *node {
	t.Helper()
	return startClusterNode(t, bin, name, script, join, 60*time.Second, func(dir string) []string {
		linkFirstParty(t, dir, "prometheus") // the script's plugins/ serves the receiver
		return []string{"NODE=" + name, "FLOWLUA_LOG_LEVEL=info"}
	})
}

// TestClusterScrape shards 1,000 scrape targets (one HTTP server each)
// over three nodes whose prometheus receivers take
// cluster.shard(targets): once the cluster converged, every target is
// scraped by exactly one node; after one node leaves (SIGTERM), its
// targets are picked up and every target is again scraped by exactly one
// of the two remaining nodes, the others' targets not moving.
func TestClusterScrape(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three processes and 1,000 HTTP servers")
	}
	bin, err := exec.LookPath("flowlua") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	const nTargets = 1000
	names := []string{"node-a", "node-b", "node-c"}
	st := startScrapeTargets(t, nTargets, names)
	script := scrapeScript(st.addrs)

	start := time.Now()
	a := startScrapeNode(t, bin, names[0], script, nil)
	b := startScrapeNode(t, bin, names[1], script, []string{a.gossip})
	c := startScrapeNode(t, bin, names[2], script, []string{a.gossip, b.gossip})
	all := []*node{a, b, c}

	waitFor(t, 60*time.Second, "three alive peers on every node", func() bool {
		for _, n := range all {
			code, body, err := n.get("/api/v0/cluster/peers")
			if err != nil || code != 200 || strings.Count(body, `"state": "alive"`) != 3 {
				return false
			}
		}
		return true
	})
	peers := time.Since(start)
	// Converged: every target scraped since the peers were all alive.
	st.reset()
	conv := st.waitTally(t, 90*time.Second, "every target scraped once the peers are alive", 1)
	converged := time.Since(start)

	// Window 1: every target scraped at least twice, by exactly one node.
	w1 := st.waitSettled(t, 90*time.Second, "window of three nodes", 2)
	t.Logf("peers alive in %s; every target scraped in %s (by more than one node meanwhile: %d); window 1: targets per node %v (sum %d), scrapes per node %v, duplicated %d, unknown scrapers %d",
		peers.Round(time.Millisecond), converged.Round(time.Millisecond), conv.dup, w1.targets, sum(w1.targets), w1.scrapes, w1.dup, st.unknownScrapes())
	if w1.dup != 0 || sum(w1.targets) != nTargets {
		t.Fatalf("three nodes: %d targets scraped by more than one node; targets per node %v", w1.dup, w1.targets)
	}
	for j, n := range w1.targets {
		if n == 0 {
			t.Fatalf("%s scraped no target: %v", names[j], w1.targets)
		}
	}

	// node-b leaves gracefully: its targets are picked up by the others.
	leaver := 1
	st.reset()
	left := time.Now()
	b.stop(t, syscall.SIGTERM)
	stopped := time.Since(left)
	var pickup time.Duration
	deadline := time.Now().Add(60 * time.Second)
	for {
		counts := st.snapshot()
		missing := 0
		for i := range counts {
			if w1.owner[i] == leaver && counts[i][0]+counts[i][2] == 0 {
				missing++
			}
		}
		if missing == 0 {
			pickup = time.Since(left)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of node-b's %d targets not scraped by node-a or node-c within 60s of SIGTERM", missing, w1.targets[leaver])
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Window 2: every target scraped at least twice, by exactly one of
	// the remaining nodes; node-a's and node-c's targets stayed put.
	w2 := st.waitSettled(t, 90*time.Second, "window of two nodes", 2)
	moved := 0
	for i, o := range w2.owner {
		if w1.owner[i] != leaver && o != w1.owner[i] {
			moved++
		}
	}
	t.Logf("SIGTERM of node-b: exited in %s, its %d targets picked up in %s; window 2: targets per node %v (sum %d), scrapes per node %v, duplicated %d, survivors' targets moved %d",
		stopped.Round(time.Millisecond), w1.targets[leaver], pickup.Round(time.Millisecond), w2.targets, sum(w2.targets), w2.scrapes, w2.dup, moved)
	if w2.dup != 0 || w2.targets[leaver] != 0 || sum(w2.targets) != nTargets {
		t.Fatalf("two nodes: %d targets scraped by more than one node; targets per node %v", w2.dup, w2.targets)
	}
	if moved != 0 {
		t.Errorf("%d targets of node-a and node-c moved when node-b left", moved)
	}
	if u := st.unknownScrapes(); u != 0 {
		t.Errorf("%d scrapes named no node", u)
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// waitSteady waits for a window in which every target was scraped at
// least twice, each by exactly one node, and every node of want (indexes
// of st.nodes) scraped some and no other node scraped any; it returns
// that window's tally.
func (st *scrapeTargets) waitSteady(t *testing.T, within time.Duration, what string, want ...int) scrapeTally {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st.reset()
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("%s: no steady window within %s", what, within)
		}
		s := st.waitTally(t, left, what, 2)
		ok := s.dup == 0
		for j, n := range s.targets {
			if slices.Contains(want, j) != (n > 0) {
				ok = false
			}
		}
		if ok {
			return s
		}
	}
}

// eventsOf returns target i's scrapes, in order.
func (st *scrapeTargets) eventsOf(i int) []scrapeEvent {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]scrapeEvent(nil), st.events[i]...)
}

// longestInterval returns the longest time between two scrapes of evs by
// node within [from, to], counting from the last scrape before from, and
// the number of scrapes it looked at.
func longestInterval(evs []scrapeEvent, node int, from, to time.Time) (time.Duration, int) {
	var last time.Time
	var longest time.Duration
	n := 0
	for _, e := range evs {
		if e.node != node || e.at.After(to) {
			continue
		}
		if e.at.Before(from) {
			last = e.at
			continue
		}
		if !last.IsZero() && e.at.Sub(last) > longest {
			longest = e.at.Sub(last)
		}
		last = e.at
		n++
	}
	return longest, n
}

// TestClusterScrapeMembershipGap: three nodes shard 90 scrape targets
// (scrape interval 1 s); one node is killed (SIGKILL), then a fourth
// joins. Targets that stay on their node throughout are scraped without
// a pause: no interval between two of their scrapes is longer than 1.5
// scrape intervals, since a membership change changes the receivers'
// targets without restarting them. The killed node's targets resume on
// their new owners within failure detection, the scrape manager's reload
// tick (5 s) and two scrape intervals; the gap is logged, as is how long
// the targets moved to the new node were scraped by both nodes.
func TestClusterScrapeMembershipGap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four processes")
	}
	bin, err := exec.LookPath("flowlua") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	const (
		nTargets = 90
		interval = time.Second // scrapeScript's scrape_interval
		na, nb   = 0, 1
		nc, nd   = 2, 3
	)
	names := []string{"node-a", "node-b", "node-c", "node-d"}
	st := startScrapeTargets(t, nTargets, names)
	script := scrapeScript(st.addrs)

	start := time.Now()
	a := startScrapeNode(t, bin, names[na], script, nil)
	b := startScrapeNode(t, bin, names[nb], script, []string{a.gossip})
	c := startScrapeNode(t, bin, names[nc], script, []string{a.gossip, b.gossip})
	waitFor(t, 30*time.Second, "three alive peers on every node", func() bool {
		for _, n := range []*node{a, b, c} {
			code, body, err := n.get("/api/v0/cluster/peers")
			if err != nil || code != 200 || strings.Count(body, `"state": "alive"`) != 3 {
				return false
			}
		}
		return true
	})
	w1 := st.waitSteady(t, 30*time.Second, "three nodes", na, nb, nc)
	t.Logf("three nodes steady after %s: targets per node %v", time.Since(start).Round(time.Millisecond), w1.targets[:3])

	// Kill node-c: its targets move to node-a and node-b.
	killed := time.Now()
	c.stop(t, syscall.SIGKILL)
	var movedGaps []time.Duration
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; i < nTargets; i++ {
		if w1.owner[i] != nc {
			continue
		}
		for {
			var lastC, firstNew time.Time
			for _, e := range st.eventsOf(i) {
				switch {
				case e.node == nc:
					lastC = e.at
				case firstNew.IsZero() && e.at.After(killed):
					firstNew = e.at
				}
			}
			if !firstNew.IsZero() {
				movedGaps = append(movedGaps, firstNew.Sub(lastC))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("target %d of node-c not scraped by another node within 30s of SIGKILL", i)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	slices.Sort(movedGaps)
	w2 := st.waitSteady(t, 30*time.Second, "two nodes after the kill", na, nb)

	// node-d joins: some targets of node-a and node-b move to it.
	joined := time.Now()
	startScrapeNode(t, bin, names[nd], script, []string{a.gossip, b.gossip})
	w3 := st.waitSteady(t, 40*time.Second, "three nodes after the join", na, nb, nd)
	end := time.Now()

	var longest time.Duration
	unmoved, worst := 0, -1
	for i := 0; i < nTargets; i++ {
		o := w1.owner[i]
		if o == nc || w2.owner[i] != o || w3.owner[i] != o {
			continue
		}
		unmoved++
		gap, n := longestInterval(st.eventsOf(i), o, killed, end)
		if n == 0 {
			t.Fatalf("target %d: no scrape by %s between the kill and the end", i, names[o])
		}
		if gap > longest {
			longest, worst = gap, i
		}
	}
	// Targets that moved to node-d: how long their old owner kept
	// scraping them after node-d's first scrape (overlap), or the pause
	// between the two (gap).
	var joinShifts []time.Duration
	for i := 0; i < nTargets; i++ {
		if w3.owner[i] != nd {
			continue
		}
		var firstD, lastOld time.Time
		for _, e := range st.eventsOf(i) {
			if e.node == nd && firstD.IsZero() {
				firstD = e.at
			}
			if e.node == w2.owner[i] && e.at.Before(end) {
				lastOld = e.at
			}
		}
		joinShifts = append(joinShifts, firstD.Sub(lastOld)) // > 0: gap, < 0: overlap
	}
	slices.Sort(joinShifts)
	median := func(ds []time.Duration) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		return ds[len(ds)/2]
	}
	t.Logf("after the kill: targets per node %v; after the join: %v (join took %s)", w2.targets[:2], []int{w3.targets[na], w3.targets[nb], w3.targets[nd]}, end.Sub(joined).Round(time.Millisecond))
	t.Logf("unmoved targets: %d, longest interval between scrapes %s (target %d); node-c's %d targets: gap after SIGKILL median %s, max %s; %d targets moved to node-d: first scrape by node-d minus last by the old owner median %s, range [%s, %s]",
		unmoved, longest.Round(time.Millisecond), worst, len(movedGaps), median(movedGaps).Round(time.Millisecond), movedGaps[len(movedGaps)-1].Round(time.Millisecond),
		len(joinShifts), median(joinShifts).Round(time.Millisecond), joinShifts[0].Round(time.Millisecond), joinShifts[len(joinShifts)-1].Round(time.Millisecond))
	if unmoved == 0 {
		t.Fatal("no target stayed on its node: nothing measured")
	}
	if limit := interval * 3 / 2; longest > limit {
		t.Errorf("an unmoved target (%d) was not scraped for %s across the membership changes, more than 1.5 scrape intervals (%s)", worst, longest.Round(time.Millisecond), limit)
	}
	// Failure detection is under 3 s (services/cluster); the scrape
	// manager picks new targets up on its next reload tick (5 s).
	if limit := 3*time.Second + 5*time.Second + 2*interval + 2*time.Second; movedGaps[len(movedGaps)-1] > limit {
		t.Errorf("node-c's targets resumed up to %s after their last scrape, more than %s", movedGaps[len(movedGaps)-1].Round(time.Millisecond), limit)
	}
}
