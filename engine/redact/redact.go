// Package redact keeps secrets out of messages: the errors, log lines and
// API answers of flowlua show Marker where a secret was.
//
// A Set holds the secret strings of a process (the exports of secret
// components and every string the engine derived from them). Its rule:
//
//  1. A secret of MinLen bytes or more is replaced wherever it occurs.
//  2. A shorter secret ("1", "ab") is replaced only where it stands
//     quoted, between two equal quote characters (", ' or `), as error
//     messages quote values: `invalid duration "1"` shows
//     `invalid duration "(secret)"`, while the 1 of `main.lua:1:` stays.
//  3. Each secret is also looked for trimmed of surrounding white space and
//     in its Go-quoted and JSON-escaped forms (a newline written \n), the
//     ways messages quote it.
//
// Independently of any Set, the userinfo of a URL (`https://user:pass@host`)
// is replaced: `https://(secret)@host`.
package redact

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Marker is what a message shows in place of a secret; the API shows the
// same (engine/decode.Redacted).
const Marker = "(secret)"

// MinLen is the length in bytes from which a secret is redacted wherever it
// occurs; shorter secrets are redacted only where quoted (see the package
// comment).
const MinLen = 4

// MaxSecrets bounds how many strings a Set keeps; past it, the oldest are
// forgotten first. A pipeline holds a handful of secrets; the bound keeps a
// secret rotated for months from growing the set without end.
const MaxSecrets = 1024

// Set is a set of secret strings. The zero value is not usable: use
// NewSet. A nil *Set holds no secrets (it still redacts URL userinfo).
// It is safe for concurrent use.
type Set struct {
	mu    sync.Mutex
	order []string // insertion order, for forgetting the oldest
	seen  map[string]bool
	stale atomic.Bool                      // secrets were added since rep was built
	rep   atomic.Pointer[strings.Replacer] // nil while empty
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{seen: map[string]bool{}} }

// Add adds secrets to the set; empty strings and strings made only of
// white space are ignored.
func (s *Set) Add(secrets ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	added := false
	for _, sec := range secrets {
		if strings.TrimSpace(sec) == "" || s.seen[sec] {
			continue
		}
		s.seen[sec] = true
		s.order = append(s.order, sec)
		added = true
	}
	if !added {
		return
	}
	for len(s.order) > MaxSecrets {
		delete(s.seen, s.order[0])
		s.order = s.order[1:]
	}
	s.stale.Store(true)
}

// replacer returns the replacer of the secrets, built again after they
// changed; nil while there are none.
func (s *Set) replacer() *strings.Replacer {
	if !s.stale.Load() {
		return s.rep.Load()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stale.Load() {
		s.rep.Store(newReplacer(s.order))
		s.stale.Store(false)
	}
	return s.rep.Load()
}

// Len returns how many secrets the set holds.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

// String returns msg with every secret of the set and the userinfo of
// every URL replaced by Marker.
func (s *Set) String(msg string) string {
	if s != nil {
		if rep := s.replacer(); rep != nil {
			msg = rep.Replace(msg)
		}
	}
	return URLs(msg)
}

// Error returns err itself when its message holds nothing to redact, and
// otherwise an error with the redacted message. That error does not wrap
// err: what errors.As would find in err may show the secret.
func (s *Set) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := s.String(msg)
	if red == msg {
		return err
	}
	return errors.New(red)
}

// newReplacer builds one replacer for every form of every secret, longest
// first, so that a secret and a longer one holding it (`tok` and
// `Bearer tok`) redact the longer one whole. One pass: a Marker written
// is never redacted again.
func newReplacer(secrets []string) *strings.Replacer {
	forms := map[string]bool{}
	for _, sec := range secrets {
		for _, f := range variants(sec) {
			forms[f] = true
		}
	}
	var long, short []string
	for f := range forms {
		if len(f) >= MinLen {
			long = append(long, f)
		} else {
			short = append(short, f)
		}
	}
	byLength := func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	}
	slices.SortFunc(long, byLength)
	slices.SortFunc(short, byLength)
	pairs := make([]string, 0, 2*len(long)+6*len(short))
	for _, f := range long {
		pairs = append(pairs, f, Marker)
	}
	for _, f := range short {
		for _, q := range []string{`"`, `'`, "`"} {
			pairs = append(pairs, q+f+q, q+Marker+q)
		}
	}
	return strings.NewReplacer(pairs...)
}

// variants returns the forms in which a message may show sec: itself,
// trimmed, and the inside of its Go and JSON quotings.
func variants(sec string) []string {
	var out []string
	add := func(v string) {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, v := range []string{sec, strings.TrimSpace(sec)} {
		add(v)
		q := strconv.Quote(v)
		add(q[1 : len(q)-1])
		if j, err := json.Marshal(v); err == nil {
			add(string(j[1 : len(j)-1]))
		}
	}
	return out
}

// URLs returns msg with the userinfo of every URL (scheme://userinfo@host)
// replaced by Marker: `https://user:pass@host/x` shows
// `https://(secret)@host/x`. The user alone is redacted too, as it is often
// a token (`https://TOKEN@host`).
func URLs(msg string) string {
	if !strings.Contains(msg, "://") || !strings.Contains(msg, "@") {
		return msg
	}
	var b strings.Builder
	rest := msg
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		start := i + len("://")
		end := start
		for end < len(rest) && !endsAuthority(rest[end]) {
			end++
		}
		at := strings.LastIndexByte(rest[start:end], '@')
		if at <= 0 || rest[start:start+at] == Marker {
			b.WriteString(rest[:end])
			rest = rest[end:]
			continue
		}
		b.WriteString(rest[:start])
		b.WriteString(Marker)
		rest = rest[start+at:]
	}
	if b.Len() == 0 {
		return msg
	}
	b.WriteString(rest)
	return b.String()
}

// endsAuthority reports whether c ends the authority of a URL in a
// message: a path, query or fragment, white space, a quote or a bracket
// around the URL.
func endsAuthority(c byte) bool {
	switch c {
	case '/', '?', '#', '"', '\'', '`', '<', '>', '\\', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
