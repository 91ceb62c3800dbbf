package main

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["ssefirst"] = cmdSSEFirst
}

// ssefirst [-status=N] URL: opens an event stream and prints its first
// line; with -status, expects that status instead of 200 and a stream.
func cmdSSEFirst(ts *testscript.TestScript, neg bool, args []string) {
	want := http.StatusOK
	if len(args) > 0 && strings.HasPrefix(args[0], "-status=") {
		n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-status="))
		ts.Check(err)
		want, args = n, args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ssefirst [-status=N] URL")
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(args[0])
	ts.Check(err)
	defer resp.Body.Close()
	if resp.StatusCode != want {
		ts.Fatalf("GET %s: %d, want %d", args[0], resp.StatusCode, want)
	}
	if want != http.StatusOK {
		return
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		ts.Fatalf("GET %s: content type %q", args[0], ct)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	ts.Check(err)
	_, _ = ts.Stdout().Write([]byte(line))
}
