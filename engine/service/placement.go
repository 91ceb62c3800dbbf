package service

// Placement decides which node of a cluster runs what. The cluster service
// implements it; the engine finds it among the process's services, so that
// it imports no cluster code. Without clustering there is one node, which
// owns every key.
//
// Keys are strings: a component's id for `placement = "unique"` (a module
// instance's id for the components of a unique instance), and the keys of
// the items of `cluster.shard(list, ...)`. Every node computes the same
// owner for a key from the same membership (consistent hashing), so no
// node needs to ask another.
type Placement interface {
	// Owns reports whether this node owns key now. While the node waits
	// for its cluster (joining, or --cluster.wait-for-size), it owns
	// nothing. It is cheap and safe for concurrent use.
	Owns(key string) bool
	// Owner returns the name of the node that owns key, or "" while this
	// node waits for its cluster. Safe for concurrent use.
	Owner(key string) string
	// Changed receives (coalesced) after each change of the membership
	// that may move keys, and once when the node stops waiting for its
	// cluster. There is one receiver: the engine.
	Changed() <-chan struct{}
}

// UniquePlacement is a Placement that places `placement = "unique"`
// components only on the nodes whose loaded script declares them: a node
// that lacks a component (an older script during a rolling deploy, or a
// member that is not flowlua at all) never takes it, whatever its name.
// The engine uses it, when the placement service implements it, for
// unique components; Owns and Owner still place cluster.shard's keys on
// every member.
type UniquePlacement interface {
	Placement
	// DeclareUnique sets the keys of the unique components (and unique
	// module instances) the node's loaded script holds; the engine calls
	// it on each load, before the new components run.
	DeclareUnique(keys []string)
	// OwnsUnique reports whether this node runs the unique component of
	// key. Safe for concurrent use.
	OwnsUnique(key string) bool
	// UniqueOwner returns the node that runs it, "" while waiting for the
	// cluster or when no node declares it. Safe for concurrent use.
	UniqueOwner(key string) string
}
