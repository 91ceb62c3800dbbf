package otlpdecode

import (
	"bytes"
	"testing"
)

// fuzz checks, for any bytes, that whenever the fast path decodes a
// request, pdata decodes it too and to the same data; everything else the
// fast path must decline, so that pdata decides.
func fuzz(f *testing.F, s signal) {
	for _, in := range s.inputs(f) {
		f.Add(in)
	}
	for _, in := range declineCases() {
		f.Add(in)
	}
	d := newDecoder()
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := s.fast(d, in)
		if err != nil {
			return
		}
		want, perr := s.pdata(in)
		if perr != nil {
			t.Fatalf("the fast path accepted what pdata rejects: %v", perr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("the fast path built different data")
		}
	})
}

func FuzzTraces(f *testing.F)  { fuzz(f, signals[0]) }
func FuzzMetrics(f *testing.F) { fuzz(f, signals[1]) }
func FuzzLogs(f *testing.F)    { fuzz(f, signals[2]) }
