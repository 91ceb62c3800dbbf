package main

import (
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["waitstatus"] = cmdWaitStatus
}

// waitstatus WITHIN URL STATUS REGEXP: polls URL until it answers STATUS
// with a body matching REGEXP (with (?m)); fails if that takes longer than
// WITHIN (a duration). The body that matched goes to stdout.
func cmdWaitStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: waitstatus WITHIN URL STATUS REGEXP")
	}
	within, err := time.ParseDuration(args[0])
	ts.Check(err)
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	re, err := regexp.Compile("(?m)" + args[3])
	ts.Check(err)
	start := time.Now()
	deadline := start.Add(within)
	last := "no answer"
	for time.Now().Before(deadline) {
		resp, err := client.Get(args[1])
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == want && re.Match(body) {
				ts.Logf("%s answered %d after %s", args[1], want, time.Since(start).Round(time.Millisecond))
				_, _ = ts.Stdout().Write(body)
				return
			}
			last = strconv.Itoa(resp.StatusCode) + " " + string(body)
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("%s did not answer %d matching %q within %s; last: %s", args[1], want, args[3], within, last)
}
