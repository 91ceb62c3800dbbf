package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["peakrss"] = cmdPeakRSS
}

// peakrss MiB: fails unless the peak resident memory (VmHWM) of each
// `flowlua run` process the script started in the background (those
// whose working directory is $WORK) is at most MiB; it logs the peak.
func cmdPeakRSS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: peakrss MiB")
	}
	limit, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	found := 0
	for _, p := range runProcesses(ts) {
		status, err := os.ReadFile(filepath.Join(p, "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 || f[0] != "VmHWM:" || f[2] != "kB" {
				continue
			}
			kb, err := strconv.ParseInt(f[1], 10, 64)
			ts.Check(err)
			ts.Logf("%s: peak RSS %d MiB", filepath.Base(p), kb>>10)
			if kb>>10 > limit {
				ts.Fatalf("flowlua run (pid %s) peaked at %d MiB resident, more than %d MiB", filepath.Base(p), kb>>10, limit)
			}
			found++
		}
	}
	if found == 0 {
		ts.Fatalf("no flowlua run process found in %s", ts.Getenv("WORK"))
	}
}
