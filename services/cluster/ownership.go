package cluster

import (
	"hash/fnv"
	"slices"
)

// view is one membership: the names of the live nodes, sorted. Ownership
// is rendezvous (highest random weight) hashing: a key belongs to the
// member with the highest hash of (member, key). Every node computes the
// same owner from the same membership, and when a member joins or leaves
// only the keys it wins or held move: about 1/N of them.
type view struct {
	members []string
}

func newView(members []string) *view {
	m := slices.Clone(members)
	slices.Sort(m)
	return &view{members: slices.Compact(m)}
}

// owner returns the member that owns key, or "" for an empty view.
func (v *view) owner(key string) string {
	best, bestW := "", uint64(0)
	for _, m := range v.members {
		w := weight(m, key)
		if best == "" || w > bestW || (w == bestW && m < best) {
			best, bestW = m, w
		}
	}
	return best
}

// weight is the rendezvous weight of key on member: FNV-1a of both,
// separated so that ("ab","c") and ("a","bc") differ, then mixed
// (splitmix64's finalizer) so that similar inputs spread evenly.
func weight(member, key string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(member))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(key))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
