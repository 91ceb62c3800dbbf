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
