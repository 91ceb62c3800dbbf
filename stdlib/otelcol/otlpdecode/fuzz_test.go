package otlpdecode

import (
	"bytes"
	"testing"
)

// fuzz checks, for any bytes, that whenever the fast path decodes a
// request, pdata decodes it too and to the same data; everything else the
// fast path must decline, so that pdata decides. The Unmarshaler (the
// OTLP/HTTP entry point) must then agree with pdata on every input.
func fuzz(f *testing.F, s signal) {
	for _, in := range s.inputs(f) {
		f.Add(in)
	}
	for _, in := range declineCases() {
		f.Add(in)
	}
	d := newDecoder()
	u := NewUnmarshaler(true)
	f.Fuzz(func(t *testing.T, in []byte) {
		want, perr := s.pdata(in)
		viaU, uerr := s.unmarshal(u, in)
		if (uerr == nil) != (perr == nil) || !bytes.Equal(viaU, want) {
			t.Fatalf("the Unmarshaler disagrees with pdata: %v, pdata %v", uerr, perr)
		}
		got, err := s.fast(d, in)
		if err != nil {
			return
		}
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
