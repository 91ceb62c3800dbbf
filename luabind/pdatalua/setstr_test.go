package pdatalua

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestSetStrInPlace: the layout check passes against the pinned pdata
// (else set_attr still works, allocating a box per string as pdata's
// SetStr does), and setStr writes in place only over a string.
func TestSetStrInPlace(t *testing.T) {
	if stringBox == nil {
		t.Fatal("pdata's layout did not pass the check: set_attr allocates a box per string")
	}
	m := pcommon.NewMap()
	m.PutStr("s", "old")
	m.PutInt("i", 1)
	m.PutEmptySlice("l").AppendEmpty().SetStr("in a slice")
	other := pcommon.NewMap()
	m.CopyTo(other)

	putStr(m, "s", "new")
	putStr(m, "i", "was an int")
	putStr(m, "l", "was a slice")
	putStr(m, "absent", "appended")
	want := map[string]any{"s": "new", "i": "was an int", "l": "was a slice", "absent": "appended"}
	for k, v := range want {
		got, ok := m.Get(k)
		if !ok || got.Type() != pcommon.ValueTypeStr || got.Str() != v {
			t.Errorf("%s = %v (%v), want %q", k, got.AsRaw(), got.Type(), v)
		}
	}
	if m.Len() != 4 {
		t.Errorf("%d attributes, want 4", m.Len())
	}
	if got := other.AsRaw(); got["s"] != "old" || got["i"] != int64(1) || len(got["l"].([]any)) != 1 {
		t.Errorf("the copy changed: %v", got)
	}
	allocs := testing.AllocsPerRun(100, func() { putStr(m, "s", "again") })
	if allocs != 0 {
		t.Errorf("putStr over a string allocates %v times", allocs)
	}
}
