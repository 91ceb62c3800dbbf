package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["memcgroup"] = cmdMemCgroup
	scriptConds["cgroup"] = func() (bool, error) {
		probe.once.Do(func() {
			dir, err := makeMemCgroup(1 << 30)
			if err != nil {
				return
			}
			// A process must also be let in, as the scripts move theirs.
			err = exec.Command("sh", "-c", `echo $$ > "$1"`, "sh", filepath.Join(dir, "cgroup.procs")).Run()
			probe.ok = removeCgroup(dir) == nil && err == nil
		})
		return probe.ok, nil
	}
}

// probe says once whether this process may make memory cgroups and move
// processes into them.
var probe struct {
	once sync.Once
	ok   bool
}

// cgroupSeq names the cgroups this process makes.
var cgroupSeq atomic.Int64

// memcgroup VAR BYTES: makes a memory cgroup limited to BYTES under the
// test's own, sets $VAR to the file that moves a process into it (write
// its pid there: `echo $$ > $VAR`), and removes it when the script ends.
func cmdMemCgroup(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: memcgroup VAR BYTES")
	}
	limit, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	dir, err := makeMemCgroup(limit)
	ts.Check(err)
	ts.Defer(func() {
		if err := removeCgroup(dir); err != nil {
			ts.Logf("%v", err)
		}
	})
	ts.Setenv(args[0], filepath.Join(dir, "cgroup.procs"))
}

// makeMemCgroup makes a child of this process's memory cgroup (v1, or v2
// with the memory controller delegated) limited to limit bytes, and
// returns its directory.
func makeMemCgroup(limit int64) (string, error) {
	parent, limitFile, err := ownMemCgroup()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(parent, fmt.Sprintf("flowlua-test-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		_ = os.Remove(dir)
		return "", fmt.Errorf("limiting cgroup %s: %w", dir, err)
	}
	return dir, nil
}

// removeCgroup removes a cgroup once the processes in it have exited.
func removeCgroup(dir string) error {
	deadline := time.Now().Add(waitLimit)
	for {
		err := os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("removing cgroup: %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ownMemCgroup returns the directory of this process's memory cgroup and
// the name of its limit file there.
func ownMemCgroup() (dir, limitFile string, err error) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	var v1, v2 string
	haveV1, haveV2 := false, false
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2, haveV2 = parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				v1, haveV1 = parts[2], true
			}
		}
	}
	mounts, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer mounts.Close()
	sc := bufio.NewScanner(mounts)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		root, mountpoint := f[3], f[4]
		switch {
		case haveV1 && g[0] == "cgroup" && hasOption(g[2], "memory"):
			rel, ok := strings.CutPrefix(v1, root)
			if ok {
				return filepath.Join(mountpoint, rel), "memory.limit_in_bytes", nil
			}
		case !haveV1 && haveV2 && g[0] == "cgroup2":
			rel, ok := strings.CutPrefix(v2, root)
			if !ok {
				continue
			}
			dir := filepath.Join(mountpoint, rel)
			control, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
			if err != nil || !hasOption(strings.ReplaceAll(strings.TrimSpace(string(control)), " ", ","), "memory") {
				return "", "", fmt.Errorf("cgroup %s does not delegate the memory controller", dir)
			}
			return dir, "memory.max", nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	return "", "", errors.New("no memory cgroup mounted")
}

// hasOption reports whether a comma-separated list holds opt.
func hasOption(list, opt string) bool {
	for _, o := range strings.Split(list, ",") {
		if o == opt {
			return true
		}
	}
	return false
}
