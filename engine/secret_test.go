package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

// secretArgs/secretExports: test.secret exports its value, hidden.
type secretArgs struct {
	Value string `lua:"value"`
}

type secretExports struct {
	Out string `lua:"out"`
}

type secretComponent struct{ opts component.Options }

func (s *secretComponent) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (s *secretComponent) Update(args component.Arguments) error {
	s.opts.OnStateChange(secretExports{Out: args.(secretArgs).Value})
	return nil
}
func (s *secretComponent) IsSecret() bool { return true }

var _ component.SecretComponent = (*secretComponent)(nil)

// durArgs: test.dur takes a duration, and refuses any header, quoting it
// as components quote what they refuse.
type durArgs struct {
	Timeout time.Duration `lua:"timeout"`
	Header  string        `lua:"header"`
}

type durComponent struct{}

func (durComponent) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (durComponent) Update(args component.Arguments) error {
	if h := args.(durArgs).Header; h != "" {
		return fmt.Errorf("bad header %q", h)
	}
	return nil
}

func secretRegistry() *component.Registry {
	reg := component.NewRegistry()
	for _, r := range []component.Registration{
		{Name: "test.secret", Args: secretArgs{}, Exports: secretExports{}, Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			opts.OnStateChange(secretExports{Out: args.(secretArgs).Value})
			return &secretComponent{opts: opts}, nil
		}},
		{Name: "test.dur", Args: durArgs{}, Build: func(opts component.Options, args component.Arguments) (component.Component, error) {
			if err := (durComponent{}).Update(args); err != nil {
				return nil, err
			}
			return durComponent{}, nil
		}},
	} {
		if err := reg.Add(r); err != nil {
			panic(err)
		}
	}
	return reg
}

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newSecretController(t *testing.T) (*Controller, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	c, _, _ := runController(t, ControllerOptions{
		Logger:   slog.New(slog.NewTextHandler(logs, nil)),
		Registry: secretRegistry(),
		DataPath: t.TempDir(),
	})
	return c, logs
}

// upper is a compute function: the upper case of its one string.
type upper struct{}

func (upper) Call(args []any) (any, error) { return strings.ToUpper(args[0].(string)), nil }

