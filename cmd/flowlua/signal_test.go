package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["signal"] = cmdSignal
}

// signal HUP|TERM|INT: sends a signal to the `flowlua run` processes the
// script started in the background (those whose working directory is
// $WORK), which testscript's own kill cannot do for HUP and TERM.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: signal HUP|TERM|INT")
	}
	sig, ok := map[string]syscall.Signal{"HUP": syscall.SIGHUP, "TERM": syscall.SIGTERM, "INT": syscall.SIGINT}[args[0]]
	if !ok {
		ts.Fatalf("unknown signal %q", args[0])
	}
	procs := runProcesses(ts)
	if len(procs) == 0 {
		ts.Fatalf("no flowlua run process found in %s", ts.Getenv("WORK"))
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		ts.Check(err)
		ts.Check(syscall.Kill(pid, sig))
	}
}

// runProcesses returns the /proc directories of the `flowlua run`
// processes the script started in the background: those whose working
// directory is $WORK.
func runProcesses(ts *testscript.TestScript) []string {
	work := ts.Getenv("WORK")
	procs, err := filepath.Glob("/proc/[0-9]*")
	ts.Check(err)
	var found []string
	for _, p := range procs {
		cwd, err := os.Readlink(filepath.Join(p, "cwd"))
		if err != nil || cwd != work {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil {
			continue
		}
		argv := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		if len(argv) < 2 || filepath.Base(string(argv[0])) != "flowlua" || string(argv[1]) != "run" {
			continue
		}
		found = append(found, p)
	}
	return found
}
