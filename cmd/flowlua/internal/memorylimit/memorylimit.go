// Package memorylimit sets the Go runtime's soft memory limit
// (GOMEMLIMIT) from the memory limit of the container flowlua runs in, as
// Grafana Alloy does: 90% of the cgroup's limit (v1 or v2, read by
// automemlimit), so that the garbage collector works harder before the
// kernel's OOM killer ends the process, and gives memory back sooner.
//
// GOMEMLIMIT, when set (and not empty, which Go reads as unset), wins and
// nothing is read. AUTOMEMLIMIT changes the share (a ratio in (0, 1]) or
// turns the setting off ("off"), with the names and meanings Alloy gives
// them. The limit is read again every minute, so that a container resized
// in place (Kubernetes' in-place pod resize) gets a limit that follows.
package memorylimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// The environment variables read, and the share of the container's limit
// used when AUTOMEMLIMIT does not say.
const (
	EnvGoMemLimit = "GOMEMLIMIT"
	EnvRatio      = "AUTOMEMLIMIT"
	DefaultRatio  = 0.9
)

// Options are what Start reads from; the zero value of each field means
// the process's own (the environment, the cgroup, a minute).
type Options struct {
	Logger *slog.Logger
	// LookupEnv reads the environment (os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// Limit returns the container's memory limit in bytes, or an error
	// wrapping memlimit.ErrNoLimit when it has none (memlimit.FromCgroup).
	Limit memlimit.Provider
	// Refresh is how often the limit is read again.
	Refresh time.Duration
}

// Start sets the runtime's memory limit from the container's, at once in
// the background, and keeps it current until ctx ends. Its only error is
// an AUTOMEMLIMIT it cannot read; a limit it cannot find or read is
// logged, and the runtime keeps its default (no limit).
func Start(ctx context.Context, o Options) error {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Limit == nil {
		o.Limit = memlimit.FromCgroup
	}
	if o.Refresh <= 0 {
		o.Refresh = time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if v, _ := o.LookupEnv(EnvGoMemLimit); v != "" {
		o.Logger.Debug("memory limit set by "+EnvGoMemLimit+"; the container's limit is not read", EnvGoMemLimit, v)
		return nil
	}
	ratio, on, err := parseRatio(o.LookupEnv(EnvRatio))
	if err != nil {
		return err
	}
	if !on {
		o.Logger.Debug("memory limit from the container is off (" + EnvRatio + "=off)")
		return nil
	}
	s := &setter{logger: o.Logger, limit: o.Limit, ratio: ratio}
	// Reading the cgroup takes a few hundred microseconds: off the
	// start-up's path, which allocates far less than any container's limit.
	go func() {
		s.update(true)
		t := time.NewTicker(o.Refresh)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.update(false)
			}
		}
	}()
	return nil
}

// parseRatio reads AUTOMEMLIMIT: unset or empty means DefaultRatio,
// "off" turns the limit off, and anything else must be a ratio in (0, 1].
func parseRatio(v string, set bool) (ratio float64, on bool, err error) {
	if !set || v == "" {
		return DefaultRatio, true, nil
	}
	if v == "off" {
		return 0, false, nil
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(r) || r <= 0 || r > 1 {
		return 0, false, fmt.Errorf("%s=%q: want a ratio of the container's memory limit in (0, 1], or \"off\"", EnvRatio, v)
	}
	return r, true, nil
}

// setter applies the container's limit and remembers what it applied.
type setter struct {
	logger *slog.Logger
	limit  memlimit.Provider
	ratio  float64
	set    int64 // the limit this setter gave the runtime; 0 while none
}

// update reads the container's limit and gives the runtime its share,
// logging what it did: at start, what it found; later, only changes.
func (s *setter) update(first bool) {
	limit, err := s.limit()
	switch {
	case errors.Is(err, memlimit.ErrNoLimit), errors.Is(err, memlimit.ErrNoCgroup), errors.Is(err, memlimit.ErrCgroupsNotSupported):
		if s.set != 0 {
			debug.SetMemoryLimit(math.MaxInt64)
			s.set = 0
			s.logger.Info("the container's memory limit is gone; no memory limit")
		} else if first {
			s.logger.Debug("no container memory limit found; no memory limit", "reason", err)
		}
		return
	case err != nil:
		if first || s.set != 0 {
			s.logger.Warn("reading the container's memory limit failed; the memory limit stays as it was", "err", err, "limit", limitAttr(s.set))
		}
		return
	}
	goal := int64(math.MaxInt64) // a share too large for the runtime is none
	if f := float64(limit) * s.ratio; f < math.MaxInt64 {
		goal = int64(f)
	}
	if goal == s.set {
		return
	}
	debug.SetMemoryLimit(goal)
	msg := "memory limit set from the container's"
	if !first {
		msg = "the container's memory limit changed; memory limit set again"
	}
	s.logger.Info(msg, EnvGoMemLimit, goal, "container_limit", limit, "ratio", s.ratio)
	s.set = goal
}

// limitAttr is a limit for a log line: "none" when nothing was set.
func limitAttr(n int64) any {
	if n == 0 {
		return "none"
	}
	return n
}
