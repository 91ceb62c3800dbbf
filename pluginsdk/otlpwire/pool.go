package otlpwire

import (
	"slices"
	"sync"

	"google.golang.org/grpc/mem"
)

// bufferTiers are the capacities of the pooled buffers: 256 bytes, 4 KiB,
// then every power of two from 16 KiB to 64 MiB and one and a half times
// each. pdata's codec has eight tiers up to 16 MiB (32 KiB, 512 KiB, 1, 4,
// 16 MiB), so that a 4.2 MiB batch of 8192 realistic spans is written into
// a 16 MiB buffer, which a pool keeps, and the garbage collector counts,
// until the next collection but one; here it takes 6 MiB. A buffer is at
// most half as large again as what it holds.
var bufferTiers = func() []int {
	tiers := []int{256, 4 << 10}
	for k := 14; k <= 26; k++ {
		tiers = append(tiers, 1<<k, 3<<(k-1))
	}
	return tiers[:len(tiers)-1] // up to 64 MiB
}()

// bufferPool holds the buffers a request is copied into to be decoded,
// and those a request is encoded into.
var bufferPool = newOverwritePool(bufferTiers)

// overwritePool is a tiered mem.BufferPool whose buffers are not cleared
// when they are taken again: gRPC's tiered pool clears a buffer's whole
// capacity on every Get (half a megabyte for an exporter's batch), which
// only matters when the taker may read bytes it did not write. Every user
// of this pool overwrites the length it asks for before anything reads
// it: the copy of a received request, or an encoded request.
type overwritePool struct {
	tiers []int
	pools []sync.Pool
}

func newOverwritePool(tiers []int) *overwritePool {
	return &overwritePool{tiers: tiers, pools: make([]sync.Pool, len(tiers))}
}

var _ mem.BufferPool = (*overwritePool)(nil)

// Get returns a buffer of length size, with the capacity of its tier.
func (p *overwritePool) Get(size int) *[]byte {
	i, _ := slices.BinarySearch(p.tiers, size)
	if i == len(p.tiers) {
		b := make([]byte, size)
		return &b
	}
	if b, ok := p.pools[i].Get().(*[]byte); ok {
		*b = (*b)[:size]
		return b
	}
	b := make([]byte, size, p.tiers[i])
	return &b
}

// Put keeps a buffer of a tier's capacity for the next Get.
func (p *overwritePool) Put(b *[]byte) {
	if i, ok := slices.BinarySearch(p.tiers, cap(*b)); ok {
		p.pools[i].Put(b)
	}
}
