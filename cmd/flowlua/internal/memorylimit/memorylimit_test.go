package memorylimit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

const gib = 1 << 30

// current is the runtime's memory limit.
func current() int64 { return debug.SetMemoryLimit(-1) }

// keepLimit restores the runtime's memory limit after the test: the tests
// change the process's own.
func keepLimit(t *testing.T) {
	before := current()
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
}

// env is an environment of the given NAME=value pairs.
func env(pairs ...string) func(string) (string, bool) {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// syncBuffer is a log a test reads while the refresh goroutine writes.
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

// eventually polls until cond holds, failing the test with what() after
// a deadline: Start reads the container's limit in the background.
func eventually(t *testing.T, cond func() bool, what func() string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
	}
}

// logged waits until the log holds want.
func logged(t *testing.T, log *syncBuffer, want string) {
	t.Helper()
	eventually(t, func() bool { return strings.Contains(log.String(), want) },
		func() string { return fmt.Sprintf("log %q lacks %q", log, want) })
}

// limitIs waits until the runtime's memory limit is want.
func limitIs(t *testing.T, want int64) {
	t.Helper()
	eventually(t, func() bool { return current() == want },
		func() string { return fmt.Sprintf("memory limit %d, want %d", current(), want) })
}

func start(t *testing.T, lookup func(string) (string, bool), limit memlimit.Provider) (*syncBuffer, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := &syncBuffer{}
	err := Start(ctx, Options{
		Logger:    slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		LookupEnv: lookup,
		Limit:     limit,
		Refresh:   time.Millisecond,
	})
	return log, err
}

func TestStartSetsAShareOfTheContainersLimit(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want int64
	}{
		{nil, 966367641}, // 90% of 1 GiB
		{[]string{"AUTOMEMLIMIT=", "GOMEMLIMIT="}, 966367641},
		{[]string{"AUTOMEMLIMIT=0.5"}, gib / 2},
		{[]string{"AUTOMEMLIMIT=1"}, gib},
	} {
		t.Run(fmt.Sprint(tc.env), func(t *testing.T) {
			keepLimit(t)
			log, err := start(t, env(tc.env...), memlimit.Limit(gib))
			if err != nil {
				t.Fatal(err)
			}
			limitIs(t, tc.want)
			logged(t, log, fmt.Sprintf(`msg="memory limit set from the container's" GOMEMLIMIT=%d container_limit=%d`, tc.want, gib))
		})
	}
}

func TestStartLeavesTheLimitAlone(t *testing.T) {
	fail := func() (uint64, error) { t.Error("the container's limit was read"); return gib, nil }
	for _, tc := range []struct {
		name  string
		env   []string
		limit memlimit.Provider
		log   string
	}{
		{"GOMEMLIMIT wins", []string{"GOMEMLIMIT=100MiB", "AUTOMEMLIMIT=0.5"}, fail, "memory limit set by GOMEMLIMIT"},
		{"off", []string{"AUTOMEMLIMIT=off"}, fail, "AUTOMEMLIMIT=off"},
		{"no limit", nil, func() (uint64, error) { return 0, memlimit.ErrNoLimit }, "no container memory limit found"},
		{"no cgroup", nil, func() (uint64, error) { return 0, fmt.Errorf("reading: %w", memlimit.ErrNoCgroup) }, "no container memory limit found"},
		{"unreadable", nil, func() (uint64, error) { return 0, errors.New("permission denied") }, `level=WARN msg="reading the container's memory limit failed; the memory limit stays as it was" err="permission denied" limit=none`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keepLimit(t)
			debug.SetMemoryLimit(math.MaxInt64)
			log, err := start(t, env(tc.env...), tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			logged(t, log, tc.log)
			if got := current(); got != math.MaxInt64 {
				t.Errorf("memory limit %d, want none", got)
			}
		})
	}
}

func TestStartRejectsABadRatio(t *testing.T) {
	for _, v := range []string{"abc", "0", "-0.5", "1.5", "NaN", "90%"} {
		t.Run(v, func(t *testing.T) {
			keepLimit(t)
			debug.SetMemoryLimit(math.MaxInt64)
			_, err := start(t, env("AUTOMEMLIMIT="+v), memlimit.Limit(gib))
			want := fmt.Sprintf(`AUTOMEMLIMIT=%q: want a ratio of the container's memory limit in (0, 1], or "off"`, v)
			if err == nil || err.Error() != want {
				t.Errorf("error %v, want %s", err, want)
			}
			if got := current(); got != math.MaxInt64 {
				t.Errorf("memory limit %d after a bad ratio, want none", got)
			}
		})
	}
}

// The limit follows the container's: resized, then lifted.
func TestStartFollowsTheContainer(t *testing.T) {
	keepLimit(t)
	var container atomic.Int64
	container.Store(gib)
	log, err := start(t, env("AUTOMEMLIMIT=0.5"), func() (uint64, error) {
		if n := container.Load(); n > 0 {
			return uint64(n), nil
		}
		return 0, memlimit.ErrNoLimit
	})
	if err != nil {
		t.Fatal(err)
	}
	limitIs(t, gib/2)
	container.Store(2 * gib)
	limitIs(t, gib)
	logged(t, log, `msg="the container's memory limit changed; memory limit set again" GOMEMLIMIT=1073741824 container_limit=2147483648`)
	container.Store(0)
	limitIs(t, math.MaxInt64)
	logged(t, log, `msg="the container's memory limit is gone; no memory limit"`)
}
