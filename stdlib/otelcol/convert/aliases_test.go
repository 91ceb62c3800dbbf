package convert

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// billionLaughs is a YAML alias bomb of 527 bytes in the body of a receiver:
// nine levels of nine aliases each to the level below, 9^9 "lol"s (about
// 387 million nodes) expanded.
const billionLaughs = `receivers:
  otlp:
    protocols:
      grpc:
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
exporters:
  debug:
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [debug]
`

// TestAliasBomb checks that a config whose aliases expand past the bounds
// is refused at once, with the file and the line where the expansion
// crossed the bound, rather than converted into gigabytes of script.
func TestAliasBomb(t *testing.T) {
	start := time.Now()
	res, err := Convert([]byte(billionLaughs), Options{Filename: "bomb.yaml"})
	if err == nil {
		t.Fatalf("converted into %d bytes of script", len(res.Script))
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("refused after %s", took)
	}
	want := fmt.Sprintf("bomb.yaml:10: with its aliases expanded, the config holds more than %d YAML nodes (an alias bomb?)", maxExpandedNodes)
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
}

// TestAliasDepth checks the bound on depth: aliases that each nest the
// one before one level deeper.
func TestAliasDepth(t *testing.T) {
	var b strings.Builder
	b.WriteString("receivers:\n  otlp:\n    protocols:\n      grpc:\n    l0: &l0 [x]\n")
	for i := 1; i <= maxExpandedDepth; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d [*l%d]\n", i, i, i-1)
	}
	_, err := Convert([]byte(b.String()), Options{Filename: "deep.yaml"})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("nests more than %d levels deep", maxExpandedDepth)) || !strings.HasPrefix(err.Error(), "deep.yaml:") {
		t.Fatalf("error: %v", err)
	}
}

// TestAliasesWithinBounds checks that ordinary aliases and merge keys
// still convert.
func TestAliasesWithinBounds(t *testing.T) {
	src := `receivers:
  otlp:
    protocols:
      grpc: &grpc
        endpoint: 127.0.0.1:4317
exporters:
  otlp/a: &exp
    endpoint: a:4317
    tls: {insecure: true}
  otlp/b:
    <<: *exp
    endpoint: b:4317
service:
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [otlp/a, otlp/b]
`
	res, err := Convert([]byte(src), Options{Filename: "ok.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Script), `"b:4317"`) {
		t.Errorf("the merge key was not followed:\n%s", res.Script)
	}
}

// FuzzConvert converts any YAML: never a panic, and what a config's
// aliases expand to stays within the bounds (the seed corpus holds the
// alias bomb).
func FuzzConvert(f *testing.F) {
	f.Add([]byte(billionLaughs))
	f.Add([]byte("receivers:\n  otlp:\n    protocols:\n      grpc:\nexporters:\n  debug:\nservice:\n  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [debug]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := Convert(src, Options{})
		if err == nil && len(res.Script) > 64<<20 {
			t.Fatalf("%d bytes of YAML converted into %d bytes of script", len(src), len(res.Script))
		}
	})
}
