package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/flowlua/flowlua/services"
)

// clusterFlags are the flags of the cluster service (SPEC section 7).
type clusterFlags struct {
	ClusterEnabled       bool          `name:"cluster.enabled" env:"FLOWLUA_CLUSTER_ENABLED" help:"Join a cluster: unique components run on one node, cluster.shard splits work."`
	ClusterNodeName      string        `name:"cluster.node-name" env:"FLOWLUA_CLUSTER_NODE_NAME" help:"This node's name in the cluster (default: the hostname)."`
	ClusterListenAddr    string        `name:"cluster.listen-addr" default:"127.0.0.1:7946" env:"FLOWLUA_CLUSTER_LISTEN_ADDR" help:"Address gossip binds (TCP and UDP)."`
	ClusterAdvertiseAddr string        `name:"cluster.advertise-addr" env:"FLOWLUA_CLUSTER_ADVERTISE_ADDR" help:"Address peers reach this node's gossip at (default: the listen address)."`
	ClusterJoinAddresses []string      `name:"cluster.join-addresses" sep:"," env:"FLOWLUA_CLUSTER_JOIN_ADDRESSES" help:"Gossip addresses of peers to join (comma-separated)."`
	ClusterWaitForSize   int           `name:"cluster.wait-for-size" default:"0" env:"FLOWLUA_CLUSTER_WAIT_FOR_SIZE" help:"Place no unique components or shards until this many nodes (this one included) are known, or --cluster.wait-timeout passed."`
	ClusterWaitTimeout   time.Duration `name:"cluster.wait-timeout" default:"1m" env:"FLOWLUA_CLUSTER_WAIT_TIMEOUT" help:"How long --cluster.wait-for-size waits at most (0: no limit)."`
	ClusterSecretKeyFile string        `name:"cluster.secret-key-file" type:"path" env:"FLOWLUA_CLUSTER_SECRET_KEY_FILE" help:"File holding the gossip key shared by every node: 16, 24 or 32 bytes, raw or base64. Gossip is encrypted and authenticated with it."`
	ClusterInsecure      bool          `name:"cluster.insecure" env:"FLOWLUA_CLUSTER_INSECURE" help:"Gossip without --cluster.secret-key-file on an address other than loopback: anyone who reaches the gossip port joins the cluster, takes unique components it declares and is reached by the peer proxy."`
}

// options turns the flags into the cluster service's options.
func (f *clusterFlags) options() (services.ClusterOptions, error) {
	o := services.ClusterOptions{
		Enabled:       f.ClusterEnabled,
		NodeName:      f.ClusterNodeName,
		ListenAddr:    f.ClusterListenAddr,
		AdvertiseAddr: f.ClusterAdvertiseAddr,
		JoinAddresses: f.ClusterJoinAddresses,
		WaitForSize:   f.ClusterWaitForSize,
		WaitTimeout:   f.ClusterWaitTimeout,
		Insecure:      f.ClusterInsecure,
	}
	if f.ClusterWaitForSize < 0 {
		return o, fmt.Errorf("--cluster.wait-for-size must not be negative, got %d", f.ClusterWaitForSize)
	}
	if f.ClusterSecretKeyFile != "" {
		key, err := readGossipKey(f.ClusterSecretKeyFile)
		if err != nil {
			return o, err
		}
		o.SecretKey = key
	}
	return o, nil
}

// readGossipKey reads a gossip key: 16, 24 or 32 bytes, or their base64.
func readGossipKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--cluster.secret-key-file: %w", err)
	}
	text := strings.TrimSpace(string(b))
	if k, err := base64.StdEncoding.DecodeString(text); err == nil && validKeyLen(len(k)) {
		return k, nil
	}
	if validKeyLen(len(text)) {
		return []byte(text), nil
	}
	return nil, fmt.Errorf("--cluster.secret-key-file %s: want 16, 24 or 32 bytes, raw or base64 (e.g. openssl rand -base64 32)", path)
}

func validKeyLen(n int) bool { return n == 16 || n == 24 || n == 32 }
