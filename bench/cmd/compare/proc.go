package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/flowlua/flowlua/bench/internal/sink"
)

// userHZ is the unit of utime and stime in /proc/PID/stat (USER_HZ, 100 on
// Linux whatever the kernel's HZ).
const userHZ = 100

// cpuSeconds returns the CPU time (utime+stime, all threads, including those
// that exited) the process pid has used so far.
func cpuSeconds(pid int) (float64, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return float64(ut+st) / userHZ, nil
}

// treeCPUSeconds is cpuSeconds of pid and of its children: those it has
// waited for (cutime and cstime) and those still running, such as
// flowlua's native plugin processes, whose work is the system's.
func treeCPUSeconds(pid int) (float64, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	// utime, stime, cutime and cstime are fields 14 to 17.
	var ticks uint64
	for _, field := range f[11:15] {
		n, err := strconv.ParseUint(field, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	total := float64(ticks) / userHZ
	for _, child := range children(pid) {
		if c, err := cpuSeconds(child); err == nil {
			total += c
		}
	}
	return total, nil
}

// statFields returns the fields of /proc/PID/stat after the command name
// (which may hold spaces): f[0] is field 3.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, errors.New("malformed /proc/PID/stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return nil, errors.New("short /proc/PID/stat")
	}
	return f, nil
}

// children returns the processes whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, err := statFields(child); err == nil && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// peakRSSMB returns the peak resident set size (VmHWM) of pid in MB (10^6
// bytes), plus that of each child still running (a native plugin's
// process holds its own batches).
func peakRSSMB(pid int) (float64, error) {
	total, err := statusMB(pid, "VmHWM")
	if err != nil {
		return 0, err
	}
	for _, child := range children(pid) {
		if mb, err := statusMB(child, "VmHWM"); err == nil {
			total += mb
		}
	}
	return total, nil
}

// statusMB returns a kB field of /proc/PID/status (VmHWM, VmRSS, RssFile)
// in MB (10^6 bytes).
func statusMB(pid int, field string) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v) // "123456 kB"
			if len(f) == 0 {
				break
			}
			kb, err := strconv.ParseUint(f[0], 10, 64)
			if err != nil {
				return 0, err
			}
			return float64(kb) * 1024 / 1e6, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/PID/status", field)
}

// freePorts returns n distinct loopback addresses with ports free right now:
// it listens on :0 n times, then closes the listeners so the caller can hand
// the numbers to the processes it starts.
func freePorts(n int) ([]string, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	addrs := make([]string, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// poll calls check every interval until it returns true or an error, ctx ends,
// or the deadline passes.
func poll(ctx context.Context, timeout, interval time.Duration, what string, check func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ok, err := check()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: gave up after %v", what, timeout)
		case <-t.C:
		}
	}
}

// waitPort waits until addr accepts TCP connections; exited, when it fires,
// reports that the process that should listen there is gone.
func waitPort(ctx context.Context, addr string, timeout time.Duration, exited <-chan struct{}) error {
	return poll(ctx, timeout, 5*time.Millisecond, "waiting for "+addr, func() (bool, error) {
		select {
		case <-exited:
			return false, errors.New("the process exited")
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return false, nil
		}
		c.Close()
		return true, nil
	})
}

// httpClient talks to the sink's /count endpoint.
var httpClient = &http.Client{Timeout: 2 * time.Second}

// sinkCounts fetches the sink's counts from its HTTP endpoint.
func sinkCounts(addr string) (sink.Counts, error) {
	var c sink.Counts
	resp, err := httpClient.Get("http://" + addr + "/count")
	if err != nil {
		return c, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c, fmt.Errorf("GET /count: %s", resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&c)
	return c, err
}

// busySeconds returns the CPU time all CPUs of the machine have spent busy
// (user, nice, system, irq, softirq, steal) since boot, from /proc/stat.
func busySeconds() (float64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, errors.New("malformed /proc/stat")
	}
	var busy uint64
	for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
		v, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return 0, err
		}
		busy += v
	}
	return float64(busy) / userHZ, nil
}

// waitQuiet samples the machine's busy CPU time over half-second windows
// until it is at most threshold cores (the runner's own processes are stopped
// between measurements, so that is other processes' load) or maxWait has
// passed. It returns the last sample.
func waitQuiet(ctx context.Context, threshold float64, maxWait time.Duration) (float64, error) {
	const window = 500 * time.Millisecond
	deadline := time.Now().Add(maxWait)
	for {
		b0, err := busySeconds()
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(window):
		}
		b1, err := busySeconds()
		if err != nil {
			return 0, err
		}
		cores := (b1 - b0) / time.Since(t0).Seconds()
		if cores <= threshold || time.Now().After(deadline) {
			return cores, nil
		}
	}
}
