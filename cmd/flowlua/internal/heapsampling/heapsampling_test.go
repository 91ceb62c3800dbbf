package heapsampling

import (
	"runtime"
	"strconv"
	"testing"
)

func TestProfilerOff(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{
		{nil, "", false},
		{[]string{"run", "main.lua"}, "", false},
		{[]string{"run", "--no-http.enable-pprof", "main.lua"}, "", true},
		{[]string{"run", "--http.enable-pprof=false", "main.lua"}, "", true},
		{[]string{"run", "--http.enable-pprof=0", "main.lua"}, "", true},
		{[]string{"run", "--http.enable-pprof=true", "main.lua"}, "", false},
		// The last flag wins, as with the command line parser.
		{[]string{"run", "--no-http.enable-pprof", "--http.enable-pprof", "main.lua"}, "", false},
		{[]string{"run", "--http.enable-pprof", "--no-http.enable-pprof", "main.lua"}, "", true},
		// The environment counts only without a flag.
		{[]string{"run", "main.lua"}, "false", true},
		{[]string{"run", "main.lua"}, "true", false},
		{[]string{"run", "--http.enable-pprof", "main.lua"}, "false", false},
		{[]string{"run", "--no-http.enable-pprof", "main.lua"}, "true", true},
		// Not a boolean: left to the parser, which refuses it.
		{[]string{"run", "--http.enable-pprof=maybe", "main.lua"}, "", false},
		{[]string{"run", "main.lua"}, "maybe", false},
		// After "--" an argument is positional, whatever it looks like.
		{[]string{"run", "--", "--no-http.enable-pprof"}, "", false},
		// Another flag that only starts the same way.
		{[]string{"run", "--no-http.enable-pprofile", "main.lua"}, "", false},
	} {
		if got := ProfilerOff(c.args, c.env); got != c.want {
			t.Errorf("ProfilerOff(%q, %q) = %v, want %v", c.args, c.env, got, c.want)
		}
	}
}

// TestParseBool: parseBool stands in for strconv.ParseBool.
func TestParseBool(t *testing.T) {
	for _, s := range []string{"", "1", "0", "t", "f", "T", "F", "true", "false", "TRUE", "FALSE", "True", "False", "yes", "no", "tRUE", "2", " true"} {
		want, err := strconv.ParseBool(s)
		got, ok := parseBool(s)
		if ok != (err == nil) || got != want {
			t.Errorf("parseBool(%q) = %v, %v; strconv.ParseBool gives %v, %v", s, got, ok, want, err)
		}
	}
}

// TestRestore: Restore puts back only a rate init stopped.
func TestRestore(t *testing.T) {
	saved, savedStopped := runtime.MemProfileRate, stoppedRate
	t.Cleanup(func() { runtime.MemProfileRate, stoppedRate = saved, savedStopped })

	runtime.MemProfileRate, stoppedRate = 0, 0
	Restore()
	if runtime.MemProfileRate != 0 {
		t.Errorf("a rate init left at 0 became %d", runtime.MemProfileRate)
	}
	runtime.MemProfileRate, stoppedRate = 0, 4096
	Restore()
	if runtime.MemProfileRate != 4096 || stoppedRate != 0 {
		t.Errorf("after Restore the rate is %d (want 4096), stoppedRate %d (want 0)", runtime.MemProfileRate, stoppedRate)
	}
}
