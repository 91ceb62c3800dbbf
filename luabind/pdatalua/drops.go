package pdatalua

import (
	lua "github.com/yuin/gopher-lua"
)

// Drops are marks, applied once with RemoveIf when the callback returns (or
// when the batch is unwrapped): indexes and handles stay valid during the
// callback, whatever the script does, breaking out of a loop included.

// markKey names one list of marks: the resources of the batch {-1, -1, -1},
// the scopes of resource r {r, -1, -1}, the items (spans, records, metrics)
// of scope (r, s) {r, s, -1}, the data points of metric (r, s, m) {r, s, m}.
type markKey struct{ r, s, m int32 }

var resourcesKey = markKey{-1, -1, -1}

func scopesKey(r int) markKey       { return markKey{int32(r), -1, -1} }
func itemsKey(r, s int) markKey     { return markKey{int32(r), int32(s), -1} }
func pointsKey(r, s, m int) markKey { return markKey{int32(r), int32(s), int32(m)} }

type bitset []uint64

func (bs bitset) has(i int) bool {
	w := i >> 6
	return i >= 0 && w < len(bs) && bs[w]&(1<<(uint(i)&63)) != 0
}

// drops are the marks of one batch.
type drops struct {
	sets map[markKey]*bitset
	// the last set marked, since drops come in runs
	lastKey markKey
	last    *bitset
}

func (d *drops) mark(k markKey, i int) {
	bs := d.last
	if bs == nil || k != d.lastKey {
		if d.sets == nil {
			d.sets = make(map[markKey]*bitset)
		}
		bs = d.sets[k]
		if bs == nil {
			bs = new(bitset)
			d.sets[k] = bs
		}
		d.lastKey, d.last = k, bs
	}
	w := i >> 6
	for len(*bs) <= w {
		*bs = append(*bs, 0)
	}
	(*bs)[w] |= 1 << (uint(i) & 63)
}

// get returns the marks of k, nil if none.
func (d *drops) get(k markKey) bitset {
	if bs := d.sets[k]; bs != nil {
		return *bs
	}
	return nil
}

func (d *drops) has(k markKey, i int) bool {
	return d.get(k).has(i)
}

func (d *drops) empty() bool { return len(d.sets) == 0 }

func (d *drops) reset() {
	clear(d.sets)
	d.last = nil
}

// dropped reports whether the item at (r, s, i) or its scope or resource is
// marked; pass m = -1 for spans, records and metrics.
func (d *drops) dropped(r, s, m, i int) bool {
	if d.empty() {
		return false
	}
	if d.has(resourcesKey, r) || d.has(scopesKey(r), s) {
		return true
	}
	if m < 0 {
		return d.has(itemsKey(r, s), i)
	}
	return d.has(itemsKey(r, s), m) || d.has(pointsKey(r, s, m), i)
}

// markDrop marks an item of the batch of h for removal.
func markDrop(L *lua.LState, h *handle, k markKey, i int) {
	h.b.writable(L)
	h.b.drops.mark(k, i)
}

// emptied reports whether applying the drops removes a container that now
// holds n items: it is empty, and it lost items or remove_empty was called.
// Containers a script left empty without dropping anything stay.
func (b *Batch) emptied(lost bool, n int) bool {
	return n == 0 && (lost || b.removeEmpty)
}
