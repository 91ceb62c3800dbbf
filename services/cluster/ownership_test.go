package cluster

import (
	"fmt"
	"testing"
)

// TestOwnershipMoves spreads 10,000 keys over 3, then 4, then 3 members:
// each key has exactly one owner at each membership, the shares are even,
// and a join or a leave moves about 1/N of the keys, only to the joiner
// or away from the leaver.
func TestOwnershipMoves(t *testing.T) {
	const n = 10000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("target-%d:9100", i)
	}
	owners := func(v *view) map[string]string {
		out := make(map[string]string, n)
		counts := map[string]int{}
		for _, k := range keys {
			o := v.owner(k)
			owned := 0
			for _, m := range v.members {
				if v.owner(k) == m {
					owned++
				}
			}
			if o == "" || owned != 1 {
				t.Fatalf("key %s: owner %q, owned by %d members", k, o, owned)
			}
			out[k] = o
			counts[o]++
		}
		for _, m := range v.members {
			share := float64(counts[m]) / n
			want := 1 / float64(len(v.members))
			if share < want*0.9 || share > want*1.1 {
				t.Errorf("%d members: %s owns %.3f of the keys, want about %.3f", len(v.members), m, share, want)
			}
		}
		return out
	}
	three := owners(newView([]string{"node-a", "node-b", "node-c"}))
	four := owners(newView([]string{"node-a", "node-b", "node-c", "node-d"}))
	back := owners(newView([]string{"node-c", "node-a", "node-b"}))

	moved := 0
	for _, k := range keys {
		if three[k] != four[k] {
			moved++
			if four[k] != "node-d" {
				t.Fatalf("key %s moved from %s to %s on node-d's join", k, three[k], four[k])
			}
		}
		if back[k] != three[k] {
			t.Fatalf("key %s: owner %s after node-d left, %s before it joined", k, back[k], three[k])
		}
	}
	frac := float64(moved) / n
	t.Logf("3→4 members: %d of %d keys moved (%.1f%%, ideal 25%%); 4→3: the same %d moved back", moved, n, 100*frac, moved)
	if frac < 0.22 || frac > 0.28 {
		t.Errorf("3→4 moved %.3f of the keys, want about 0.25", frac)
	}
	if o := newView(nil).owner("k"); o != "" {
		t.Errorf("empty view owns k: %q", o)
	}
}

func BenchmarkOwner(b *testing.B) {
	v := newView([]string{"node-a", "node-b", "node-c"})
	for i := 0; i < b.N; i++ {
		v.owner("otelcol.receiver.prometheus.default")
	}
}
