package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/flowlua/flowlua/services"
)

// Gossip that other machines reach needs a key, or --cluster.insecure,
// which warns; loopback gossip needs neither.
func TestGossipOffLoopbackNeedsAKey(t *testing.T) {
	newWith := func(co services.ClusterOptions) (string, error) {
		var log bytes.Buffer
		co.Enabled, co.NodeName = true, "node-a"
		_, err := New(services.Options{Cluster: co, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		return log.String(), err
	}
	for _, co := range []services.ClusterOptions{
		{ListenAddr: "0.0.0.0:7946"},
		{ListenAddr: ":7946"},
		{ListenAddr: "10.1.2.3:7946"},
		{ListenAddr: "127.0.0.1:7946", AdvertiseAddr: "10.1.2.3:7946"},
	} {
		_, err := newWith(co)
		if err == nil || !strings.Contains(err.Error(), "--cluster.secret-key-file") || !strings.Contains(err.Error(), "--cluster.insecure") {
			t.Errorf("%+v without a key: %v", co, err)
		}
		co.Insecure = true
		log, err := newWith(co)
		if err != nil || !strings.Contains(log, "level=WARN") || !strings.Contains(log, "--cluster.insecure") {
			t.Errorf("%+v with --cluster.insecure: %v, log %q", co, err, log)
		}
		co.Insecure, co.SecretKey = false, bytes.Repeat([]byte("k"), 32)
		if log, err := newWith(co); err != nil || log != "" {
			t.Errorf("%+v with a key: %v, log %q", co, err, log)
		}
	}
	for _, addr := range []string{"127.0.0.1:7946", "[::1]:7946", "localhost:7946"} {
		if log, err := newWith(services.ClusterOptions{ListenAddr: addr}); err != nil || log != "" {
			t.Errorf("loopback %s without a key: %v, log %q", addr, err, log)
		}
	}
}

// freeGossipAddr returns a loopback address whose TCP port is free.
func freeGossipAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startNode runs a cluster service on loopback until the test ends.
func startNode(t *testing.T, name string, key []byte, join ...string) *Service {
	t.Helper()
	s, err := New(services.Options{
		HTTPListenAddr: "127.0.0.1:1",
		Cluster: services.ClusterOptions{
			Enabled: true, NodeName: name, ListenAddr: freeGossipAddr(t), JoinAddresses: join, SecretKey: key,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Run(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, 5*time.Second, name+" gossiping", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.members.started()
	})
	return s
}

// rogueMeta is the metadata a rogue member gossips.
type rogueMeta []byte

func (m rogueMeta) NodeMeta(int) []byte           { return m }
func (rogueMeta) NotifyMsg([]byte)                {}
func (rogueMeta) GetBroadcasts(int, int) [][]byte { return nil }
func (rogueMeta) LocalState(bool) []byte          { return nil }
func (rogueMeta) MergeRemoteState([]byte, bool)   {}

// rogue is a memberlist node that is not flowlua: it gossips meta.
func rogue(t *testing.T, name string, key []byte, meta string) *memberlist.Memberlist {
	t.Helper()
	host, port, _ := net.SplitHostPort(freeGossipAddr(t))
	cfg := memberlist.DefaultLocalConfig()
	cfg.Name, cfg.BindAddr = name, host
	cfg.BindPort, _ = strconv.Atoi(port)
	cfg.AdvertiseAddr, cfg.AdvertisePort = host, cfg.BindPort
	cfg.SecretKey = key
	cfg.Delegate = rogueMeta(meta)
	cfg.LogOutput = io.Discard
	ml, err := memberlist.Create(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ml.Shutdown() })
	return ml
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Service) sees(name string) bool {
	for _, p := range s.Peers() {
		if p.Name == name && p.State == "alive" {
			return true
		}
	}
	return false
}

// places reports whether s's placement view holds exactly members.
func (s *Service) places(members ...string) bool {
	v := s.cur.Load()
	if v == nil {
		return false
	}
	want := slices.Sorted(slices.Values(members))
	return slices.Equal(v.members, want)
}

// A member without the cluster's key cannot join it; one with the key
// can (the rogue is able to join at all).
func TestRogueCannotJoinKeyedCluster(t *testing.T) {
	key := bytes.Repeat([]byte("0123456789abcdef"), 2)
	a := startNode(t, "node-a", key)
	addr := a.opts.ListenAddr

	ml := rogue(t, "rogue", nil, `{"http":"127.0.0.1:1"}`)
	if n, err := ml.Join([]string{addr}); err == nil || n != 0 {
		t.Errorf("a rogue without the key joined %d: %v", n, err)
	}
	keyed := rogue(t, "keyed", key, `{"http":"127.0.0.1:1"}`)
	if n, err := keyed.Join([]string{addr}); err != nil || n != 1 {
		t.Fatalf("a member with the key: joined %d: %v", n, err)
	}
	waitFor(t, 5*time.Second, "the keyed member alive on node-a", func() bool { return a.sees("keyed") })
	if a.sees("rogue") || len(ml.Members()) != 1 {
		t.Errorf("the rogue is a member: node-a sees it %v, it sees %d members", a.sees("rogue"), len(ml.Members()))
	}
}

// winner returns a name that wins key's hash against every one of others.
func winner(t *testing.T, prefix, key string, others ...string) string {
	for i := 0; i < 10000; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		if OwnerAmong(append([]string{name}, others...), key) == name {
			return name
		}
	}
	t.Fatal("no winning name")
	return ""
}

// A unique component runs only on the members that declare it: neither
// a rogue member nor a flowlua whose script lacks it takes it, though
// its name wins the hash; once that node declares it (a reload), it
// does, and gives it back when it stops declaring it.
func TestUniqueOnlyWhereDeclared(t *testing.T) {
	const key = "testing.clock.u"
	a := startNode(t, "node-a", nil)
	a.DeclareUnique([]string{key, "other.unique.x"})
	if !a.OwnsUnique(key) || a.UniqueOwner(key) != "node-a" {
		t.Fatalf("alone, node-a does not own %s: %q", key, a.UniqueOwner(key))
	}

	name := winner(t, "rogue", key, "node-a")
	ml := rogue(t, name, nil, `{"http":"127.0.0.1:1"}`)
	if _, err := ml.Join([]string{a.opts.ListenAddr}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "node-a placing among itself and the rogue", func() bool { return a.places("node-a", name) })
	if a.Owner(key) != name {
		t.Fatalf("the rogue's name %s does not win %s among all members: %s", name, key, a.Owner(key))
	}
	if !a.OwnsUnique(key) || a.UniqueOwner(key) != "node-a" {
		t.Errorf("with rogue %s, %s is owned by %q", name, key, a.UniqueOwner(key))
	}

	bName := winner(t, "node-b", key, "node-a", name)
	b := startNode(t, bName, nil, a.opts.ListenAddr)
	b.DeclareUnique(nil)
	waitFor(t, 15*time.Second, "both nodes placing among node-a, the rogue and "+bName, func() bool {
		return a.places("node-a", name, bName) && b.places("node-a", name, bName)
	})
	for _, s := range []*Service{a, b} {
		if o := s.UniqueOwner(key); o != "node-a" {
			t.Errorf("%s: %s owned by %q while %s does not declare it", s.self, key, o, bName)
		}
	}
	if b.OwnsUnique(key) {
		t.Errorf("%s owns %s without declaring it", bName, key)
	}

	b.DeclareUnique([]string{key})
	waitFor(t, 15*time.Second, bName+" owning "+key+" on both nodes", func() bool {
		return a.UniqueOwner(key) == bName && b.UniqueOwner(key) == bName && b.OwnsUnique(key) && !a.OwnsUnique(key)
	})
	if a.UniqueOwner("other.unique.x") != "node-a" {
		t.Errorf("other.unique.x moved to %q", a.UniqueOwner("other.unique.x"))
	}
	b.DeclareUnique(nil)
	waitFor(t, 15*time.Second, "node-a owning "+key+" again on both nodes", func() bool {
		return a.UniqueOwner(key) == "node-a" && b.UniqueOwner(key) == "node-a" && a.OwnsUnique(key)
	})
}

// A declaration round-trips through its encoding, and one too long for
// the node's metadata declares every key, with a warning.
func TestDeclaredEncoding(t *testing.T) {
	keys := []string{"a.b.c", "otelcol.receiver.prometheus.default", "mod.x"}
	set := decodeDeclared(encodeDeclared(keys))
	for _, k := range keys {
		if !set.digests[keyDigest(k)] {
			t.Errorf("%s not declared", k)
		}
	}
	if set.digests[keyDigest("a.b.d")] || len(set.digests) != 3 {
		t.Errorf("declared: %v", set.digests)
	}
	if d := decodeDeclared("!!"); d.all || len(d.digests) != 0 {
		t.Errorf("garbage declares %+v", d)
	}
	var log bytes.Buffer
	s, err := New(services.Options{HTTPListenAddr: "127.0.0.1:12345", Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Cluster: services.ClusterOptions{Enabled: true, NodeName: "n", ListenAddr: "127.0.0.1:7946"}})
	if err != nil {
		t.Fatal(err)
	}
	fits := s.declareRoom() * 3 / 4 / digestBytes
	if fits < 40 {
		t.Errorf("only %d unique components fit the metadata", fits)
	}
	many := make([]string, fits+1)
	for i := range many {
		many[i] = fmt.Sprintf("testing.clock.c%d", i)
	}
	s.DeclareUnique(many[:fits])
	meta := (&delegate{s}).NodeMeta(metaLimit)
	var m nodeMeta
	if err := json.Unmarshal(meta, &m); err != nil || m.Unique == declaredAll || len(meta) > metaLimit {
		t.Errorf("%d keys: meta %s (%v)", fits, meta, err)
	}
	s.DeclareUnique(many)
	meta = (&delegate{s}).NodeMeta(metaLimit)
	if err := json.Unmarshal(meta, &m); err != nil || m.Unique != declaredAll || !strings.Contains(log.String(), "too many unique components") {
		t.Errorf("%d keys: meta %s (%v), log %s", len(many), meta, err, log.String())
	}
	t.Logf("the gossiped metadata declares up to %d unique components", fits)
}
