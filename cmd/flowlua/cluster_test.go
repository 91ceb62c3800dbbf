package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
)

// The components of the cluster tests: testing.clock appends
// "<unix nanos> run|stop" to its file, so that runs on several processes
// of one machine can be compared in time; testing.shard writes the keys
// it was last given to its file, as JSON.

func init() {
	component.Register(component.Registration{
		Name: "testing.clock",
		Args: clockArgs{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			return &clock{file: args.(clockArgs).File}, nil
		},
	})
	component.Register(component.Registration{
		Name: "testing.shard",
		Args: shardArgs{},
		Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			s := &shardRecorder{}
			return s, s.Update(args)
		},
	})
}

type clockArgs struct {
	File string `lua:"file,required"`
}

type clock struct{ file string }

func (c *clock) Run(ctx context.Context) error {
	appendLine(c.file, fmt.Sprintf("%d run", time.Now().UnixNano()))
	<-ctx.Done()
	appendLine(c.file, fmt.Sprintf("%d stop", time.Now().UnixNano()))
	return nil
}

func (c *clock) Update(component.Arguments) error { return nil }

type shardArgs struct {
	File string   `lua:"file,required"`
	Keys []string `lua:"keys"`
}

type shardRecorder struct{}

func (s *shardRecorder) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func (s *shardRecorder) Update(args component.Arguments) error {
	a := args.(shardArgs)
	b, _ := json.Marshal(a.Keys)
	tmp := a.File + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, a.File)
}

const clusterScript = `
testing.clock "u" { file = env("CLOCK"), placement = "unique" }

local keys = {}
for i = 1, 1000 do keys[i] = "target-" .. i .. ":9100" end
testing.shard "s" { file = env("SHARD"), keys = cluster.shard(keys) }
`

// node is one flowlua process of a test cluster.
type node struct {
	name, dir, http, gossip string
	cmd                     *exec.Cmd
	logs                    *syncWriter
	logBuf                  *strings.Builder
	waited                  chan error
}

func startNode(t *testing.T, bin, name string, join []string) *node {
	t.Helper()
	return startClusterNode(t, bin, name, clusterScript, join, 20*time.Second, func(dir string) []string {
		return []string{"CLOCK=" + filepath.Join(dir, "clock.txt"), "SHARD=" + filepath.Join(dir, "shard.json"), "FLOWLUA_LOG_LEVEL=debug"}
	})
}

// startClusterNode starts `flowlua run` of script as the cluster node
// name, joining join, with free HTTP and gossip ports, the environment
// env(dir) adds, and --cluster.wait-for-size=3 bounded by wait. The node
// is interrupted when the test ends; a failed test logs the end of its
// log.
func startClusterNode(t *testing.T, bin, name, script string, join []string, wait time.Duration, env func(dir string) []string) *node {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.lua"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	httpAddr, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	gossip, err := freePort() // TCP free; memberlist also binds UDP on it
	if err != nil {
		t.Fatal(err)
	}
	n := &node{name: name, dir: dir, http: httpAddr, gossip: gossip, logBuf: &strings.Builder{}, waited: make(chan error, 1)}
	n.logs = &syncWriter{w: n.logBuf}
	args := []string{"run", "--no-watch", "main.lua",
		"--cluster.enabled", "--cluster.node-name=" + name, "--cluster.listen-addr=" + gossip,
		"--cluster.wait-for-size=3", "--cluster.wait-timeout=" + wait.String()}
	if len(join) > 0 {
		args = append(args, "--cluster.join-addresses="+strings.Join(join, ","))
	}
	n.cmd = exec.Command(bin, args...)
	n.cmd.Dir = dir
	n.cmd.Env = append(append(os.Environ(), "FLOWLUA_HTTP_LISTEN_ADDR="+httpAddr, "FLOWLUA_STORAGE_PATH="+filepath.Join(dir, "data")), env(dir)...)
	n.cmd.Stdout, n.cmd.Stderr = io.Discard, n.logs
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { n.waited <- n.cmd.Wait() }()
	t.Cleanup(func() {
		n.stop(t, syscall.SIGINT)
		if t.Failed() {
			n.logs.mu.Lock()
			log := n.logBuf.String()
			n.logs.mu.Unlock()
			if len(log) > 20000 {
				log = "...\n" + log[len(log)-20000:]
			}
			t.Logf("%s's log:\n%s", name, log)
		}
	})
	return n
}

