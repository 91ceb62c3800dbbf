package cluster

import (
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"maps"
	"slices"
)

// view is one membership: the names of the live nodes, sorted, and the
// unique keys each declares. Ownership is rendezvous (highest random
// weight) hashing: a key belongs to the member with the highest hash of
// (member, key). Every node computes the same owner from the same
// membership, and when a member joins or leaves only the keys it wins or
// held move: about 1/N of them.
//
// A unique component's key is placed the same way, among the members
// whose script declares it only: a node that lacks the component (an
// older script during a rolling deploy, or a node that is not flowlua)
// never takes it, whatever its name.
type view struct {
	members []string
	// declared is each member's declaration as gossiped (see
	// encodeDeclared); sets holds it decoded.
	declared map[string]string
	sets     map[string]declaredSet
}

// declaredSet is the unique keys a member declares: digests of the keys,
// or every key (all) when the list did not fit its gossip.
type declaredSet struct {
	all     bool
	digests map[uint64]bool
}

func newView(members []string) *view {
	return newViewDeclared(members, nil)
}

// newViewDeclared returns the view of members, declared giving the
// encoded declaration of each (a member absent from it declares none).
func newViewDeclared(members []string, declared map[string]string) *view {
	m := slices.Clone(members)
	slices.Sort(m)
	v := &view{members: slices.Compact(m), declared: map[string]string{}, sets: map[string]declaredSet{}}
	for _, name := range v.members {
		if d, ok := declared[name]; ok && d != "" {
			v.declared[name] = d
			v.sets[name] = decodeDeclared(d)
		}
	}
	return v
}

// equal reports whether two views place every key the same.
func (v *view) equal(o *view) bool {
	return slices.Equal(v.members, o.members) && maps.Equal(v.declared, o.declared)
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

// uniqueOwner returns the member that runs the unique component of key:
// the one with the highest hash among the members that declare it, ""
// when none does.
func (v *view) uniqueOwner(key string) string {
	d := keyDigest(key)
	best, bestW := "", uint64(0)
	for _, m := range v.members {
		set, ok := v.sets[m]
		if !ok || !set.all && !set.digests[d] {
			continue
		}
		w := weight(m, key)
		if best == "" || w > bestW || (w == bestW && m < best) {
			best, bestW = m, w
		}
	}
	return best
}

// OwnerAmong returns which of members owns key by the rendezvous hash
// every node computes, all of them declaring it: the node a unique
// component with that id runs on.
func OwnerAmong(members []string, key string) string {
	return newView(members).owner(key)
}

// weight is the rendezvous weight of key on member: FNV-1a of both,
// separated so that ("ab","c") and ("a","bc") differ, then mixed
// (splitmix64's finalizer) so that similar inputs spread evenly.
func weight(member, key string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(member))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(key))
	return mix(h.Sum64())
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// digestBytes is the size of a declared key's digest in the gossip: 48
// bits, so that a collision between the few unique ids of a script is
// out of reach, and 48 of them fit memberlist's 512 bytes of metadata.
const digestBytes = 6

// declaredAll is the declaration of a node whose list did not fit.
const declaredAll = "*"

// keyDigest is the digest of a unique key as declarations carry it.
func keyDigest(key string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return mix(h.Sum64()) >> (64 - 8*digestBytes)
}

// encodeDeclared encodes declared keys compactly for the node metadata:
// the sorted digests, digestBytes each, in unpadded base64.
func encodeDeclared(keys []string) string {
	ds := make([]uint64, 0, len(keys))
	for _, k := range keys {
		ds = append(ds, keyDigest(k))
	}
	slices.Sort(ds)
	ds = slices.Compact(ds)
	b := make([]byte, 0, len(ds)*digestBytes)
	var buf [8]byte
	for _, d := range ds {
		binary.BigEndian.PutUint64(buf[:], d)
		b = append(b, buf[8-digestBytes:]...)
	}
	return base64.RawStdEncoding.EncodeToString(b)
}

// decodeDeclared decodes a declaration; one that does not decode
// declares nothing.
func decodeDeclared(s string) declaredSet {
	if s == declaredAll {
		return declaredSet{all: true}
	}
	set := declaredSet{digests: map[uint64]bool{}}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(b)%digestBytes != 0 {
		return set
	}
	var buf [8]byte
	for i := 0; i < len(b); i += digestBytes {
		copy(buf[8-digestBytes:], b[i:i+digestBytes])
		set.digests[binary.BigEndian.Uint64(buf[:])] = true
	}
	return set
}
