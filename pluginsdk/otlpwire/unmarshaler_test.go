package otlpwire

import (
	"bytes"
	"testing"
)

// TestUnmarshaler decodes every input of every signal with the fast path
// on and off: the data is pdata's, it survives the buffer being
// overwritten (callers reuse it), and each request is counted once, as
// fast or pdata.
func TestUnmarshaler(t *testing.T) {
	for _, s := range signals {
		t.Run(s.name, func(t *testing.T) {
			for _, fast := range []bool{true, false} {
				u := NewUnmarshaler(fast)
				inputs := s.inputs(t)
				for i, in := range inputs {
					want, err := s.pdata(in)
					if err != nil {
						t.Fatalf("input %d: pdata: %v", i, err)
					}
					buf := bytes.Clone(in)
					got, err := s.unmarshal(u, buf)
					if err != nil {
						t.Fatalf("fast %v, input %d: %v", fast, i, err)
					}
					for j := range buf {
						buf[j] = 0xff
					}
					if !bytes.Equal(got, want) {
						t.Errorf("fast %v, input %d: different data from pdata's", fast, i)
					}
				}
				st := u.StatsOf(s.name)
				wantFast, wantPdata := uint64(len(inputs)), uint64(0)
				if !fast {
					wantFast, wantPdata = 0, uint64(len(inputs))
				}
				if st.Fast.Load() != wantFast || st.Pdata.Load() != wantPdata {
					t.Errorf("fast %v: counted %d fast, %d pdata; want %d, %d", fast, st.Fast.Load(), st.Pdata.Load(), wantFast, wantPdata)
				}
			}
		})
	}
}

// TestUnmarshalerDeclines hands the requests the fast path declines to
// pdata: the valid ones decode as pdata decodes them, malformed ones fail
// with pdata's error, and all count as pdata.
func TestUnmarshalerDeclines(t *testing.T) {
	u := NewUnmarshaler(true)
	n := 0
	for name, in := range declineCases() {
		n++
		want, perr := signals[0].pdata(in)
		got, err := signals[0].unmarshal(u, in)
		if (err == nil) != (perr == nil) || !bytes.Equal(got, want) {
			t.Errorf("%s: got %v, pdata %v", name, err, perr)
		}
		if err != nil && perr != nil && err.Error() != perr.Error() {
			t.Errorf("%s: error %q, pdata's %q", name, err, perr)
		}
	}
	if st := u.StatsOf("traces"); st.Fast.Load() != 0 || st.Pdata.Load() != uint64(n) {
		t.Errorf("counted %d fast, %d pdata; want 0, %d", st.Fast.Load(), st.Pdata.Load(), n)
	}
	if u.StatsOf("profiles") != nil {
		t.Error("stats of an unknown signal")
	}
}
