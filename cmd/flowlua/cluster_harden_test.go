package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/memberlist"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/flowlua/flowlua/services/cluster"
)

func init() {
	scriptCmds["httpsend"] = cmdHTTPSend
}

// httpsend METHOD [-status=N] [-host=HOST] [-H Name:Value]... URL: one
// request with the headers given (and Host); the body goes to stdout, the
// answer's headers to stderr ("Name: value" lines, sorted). Without
// -status any 2xx passes.
func cmdHTTPSend(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: httpsend METHOD [-status=N] [-host=HOST] [-H Name:Value]... URL"
	if neg || len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	method, args := args[0], args[1:]
	want, host := 0, ""
	hdr := http.Header{}
	for len(args) > 1 {
		switch a := args[0]; {
		case strings.HasPrefix(a, "-status="):
			n, err := strconv.Atoi(strings.TrimPrefix(a, "-status="))
			ts.Check(err)
			want, args = n, args[1:]
		case strings.HasPrefix(a, "-host="):
			host, args = strings.TrimPrefix(a, "-host="), args[1:]
		case a == "-H":
			k, v, ok := strings.Cut(args[1], ":")
			if !ok {
				ts.Fatalf("%s", usage)
			}
			hdr.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			args = args[2:]
		default:
			ts.Fatalf("%s", usage)
		}
	}
	if len(args) != 1 {
		ts.Fatalf("%s", usage)
	}
	req, err := http.NewRequest(method, args[0], nil)
	ts.Check(err)
	req.Header = hdr
	if host != "" {
		req.Host = host
	}
	resp, err := client.Do(req)
	if err != nil {
		ts.Fatalf("%s %s: %v", method, args[0], err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprint(ts.Stdout(), string(body))
	names := slices.Sorted(maps.Keys(resp.Header))
	for _, k := range names {
		for _, v := range resp.Header[k] {
			fmt.Fprintf(ts.Stderr(), "%s: %s\n", k, v)
		}
	}
	ok := resp.StatusCode/100 == 2
	if want != 0 {
		ok = resp.StatusCode == want
	}
	if !ok {
		ts.Fatalf("%s %s: unexpected status %d: %s", method, args[0], resp.StatusCode, body)
	}
}

// Gossip on an address other machines reach, without a key, is refused
// at start with exit code 1 and the flags named; loopback is not.
func TestClusterGossipNeedsKey(t *testing.T) {
	bin, err := exec.LookPath("flowlua")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.lua"), []byte(`testing.clock "u" { file = "clock.txt", placement = "unique" }`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	httpAddr, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--no-watch", "main.lua", "--cluster.enabled", "--cluster.listen-addr=127.0.0.1:0", "--cluster.advertise-addr=192.0.2.10:7946")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FLOWLUA_HTTP_LISTEN_ADDR="+httpAddr, "FLOWLUA_STORAGE_PATH="+filepath.Join(dir, "data"))
	timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1; output:\n%s", err, out)
	}
	for _, want := range []string{"192.0.2.10:7946", "without --cluster.secret-key-file", "--cluster.insecure"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "clock.txt")); err == nil {
		t.Error("a refused node ran its unique component")
	}
}

// rogueMember is a memberlist node that is not flowlua, gossiping meta.
type rogueMember []byte

func (m rogueMember) NodeMeta(int) []byte           { return m }
func (rogueMember) NotifyMsg([]byte)                {}
func (rogueMember) GetBroadcasts(int, int) [][]byte { return nil }
func (rogueMember) LocalState(bool) []byte          { return nil }
func (rogueMember) MergeRemoteState([]byte, bool)   {}

// winningName returns a name that wins key's rendezvous hash against
// others.
func winningName(t *testing.T, prefix, key string, others ...string) string {
	t.Helper()
	for i := 0; i < 100000; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		if cluster.OwnerAmong(append([]string{name}, others...), key) == name {
			return name
		}
	}
	t.Fatal("no winning name")
	return ""
}

const noUniqueScript = `
local keys = {}
for i = 1, 1000 do keys[i] = "target-" .. i .. ":9100" end
testing.shard "s" { file = env("SHARD"), keys = cluster.shard(keys) }
`

// With --cluster.insecure, neither a second flowlua whose script lacks
// the unique component nor a rogue memberlist node takes it, though
// their names win its hash: the node that declares it keeps running it.
// Once the second node's script declares it (a reload), it takes it.
func TestClusterUniqueOnlyWhereDeclared(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	bin, err := exec.LookPath("flowlua")
	if err != nil {
		t.Fatal(err)
	}
	const key = "testing.clock.u"
	env := func(dir string) []string {
		return []string{"CLOCK=" + filepath.Join(dir, "clock.txt"), "SHARD=" + filepath.Join(dir, "shard.json"), "FLOWLUA_CLUSTER_INSECURE=true"}
	}
	bName := winningName(t, "node-b", key, "node-a")
	a := startClusterNode(t, bin, "node-a", clusterScript, nil, time.Second, env)
	b := startClusterNode(t, bin, bName, noUniqueScript, []string{a.gossip}, time.Second, env)
	waitFor(t, 30*time.Second, "two alive peers on both nodes", func() bool {
		for _, n := range []*node{a, b} {
			code, body, err := n.get("/api/v0/cluster/peers")
			if err != nil || code != 200 || strings.Count(body, `"state": "alive"`) != 2 {
				return false
			}
		}
		return true
	})

	// A rogue member whose name wins among all three.
	rName := winningName(t, "rogue", key, "node-a", bName)
	host, port, _ := net.SplitHostPort(freeGossip(t))
	cfg := memberlist.DefaultLocalConfig()
	cfg.Name, cfg.BindAddr = rName, host
	cfg.BindPort, _ = strconv.Atoi(port)
	cfg.AdvertiseAddr, cfg.AdvertisePort = host, cfg.BindPort
	cfg.Delegate = rogueMember(`{"http":"` + a.http + `"}`)
	cfg.LogOutput = io.Discard
	ml, err := memberlist.Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ml.Shutdown()
	if _, err := ml.Join([]string{a.gossip}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "three alive peers on node-a", func() bool {
		code, body, err := a.get("/api/v0/cluster/peers")
		return err == nil && code == 200 && strings.Count(body, `"state": "alive"`) == 3
	})
	waitFor(t, 20*time.Second, "node-a running "+key, a.running)
	time.Sleep(500 * time.Millisecond) // a quiet period is what is checked here
	code, body, _ := a.get("/api/v0/components/" + key)
	if !a.running() || len(a.runs()) != 1 || !strings.Contains(body, `"owner": "node-a"`) || strings.Contains(body, "standby") {
		t.Fatalf("with %s and %s joined, node-a runs %s %v: %d %s", bName, rName, key, a.runs(), code, body)
	}
	t.Logf("%s and %s win the hash of %s, declare nothing, and take nothing", bName, rName, key)

	// node-b's script gains the component: node-b takes it over, after
	// node-a stopped it.
	if err := os.WriteFile(filepath.Join(b.dir, "main.lua"), []byte(clusterScript), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := client.Post("http://"+b.http+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reload of node-b: %v %v", resp, err)
	}
	resp.Body.Close()
	waitFor(t, 10*time.Second, bName+" running "+key+" and node-a not", func() bool { return b.running() && !a.running() })
	gap, overlap := handover(a.runs(), b.runs())
	t.Logf("after %s's reload it runs %s: gap %s, overlap %s", bName, key, gap, overlap)
}

// freeGossip returns a free loopback port for a memberlist node.
func freeGossip(t *testing.T) string {
	t.Helper()
	addr, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}
