// Package heapsampling stops the runtime's heap sampling before the
// other packages' initialisers run, when the command line or the
// environment turns flowlua's profiler off (--no-http.enable-pprof,
// FLOWLUA_HTTP_ENABLE_PPROF=false).
//
// The run command stops the sampling too, once its flags are parsed; by
// then the dependencies' initialisers have allocated about 2 MB, and each
// sample among them walked its stack through the binary's line tables,
// leaving their pages resident: about 0.5 MB of idle RSS for a profile
// nothing can read. Go reads GODEBUG=memprofilerate only from the
// environment, never from a //go:debug default, so the setting is made
// here, in the first flowlua package to be initialised: Go initialises
// packages whose imports are ready in the order of their import paths,
// and this one imports only os and runtime (its own parseBool and prefix
// test keep strconv and strings, and what they wait for, out). The run
// command has the last word: it stops the sampling from its parsed flags,
// or calls Restore when they turn the profiler on after all.
package heapsampling

import (
	"os"
	"runtime"
)

// Flag and EnvVar name the run command's switch for the profiler; they
// must match run's http.enable-pprof option (a test checks them).
const (
	Flag   = "http.enable-pprof"
	EnvVar = "FLOWLUA_HTTP_ENABLE_PPROF"
)

// stoppedRate is the sampling rate init found and set to 0, or 0 when it
// left the rate alone.
var stoppedRate int

func init() {
	if ProfilerOff(os.Args[1:], os.Getenv(EnvVar)) && runtime.MemProfileRate != 0 {
		stoppedRate = runtime.MemProfileRate
		runtime.MemProfileRate = 0
	}
}

// Restore puts back the sampling rate init stopped, for a command line
// that turns the profiler on although ProfilerOff read it otherwise. It
// does nothing when init left the rate alone (a GODEBUG=memprofilerate=0
// of the operator's stays).
func Restore() {
	if stoppedRate != 0 {
		runtime.MemProfileRate = stoppedRate
		stoppedRate = 0
	}
}

// ProfilerOff reports whether args or the environment value env turn the
// profiler off, as the command line parser will decide it: the last of
// --no-http.enable-pprof, --http.enable-pprof and --http.enable-pprof=BOOL
// wins, and env counts only when no flag is given. Arguments after "--"
// are positional.
func ProfilerOff(args []string, env string) bool {
	const valued = "--" + Flag + "="
	decided, on := false, true
	for _, arg := range args {
		if arg == "--" {
			break
		}
		switch {
		case arg == "--no-"+Flag:
			decided, on = true, false
		case arg == "--"+Flag:
			decided, on = true, true
		case len(arg) >= len(valued) && arg[:len(valued)] == valued:
			if v, ok := parseBool(arg[len(valued):]); ok {
				decided, on = true, v
			}
		}
	}
	if decided {
		return !on
	}
	if v, ok := parseBool(env); ok {
		return !v
	}
	return false
}

// parseBool accepts what strconv.ParseBool accepts.
func parseBool(s string) (value, ok bool) {
	switch s {
	case "1", "t", "T", "true", "TRUE", "True":
		return true, true
	case "0", "f", "F", "false", "FALSE", "False":
		return false, true
	}
	return false, false
}
