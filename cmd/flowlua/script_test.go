package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"flowlua": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/scripts/*.txtar against the real command line.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/scripts",
		RequireExplicitExec: true,
		// UPDATE_SCRIPTS=1 rewrites the golden files that cmp compares.
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(e *testscript.Env) error {
			addr, err := freePort()
			if err != nil {
				return err
			}
			e.Setenv("HTTP_ADDR", addr)
			e.Setenv("FLOWLUA_HTTP_LISTEN_ADDR", addr)
			e.Setenv("FLOWLUA_STORAGE_PATH", e.WorkDir+"/data")
			return nil
		},
		Cmds: scriptCmds,
		// [race]: the tests run with the race detector; other test
		// files add theirs to scriptConds.
		Condition: func(cond string) (bool, error) {
			if cond == "race" {
				return raceEnabled, nil
			}
			if c, ok := scriptConds[cond]; ok {
				return c()
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// scriptCmds are the custom commands of the scripts; other test files add
// theirs from init().
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"freeport": cmdFreeport,
	"waithttp": cmdWaitHTTP,
	"httpget":  cmdHTTP(http.MethodGet),
	"httppost": cmdHTTP(http.MethodPost),
	"waitfile": cmdWaitFile,
	"inorder":  cmdInOrder,
	"waitbody": cmdWaitBody,
}

// scriptConds are the custom conditions of the scripts, added from init().
var scriptConds = map[string]func() (bool, error){}

// waitLimit bounds every polling command.
const waitLimit = 30 * time.Second

// givenPorts are the addresses freePort returned in this process: the
// port the OS hands out for ":0" is free now, and nothing stops the next
// call from getting the same one once it is closed (a node's HTTP and
// gossip addresses once came out equal, and its gossip failed to bind).
var (
	givenPortsMu sync.Mutex
	givenPorts   = map[string]bool{}
)

// freePort returns 127.0.0.1:<a port free now>, never one it returned
// before in this process.
func freePort() (string, error) {
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		addr := l.Addr().String()
		l.Close()
		givenPortsMu.Lock()
		given := givenPorts[addr]
		givenPorts[addr] = true
		givenPortsMu.Unlock()
		if !given {
			return addr, nil
		}
	}
	return "", fmt.Errorf("no free port that was not given out before, in 100 tries")
}

// freeport VAR: sets VAR to 127.0.0.1:<a free port>.
func cmdFreeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	addr, err := freePort()
	ts.Check(err)
	ts.Setenv(args[0], addr)
}

var client = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true},
}

// waithttp URL [STATUS]: polls URL until it answers STATUS (default 200).
func cmdWaitHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waithttp URL [STATUS]")
	}
	want := 200
	if len(args) == 2 {
		var err error
		want, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	deadline := time.Now().Add(waitLimit)
	last := "no answer"
	for time.Now().Before(deadline) {
		resp, err := client.Get(args[0])
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == want {
				return
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("%s did not answer %d within %s; last: %s", args[0], want, waitLimit, last)
}

// httpget/httppost [-status=N] URL: one request; the body goes to stdout.
// Without -status any 2xx passes.
func cmdHTTP(method string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		want := 0
		if len(args) > 0 && strings.HasPrefix(args[0], "-status=") {
			n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-status="))
			ts.Check(err)
			want, args = n, args[1:]
		}
		if len(args) != 1 {
			ts.Fatalf("usage: http%s [-status=N] URL", strings.ToLower(method))
		}
		req, err := http.NewRequest(method, args[0], nil)
		ts.Check(err)
		resp, err := client.Do(req)
		if err != nil {
			if neg {
				return
			}
			ts.Fatalf("%s %s: %v", method, args[0], err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		ts.Check(err)
		fmt.Fprint(ts.Stdout(), string(body))
		ok := resp.StatusCode/100 == 2
		if want != 0 {
			ok = resp.StatusCode == want
		}
		if ok == neg {
			ts.Fatalf("%s %s: unexpected status %d: %s", method, args[0], resp.StatusCode, body)
		}
	}
}

// waitfile FILE REGEXP: polls until FILE exists and matches REGEXP (with
// (?m) so that ^ and $ match lines).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && re.Match(data) {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	data, _ := os.ReadFile(path)
	ts.Fatalf("%s did not match %q within %s; it holds:\n%s", args[0], args[1], waitLimit, data)
}

// inorder FILE REGEXP...: each REGEXP matches a line of FILE, after the
// line the previous one matched.
func cmdInOrder(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: inorder FILE REGEXP...")
	}
	lines := strings.Split(ts.ReadFile(args[0]), "\n")
	at := 0
	for _, pattern := range args[1:] {
		re, err := regexp.Compile(pattern)
		ts.Check(err)
		found := false
		for ; at < len(lines); at++ {
			if re.MatchString(lines[at]) {
				found = true
				at++
				break
			}
		}
		if !found {
			ts.Fatalf("no line matching %q after the previous match in %s:\n%s", pattern, args[0], strings.Join(lines, "\n"))
		}
	}
}

// waitbody URL REGEXP: polls URL until its body matches REGEXP (with (?m)).
func cmdWaitBody(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitbody URL REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	deadline := time.Now().Add(waitLimit)
	last := ""
	for time.Now().Before(deadline) {
		resp, err := client.Get(args[0])
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if re.Match(body) {
				return
			}
			last = string(body)
		} else {
			last = err.Error()
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("%s did not match %q within %s; last:\n%s", args[0], args[1], waitLimit, last)
}
