package heapsampling

import (
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
