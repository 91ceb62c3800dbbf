package otlpwire

import (
	"bytes"
	"testing"
)

// fuzz checks, for any bytes, that whenever the fast path decodes a
// request, pdata decodes it too and to the same data; everything else the
// fast path must decline, so that pdata decides, or refuse as too deep.
// The Unmarshaler (the OTLP/HTTP entry point) must then agree with pdata
// on every input, except that it refuses exactly the requests whose
// values nest deeper than MaxDepth (pdata's decoder has no bound).
func fuzz(f *testing.F, i int) {
	s := signals[i]
	for _, in := range s.inputs(f) {
		f.Add(in)
	}
	for _, in := range declineCases() {
		f.Add(in)
	}
	for _, in := range deepCases(i) {
		f.Add(in)
	}
	d := newDecoder()
	u := NewUnmarshaler(true)
	f.Fuzz(func(t *testing.T, in []byte) {
		want, perr := s.pdata(in)
		viaU, uerr := s.unmarshal(u, in)
		if agreesOnDepth(t, i, uerr, checkDepth(in, i) != nil, want, perr) {
			return
		}
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

func FuzzTraces(f *testing.F)  { fuzz(f, 0) }
func FuzzMetrics(f *testing.F) { fuzz(f, 1) }
func FuzzLogs(f *testing.F)    { fuzz(f, 2) }

// agreesOnDepth checks a decoder's answer err against pdata's (want, the
// request as pdata decoded and encoded it, and perr) on depth: a request
// refused as too deep is one pdata rejects, or whose input nests deeper
// than MaxDepth (deepInput; pdata may drop such a value, a oneof given
// twice), and no request accepted decodes deeper. It reports whether the
// request was refused (nothing more to compare).
func agreesOnDepth(t *testing.T, signal int, err error, deepInput bool, want []byte, perr error) bool {
	t.Helper()
	tooDeep := perr == nil && checkDepth(want, signal) != nil
	if refused(err) {
		if perr == nil && !tooDeep && !deepInput {
			t.Fatalf("refused as too deep what nests within %d levels: %v", MaxDepth, err)
		}
		return true
	}
	if err == nil && tooDeep {
		t.Fatalf("accepted a request deeper than %d levels", MaxDepth)
	}
	return false
}
