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
	"sync/atomic"
	"testing"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

const gib = 1 << 30

// current is the runtime's memory limit.
func current() int64 { return debug.SetMemoryLimit(-1) }

// noLimit restores the runtime's memory limit after the test (the tests
// change the process's own) and starts it with none.
func noLimit(t *testing.T) {
	before := debug.SetMemoryLimit(math.MaxInt64)
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

// start runs Start until the test ends, refreshing every millisecond.
func start(t *testing.T, lookup func(string) (string, bool), limit memlimit.Provider) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return Start(ctx, Options{LookupEnv: lookup, Limit: limit, Refresh: time.Millisecond})
}

// limitIs waits until the runtime's memory limit is want: Start reads the
// container's limit in the background.
func limitIs(t *testing.T, want int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); current() != want; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("memory limit %d, want %d", current(), want)
		}
	}
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
			noLimit(t)
			if err := start(t, env(tc.env...), memlimit.Limit(gib)); err != nil {
				t.Fatal(err)
			}
			limitIs(t, tc.want)
		})
	}
}

// GOMEMLIMIT and AUTOMEMLIMIT=off leave the runtime alone without reading
// the container's limit.
func TestStartLeavesTheLimitAlone(t *testing.T) {
	var reads atomic.Int64
	read := func() (uint64, error) { reads.Add(1); return gib, nil }
	for _, e := range [][]string{
		{"GOMEMLIMIT=100MiB", "AUTOMEMLIMIT=0.5"},
		{"AUTOMEMLIMIT=off"},
	} {
		noLimit(t)
		if err := start(t, env(e...), read); err != nil {
			t.Fatal(err)
		}
		if got := current(); got != math.MaxInt64 {
			t.Errorf("%v: memory limit %d, want none", e, got)
		}
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("the container's limit was read %d times", n)
	}
}

func TestStartRejectsABadRatio(t *testing.T) {
	for _, v := range []string{"abc", "0", "-0.5", "1.5", "NaN", "90%"} {
		t.Run(v, func(t *testing.T) {
			noLimit(t)
			err := start(t, env("AUTOMEMLIMIT="+v), memlimit.Limit(gib))
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

// Through Start's refresh, the limit follows the container's: resized,
// then lifted.
func TestStartFollowsTheContainer(t *testing.T) {
	noLimit(t)
	var container atomic.Int64
	container.Store(gib)
	err := start(t, env("AUTOMEMLIMIT=0.5"), func() (uint64, error) {
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
	container.Store(0)
	limitIs(t, math.MaxInt64)
}

// What each reading does, and what it logs.
func TestSetterUpdate(t *testing.T) {
	noLimit(t)
	var log bytes.Buffer
	var container uint64
	var fail error
	s := &setter{
		logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		limit: func() (uint64, error) {
			if fail != nil {
				return 0, fail
			}
			if container == 0 {
				return 0, memlimit.ErrNoLimit
			}
			return container, nil
		},
		ratio: 0.5,
	}
	for _, step := range []struct {
		name      string
		first     bool
		container uint64
		fail      error
		want      int64
		log       string // what the step logs; "" for nothing
	}{
		{"no limit at start", true, 0, nil, math.MaxInt64, `level=DEBUG msg="no container memory limit found; no memory limit" reason="memory is not limited"`},
		{"no cgroup at start", true, 0, fmt.Errorf("reading: %w", memlimit.ErrNoCgroup), math.MaxInt64, `level=DEBUG msg="no container memory limit found; no memory limit" reason="reading: process is not in cgroup"`},
		{"unreadable at start", true, 0, errors.New("permission denied"), math.MaxInt64, `level=WARN msg="reading the container's memory limit failed; the memory limit stays as it was" err="permission denied" limit=none`},
		{"still no limit", false, 0, nil, math.MaxInt64, ""},
		{"a limit", false, gib, nil, gib / 2, `level=INFO msg="the container's memory limit changed; memory limit set again" GOMEMLIMIT=536870912 container_limit=1073741824 ratio=0.5`},
		{"the same limit", false, gib, nil, gib / 2, ""},
		{"unreadable later", false, gib, errors.New("permission denied"), gib / 2, `level=WARN msg="reading the container's memory limit failed; the memory limit stays as it was" err="permission denied" limit=536870912`},
		{"lifted", false, 0, nil, math.MaxInt64, `level=INFO msg="the container's memory limit is gone; no memory limit"`},
		{"a share beyond the runtime's range", false, math.MaxUint64, nil, math.MaxInt64, `GOMEMLIMIT=9223372036854775807 container_limit=18446744073709551615`},
	} {
		log.Reset()
		container, fail = step.container, step.fail
		s.update(step.first)
		if got := current(); got != step.want {
			t.Errorf("%s: memory limit %d, want %d", step.name, got, step.want)
		}
		if got := log.String(); step.log == "" && got != "" || !strings.Contains(got, step.log) {
			t.Errorf("%s: logged %q, want %q", step.name, got, step.log)
		}
	}
	log.Reset()
	s = &setter{logger: s.logger, limit: memlimit.Limit(gib), ratio: 0.9}
	s.update(true)
	if want := `level=INFO msg="memory limit set from the container's" GOMEMLIMIT=966367641 container_limit=1073741824 ratio=0.9`; !strings.Contains(log.String(), want) {
		t.Errorf("at start: logged %q, want %q", log.String(), want)
	}
}