// stop sends sig and waits (bounded) for the process to exit.
func (n *node) stop(t *testing.T, sig syscall.Signal) {
	if n.cmd.ProcessState != nil || n.waited == nil {
		return
	}
	_ = n.cmd.Process.Signal(sig)
	select {
	case <-n.waited:
	case <-time.After(20 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.waited
		t.Errorf("%s did not stop within 20s of %s", n.name, sig)
	}
	n.waited = nil
}

// runs returns the node's runs of testing.clock.u as [start, stop]
// intervals (stop 0 while running).
func (n *node) runs() [][2]int64 {
	data, _ := os.ReadFile(filepath.Join(n.dir, "clock.txt"))
	var out [][2]int64
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		ts, _ := strconv.ParseInt(f[0], 10, 64)
		switch f[1] {
		case "run":
			out = append(out, [2]int64{ts, 0})
		case "stop":
			if len(out) > 0 {
				out[len(out)-1][1] = ts
			}
		}
	}
	return out
}

func (n *node) running() bool {
	r := n.runs()
	return len(r) > 0 && r[len(r)-1][1] == 0
}

func (n *node) shard() []string {
	data, _ := os.ReadFile(filepath.Join(n.dir, "shard.json"))
	var keys []string
	_ = json.Unmarshal(data, &keys)
	return keys
}

