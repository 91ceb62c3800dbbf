package redact

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestSetString(t *testing.T) {
	s := NewSet()
	s.Add("hunter2-token\n", "1", "Bearer hunter2-token", "   ", "")
	for _, tc := range []struct{ in, want string }{
		// A long secret goes wherever it is, in each of its forms.
		{`bad value hunter2-token here`, `bad value (secret) here`},
		{`time: invalid duration "hunter2-token\n"`, `time: invalid duration "(secret)"`},
		{`{"v":"hunter2-token\n"}`, `{"v":"(secret)"}`},
		{`header: Bearer hunter2-token`, `header: (secret)`},
		// A short one only where quoted.
		{`main.lua:1: 1 error(s) decoding: invalid duration "1"`, `main.lua:1: 1 error(s) decoding: invalid duration "(secret)"`},
		{`value: '1', or ` + "`1`", `value: '(secret)', or ` + "`(secret)`"},
		{`"10" and "21" stay`, `"10" and "21" stay`},
		// Nothing to redact.
		{`all fine`, `all fine`},
	} {
		if got := s.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if n := s.Len(); n != 3 {
		t.Errorf("Len = %d, want 3 (blank secrets are ignored)", n)
	}
}

// A secret that reads like the marker does not redact the markers written.
func TestSetMarkerNotRedactedAgain(t *testing.T) {
	s := NewSet()
	s.Add("secret", "(secret)x")
	if got, want := s.String(`a "secret" b`), `a "(secret)" b`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSetBounded(t *testing.T) {
	s := NewSet()
	for i := range MaxSecrets + 10 {
		s.Add(fmt.Sprintf("secret-number-%d", i))
	}
	if n := s.Len(); n != MaxSecrets {
		t.Fatalf("Len = %d, want %d", n, MaxSecrets)
	}
	if got := s.String("secret-number-0;"); got != "secret-number-0;" {
		t.Errorf("the oldest secret should be forgotten, got %q", got)
	}
	last := fmt.Sprintf("secret-number-%d;", MaxSecrets+9)
	if got := s.String(last); got != Marker+";" {
		t.Errorf("the newest secret should be redacted, got %q", got)
	}
}

func TestNilSet(t *testing.T) {
	var s *Set
	s.Add("x")
	if got := s.String("x http://u:p@h/"); got != "x http://(secret)@h/" {
		t.Errorf("got %q", got)
	}
	if err := s.Error(nil); err != nil {
		t.Errorf("Error(nil) = %v", err)
	}
}

func TestURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`https://user:pass@host:443/v1`, `https://(secret)@host:443/v1`},
		{`parse "http://u:p@h:bad": invalid port`, `parse "http://(secret)@h:bad": invalid port`},
		{`https://TOKEN@github.com/x and ftp://a:b@c`, `https://(secret)@github.com/x and ftp://(secret)@c`},
		{`https://us@er:p@ss@host`, `https://(secret)@host`},
		{`https://host/path@x`, `https://host/path@x`},
		{`mail user@example.com, see https://host`, `mail user@example.com, see https://host`},
		{`https://(secret)@host`, `https://(secret)@host`},
		{`http://[::1]:80 and http://u:p@[::1]:80/`, `http://[::1]:80 and http://(secret)@[::1]:80/`},
		{`no url`, `no url`},
	} {
		if got := URLs(tc.in); got != tc.want {
			t.Errorf("URLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSetError(t *testing.T) {
	s := NewSet()
	s.Add("hunter2-token")
	base := errors.New("plain")
	if got := s.Error(base); got != base {
		t.Errorf("an error with nothing to redact should come back as it is")
	}
	wrapped := fmt.Errorf("outer: %w", errors.New("inner hunter2-token"))
	got := s.Error(wrapped)
	if got.Error() != "outer: inner (secret)" {
		t.Errorf("got %q", got)
	}
	if errors.Unwrap(got) != nil {
		t.Errorf("a redacted error must not unwrap to the secret")
	}
}

func TestHandler(t *testing.T) {
	s := NewSet()
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil), s))
	s.Add("hunter2-token")
	log = log.With("endpoint", "https://u:p@host/")
	log.Info("using hunter2-token",
		"err", errors.New("bad hunter2-token"),
		"plain", "hunter2-token",
		"n", 3,
		"fields", map[string]any{"endpoint": "http://alice:pw@h"},
		slog.Group("g", "k", "x hunter2-token"),
	)
	out := buf.String()
	for _, leak := range []string{"hunter2-token", "u:p@", "alice:pw"} {
		if strings.Contains(out, leak) {
			t.Errorf("log line shows %q: %s", leak, out)
		}
	}
	for _, want := range []string{`msg="using (secret)"`, `err="bad (secret)"`, `plain=(secret)`, `n=3`, `g.k="x (secret)"`, `endpoint=https://(secret)@host/`, `fields=map[endpoint:http://(secret)@h]`} {
		if !strings.Contains(out, want) {
			t.Errorf("log line lacks %s: %s", want, out)
		}
	}
	if Handler(log.Handler(), s) != log.Handler() {
		t.Errorf("wrapping a redacting handler for the same set again should not stack")
	}
}

// BenchmarkSetString measures one log message through a set of ten
// secrets, as every log line pays it.
func BenchmarkSetString(b *testing.B) {
	s := NewSet()
	for i := range 10 {
		s.Add(fmt.Sprintf("secret-token-%02d-abcdefgh", i))
	}
	msg := `msg="Exporting failed. Dropping data." component_id=otelcol.exporter.otlphttp.out error="failed to make an HTTP request: Post \"http://127.0.0.1:4318/v1/traces\": dial tcp: connection refused"`
	b.ReportAllocs()
	for b.Loop() {
		_ = s.String(msg)
	}
}
