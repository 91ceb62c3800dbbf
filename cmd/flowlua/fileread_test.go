package main

import (
	"os"
	"strconv"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["mkfifo"] = cmdMkfifo
	scriptCmds["mkfile"] = cmdMkfile
}

// mkfifo NAME: makes a FIFO (a named pipe) NAME.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo NAME")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}

// mkfile NAME SIZE: makes a file NAME of SIZE zero bytes.
func cmdMkfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mkfile NAME SIZE")
	}
	size, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(f.Truncate(size))
	ts.Check(f.Close())
}