func (n *node) get(path string) (int, string, error) {
	resp, err := client.Get("http://" + n.http + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// shardsExact reports whether the nodes' shards hold every key exactly
// once, and what is duplicated or missing.
func shardsExact(nodes []*node) (ok bool, dup, missing int) {
	seen := map[string]int{}
	for _, n := range nodes {
		for _, k := range n.shard() {
			seen[k]++
		}
	}
	for i := 1; i <= 1000; i++ {
		switch seen[fmt.Sprintf("target-%d:9100", i)] {
		case 0:
			missing++
		case 1:
		default:
			dup++
		}
	}
	return dup == 0 && missing == 0 && len(seen) == 1000, dup, missing
}

func owners(nodes []*node) []string {
	var out []string
	for _, n := range nodes {
		if n.running() {
			out = append(out, n.name)
		}
	}
	return out
}

// TestClusterThreeNodes runs three flowlua processes on loopback: a
// unique component runs on exactly one, moves within 5 s when its owner
// is killed (-9) and with no overlap on a graceful leave; 1,000 keys
// passed through cluster.shard are held exactly once; a node reads its
// peers' API through its own and reports a dead one as 503 at once.
func TestClusterThreeNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three processes")
	}
	bin, err := exec.LookPath("flowlua") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	a := startNode(t, bin, "node-a", nil)
	b := startNode(t, bin, "node-b", []string{a.gossip})
	c := startNode(t, bin, "node-c", []string{a.gossip, b.gossip})
	all := []*node{a, b, c}

	// Convergence: every node sees three alive peers, one runs the unique
	// component, and the shards cover the keys exactly once.
	start := time.Now()
	waitFor(t, 30*time.Second, "three alive peers on every node", func() bool {
		for _, n := range all {
			code, body, err := n.get("/api/v0/cluster/peers")
			if err != nil || code != 200 || strings.Count(body, `"state": "alive"`) != 3 {
				return false
			}
		}
		return true
	})
	waitFor(t, 20*time.Second, "one owner and exact shards", func() bool {
		ok, _, _ := shardsExact(all)
		return ok && len(owners(all)) == 1
	})
	t.Logf("converged in %s: owner of testing.clock.u %v; shards %d/%d/%d", time.Since(start).Round(time.Millisecond),
		owners(all), len(a.shard()), len(b.shard()), len(c.shard()))
	// It stays on one node (no flapping).
	time.Sleep(300 * time.Millisecond) // a quiet period is what is checked here
	if o := owners(all); len(o) != 1 {
		t.Fatalf("owners after convergence: %v", o)
	}

	// The API: node-a shows its peers and reads node-b's components.
	code, body, err := a.get("/api/v0/cluster/peers/node-b/api/v0/components/testing.clock.u")
	if err != nil || code != 200 || !strings.Contains(body, `"placement": "unique"`) {
		t.Fatalf("proxied read of node-b: %d %v %s", code, err, body)
	}
	code, body, _ = a.get("/api/v0/cluster/peers")
	if !strings.Contains(body, `"unique_components": 1`) {
		t.Fatalf("peers without ownership counts: %d %s", code, body)
	}

	// kill -9 the owner: another node runs it within 5 s.
	ownerName := owners(all)[0]
	var victim *node
	var rest []*node
	for _, n := range all {
		if n.name == ownerName {
			victim = n
		} else {
			rest = append(rest, n)
		}
	}
	killed := time.Now()
	_ = victim.cmd.Process.Kill()
	<-victim.waited
	victim.waited = nil
	// Reading the dead peer through a live one answers 503, at once.
	t0 := time.Now()
	code, body, _ = rest[0].get("/api/v0/cluster/peers/" + victim.name + "/api/v0/components")
	proxyDead := time.Since(t0)
	if code != 503 || !strings.Contains(body, "peer "+victim.name+" is unavailable") || proxyDead > 7*time.Second {
		t.Fatalf("proxied read of the killed peer: %d in %s: %s", code, proxyDead, body)
	}
	waitFor(t, 10*time.Second, "a survivor runs testing.clock.u", func() bool { return len(owners(rest)) == 1 })
	takeover := time.Since(killed)
	t.Logf("kill -9 of %s: %s took testing.clock.u over in %s; proxied read of the dead peer: 503 in %s",
		victim.name, owners(rest)[0], takeover.Round(time.Millisecond), proxyDead.Round(time.Millisecond))
	if takeover > 5*time.Second {
		t.Errorf("takeover took %s, want at most 5s", takeover)
	}
	waitFor(t, 10*time.Second, "two nodes hold the shards exactly once", func() bool {
		ok, _, _ := shardsExact(rest)
		return ok
	})
	code, body, _ = rest[0].get("/api/v0/cluster/peers/" + victim.name + "/metrics")
	if code != 503 || !strings.Contains(body, "is dead") {
		t.Fatalf("proxied read of the peer once found dead: %d %s", code, body)
	}

	// A graceful leave of the new owner: the other takes over; their runs
	// never overlap.
	var leaver, stayer *node
	if rest[0].running() {
		leaver, stayer = rest[0], rest[1]
	} else {
		leaver, stayer = rest[1], rest[0]
	}
	left := time.Now()
	leaver.stop(t, syscall.SIGTERM)
	waitFor(t, 10*time.Second, "the last node runs testing.clock.u", stayer.running)
	gap, overlap := handover(leaver.runs(), stayer.runs())
	t.Logf("graceful leave of %s: %s runs it %s after SIGTERM; overlap %s, gap %s",
		leaver.name, stayer.name, time.Since(left).Round(time.Millisecond), overlap, gap)
	if overlap > 0 {
		t.Errorf("both ran testing.clock.u for %s during a graceful leave", overlap)
	}
	waitFor(t, 10*time.Second, "the last node holds every key", func() bool {
		ok, _, _ := shardsExact([]*node{stayer})
		return ok
	})
}

// handover measures, between the leaver's last run and the stayer's last
// run, the gap (no node ran) or the overlap (both ran).
func handover(leaver, stayer [][2]int64) (gap, overlap time.Duration) {
	if len(leaver) == 0 || len(stayer) == 0 {
		return 0, 0
	}
	l, s := leaver[len(leaver)-1], stayer[len(stayer)-1]
	if l[1] == 0 {
		return 0, time.Duration(1<<62 - 1)
	}
	d := time.Duration(s[0] - l[1])
	if d >= 0 {
		return d, 0
	}
	return 0, -d
}
