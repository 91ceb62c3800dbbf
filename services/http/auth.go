package http

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"

	"github.com/flowlua/flowlua/engine/decode"
)

// BasicAuthConfig is `http { basic_auth = { ... } }`: the users allowed in,
// one given inline (username, password) and/or a list (users). It covers
// everything the address serves but the probes /-/ready and /-/healthy:
// the page, the API, live debugging, component routes, /-/reload,
// /metrics and /debug/pprof (as Alloy protects all but its probes; give
// Prometheus the credentials with basic_auth in its scrape config).
type BasicAuthConfig struct {
	Username string          `lua:"username" doc:"a user's name"`
	Password string          `lua:"password" secret:"true" doc:"that user's password (from a secret: file.read)"`
	Users    []BasicAuthUser `lua:"users" doc:"more users"`
}

// BasicAuthUser is one user of basic_auth.users.
type BasicAuthUser struct {
	Username string `lua:"username,required" doc:"the user's name"`
	Password string `lua:"password,required" secret:"true" doc:"the user's password"`
}

// Validate checks that every user has a name and a password, and that
// there is at least one.
func (c BasicAuthConfig) Validate() error {
	var errs decode.Errors
	switch {
	case c.Username == "" && c.Password != "":
		errs = append(errs, decode.Errorf("username", "a password needs a username"))
	case c.Username != "" && c.Password == "":
		errs = append(errs, decode.Errorf("password", "user %q has no password", c.Username))
	case c.Username == "" && len(c.Users) == 0:
		errs = append(errs, decode.Errorf("", "no users: give username and password, or users"))
	}
	for i, u := range c.Users {
		if u.Username == "" || u.Password == "" {
			errs = append(errs, decode.Errorf(decode.JoinPath("users", i), "username and password must not be empty"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// credential is a user's name and password, hashed so that comparing
// takes the same time whatever their lengths.
type credential struct{ user, pass [sha256.Size]byte }

// credentials returns the users of c.
func (c BasicAuthConfig) credentials() []credential {
	var out []credential
	add := func(u, p string) {
		if u != "" && p != "" {
			out = append(out, credential{sha256.Sum256([]byte(u)), sha256.Sum256([]byte(p))})
		}
	}
	add(c.Username, c.Password)
	for _, u := range c.Users {
		add(u.Username, u.Password)
	}
	return out
}

// allowed reports whether a request's credentials match one of creds,
// comparing with every one in constant time.
func allowed(creds []credential, user, pass string) bool {
	hu, hp := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(pass))
	ok := 0
	for _, c := range creds {
		ok |= subtle.ConstantTimeCompare(hu[:], c.user[:]) & subtle.ConstantTimeCompare(hp[:], c.pass[:])
	}
	return ok == 1
}

// requireAuth answers 401 to requests without the credentials of a
// configured user, except the probes. Without basic_auth, everyone is let
// in.
func (s *Service) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		creds := s.users.Load()
		if creds == nil || r.URL.Path == "/-/ready" || r.URL.Path == "/-/healthy" {
			next.ServeHTTP(w, r)
			return
		}
		user, pass, ok := r.BasicAuth()
		if !ok || !allowed(*creds, user, pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="flowlua", charset="UTF-8"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