// A secret that fails to decode, as it is or derived from it, shows
// (secret) in the error of the load and in LastLoad, never itself.
func TestSecretRedactedFromLoadErrors(t *testing.T) {
	const secret = "hunter2-token"
	tok := ref("test.secret.tok", "out", 1)
	for _, tc := range []struct {
		name    string
		secret  string
		timeout any
		want    string
		leaks   []string
	}{
		{"the export itself", secret + "\n", tok,
			`main.lua:2: test.dur.d: timeout: invalid duration "(secret)"`, []string{secret}},
		{"a concatenation", secret, &script.Expr{Op: "..", Args: []any{"x-", tok}, Pos: script.Pos{File: "main.lua", Line: 2}},
			`main.lua:2: test.dur.d: timeout: invalid duration "(secret)"`, []string{secret, "x-"}},
		{"a compute result", secret, &script.Expr{Op: "compute", Func: upper{}, Args: []any{tok}, Pos: script.Pos{File: "main.lua", Line: 2}},
			`main.lua:2: test.dur.d: timeout: invalid duration "(secret)"`, []string{secret, strings.ToUpper(secret)}},
		// A secret of one byte is redacted where quoted; the 1 of
		// main.lua:1 and of other messages stays.
		{"a short secret", "1", tok,
			`main.lua:2: test.dur.d: timeout: invalid duration "(secret)"`, []string{`"1"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newSecretController(t)
			err := c.Apply(&script.Script{Blocks: []*script.Block{
				comp("test.secret", "tok", 1, map[string]any{"value": tc.secret}),
				comp("test.dur", "d", 2, map[string]any{"timeout": tc.timeout}),
			}})
			if err == nil {
				t.Fatal("Apply succeeded")
			}
			var ds script.Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("Apply returned %T, want script.Diagnostics", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Apply error:\n%s\nwant it to start with:\n%s", err, tc.want)
			}
			for _, msg := range []string{err.Error(), c.LastLoad().Err.Error()} {
				for _, leak := range tc.leaks {
					if strings.Contains(msg, leak) {
						t.Errorf("error shows %q: %s", leak, msg)
					}
				}
			}
		})
	}
}

// The health of test.dur.d.
func durHealth(t *testing.T, c *Controller) component.Health {
	t.Helper()
	infos := c.ListComponents()
	i := slices.IndexFunc(infos, func(i component.Info) bool { return i.ID == "test.dur.d" })
	if i < 0 {
		t.Fatalf("no test.dur.d in %v", infos)
	}
	return infos[i].Health
}

// A component that refuses its arguments, quoting them, at build or at
// update, and a secret that changes after the load into a value its
// dependant refuses: the secret is redacted from the errors, the health
// messages and the log.
func TestSecretRedactedFromBuildUpdateAndPropagation(t *testing.T) {
	const good, bad = "5s", "not-a-duration-hunter2"
	c, logs := newSecretController(t)
	tok := func(line int) *script.Ref { return ref("test.secret.tok", "out", line) }
	header := &script.Expr{Op: "..", Args: []any{"Bearer ", tok(2)}, Pos: script.Pos{File: "main.lua", Line: 2}}
	apply := func(secret string, args map[string]any) error {
		return c.Apply(&script.Script{Blocks: []*script.Block{
			comp("test.secret", "tok", 1, map[string]any{"value": secret}),
			comp("test.dur", "d", 2, args),
		}})
	}
	noLeak := func(what, msg string) {
		t.Helper()
		if strings.Contains(msg, good) || strings.Contains(msg, "hunter2") || !strings.Contains(msg, "(secret)") {
			t.Errorf("%s shows the secret or lacks (secret): %s", what, msg)
		}
	}

	// Build refuses the header.
	err := apply(good, map[string]any{"timeout": tok(2), "header": header})
	if err == nil {
		t.Fatal("Apply succeeded, want the build to fail")
	}
	noLeak("build error", err.Error())

	// Update refuses it.
	if err := apply(good, map[string]any{"timeout": tok(2)}); err != nil {
		t.Fatal(err)
	}
	if err := apply(good, map[string]any{"timeout": tok(2), "header": header}); err != nil {
		t.Fatal(err)
	}
	noLeak("health after a failed update", durHealth(t, c).Message)

	// The secret component publishes a value the dependant refuses: the
	// re-evaluation fails.
	if err := apply(good, map[string]any{"timeout": tok(2)}); err != nil {
		t.Fatal(err)
	}
	c.mu.RLock()
	secretNode := c.live["test.secret.tok"].(*componentNode)
	c.mu.RUnlock()
	secretNode.setExports(secretExports{Out: bad})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "evaluating component failed") {
		if time.Now().After(deadline) {
			t.Fatalf("no evaluation failure logged:\n%s", logs)
		}
		time.Sleep(5 * time.Millisecond)
	}
	h := durHealth(t, c)
	if h.Health != component.HealthUnhealthy {
		t.Errorf("health = %+v, want unhealthy", h)
	}
	noLeak("health after a failed evaluation", h.Message)
	noLeak("log", logs.String())
}

// Evaluate keeps every string derived from a secret, and nothing else.
func TestEvaluateKeepsDerivedSecrets(t *testing.T) {
	var kept []string
	keep := func(s string) { kept = append(kept, s) }
	lookup := func(r *script.Ref) (any, error) {
		if r.Component == "s" {
			return Secret{Value: "41", Keep: keep}, nil
		}
		return "plain", nil
	}
	sec, plain := &script.Ref{Component: "s", Export: "out"}, &script.Ref{Component: "p", Export: "out"}
	v, err := Evaluate(map[string]any{
		"concat":  &script.Expr{Op: "..", Args: []any{"Bearer ", sec}},
		"sum":     &script.Expr{Op: "+", Args: []any{sec, 1.5}},
		"compute": &script.Expr{Op: "compute", Func: upper{}, Args: []any{&script.Expr{Op: "..", Args: []any{"k", sec}}}},
		"plain":   &script.Expr{Op: "..", Args: []any{"x", plain}},
		"list":    []any{sec},
	}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"concat": "Bearer 41", "sum": 42.5, "compute": "K41", "plain": "xplain", "list": []any{"41"}}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("Evaluate = %v, want %v", v, want)
	}
	slices.Sort(kept)
	kept = slices.Compact(kept)
	if wantKept := []string{"41", "42.5", "Bearer 41", "K41", "k41"}; !reflect.DeepEqual(kept, wantKept) {
		t.Errorf("kept %q, want %q", kept, wantKept)
	}
}
