//go:build flowlua_minimal

package cluster

import "context"

// gossipBuilt reports whether this build can join a cluster. The
// flowlua_minimal build cannot: it has no component that shards work
// (the Prometheus receiver, whose targets cluster.shard splits, is in
// the default build only), and memberlist, with the DNS, msgpack and
// metrics packages it links, adds 1.5 MB to the resident memory of an
// idle process. Without --cluster.enabled the service is the single node
// that owns every key, as in every build.
const gossipBuilt = false

// membership is empty: there is no gossip.
type membership struct{}

// started reports false: nothing gossips.
func (membership) started() bool { return false }

// gossip is never called (New refuses --cluster.enabled).
func (s *Service) gossip(context.Context) error { return errNoGossip }

// announce does nothing: there are no peers.
func (s *Service) announce() {}

// suspects returns nothing: there are no peers.
func (s *Service) suspects() map[string]bool { return nil }
