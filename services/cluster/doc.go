// Package cluster is the cluster service: the nodes of a flowlua cluster
// find each other by gossip (github.com/hashicorp/memberlist, which also
// detects failures) and agree, without asking each other, on which node
// owns what: a key belongs to the live member with the highest rendezvous
// hash of (member, key) (ownership.go). The service implements
// service.Placement, through which the engine places `placement =
// "unique"` components and evaluates `cluster.shard(...)`.
//
// Its life:
//
//  1. New creates it. Without --cluster.enabled it is one node that owns
//     every key, and Run only waits: nothing else changes.
//  2. Run binds the gossip address, joins --cluster.join-addresses
//     (retrying in the background while alone), and leaves the cluster
//     when its context ends, after every component stopped (services stop
//     last): a graceful leave hands unique work over with no overlap.
//  3. Until the first join attempt returned and --cluster.wait-for-size
//     peers are known (or --cluster.wait-timeout passed), the node owns
//     nothing: a starting node never runs a unique component that a
//     running peer already runs.
//  4. Each join, leave or failure changes the view; Changed tells the
//     engine, which moves unique components and re-evaluates shards.
//
// A unique component's key is placed among the live members whose loaded
// script declares it only: each node gossips the unique keys of its
// script (digests in its memberlist metadata, refreshed on reload), so a
// node that lacks a component never takes it, whatever its name.
//
// Failure detection is tuned so that a dead node's keys move within 5 s
// (see gossipConfig). Gossip is encrypted and authenticated with a shared
// key (--cluster.secret-key-file); without one it is allowed on loopback
// only, unless --cluster.insecure says otherwise. The HTTP API under
// /api/v0/cluster/ lists the peers and proxies reads of a peer's API
// (api.go): to members only, at their own address, one hop at most,
// without the caller's credentials, over TLS when the http service
// serves TLS.
package cluster
