package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["nativeplugin"] = cmdNativePlugin
	scriptCmds["sha256"] = cmdSHA256
	scriptCmds["killexe"] = cmdKillExe
	scriptCmds["waitexegone"] = cmdWaitExeGone
}

// examplePlugin builds examples/plugin once per test binary.
var examplePlugin = sync.OnceValues(func() (string, error) {
	return buildPlugin(filepath.Join("..", "..", "examples", "plugin"), "example")
})

// buildPlugin builds the plugin module in dir, as make build builds
// plugins, into a new temporary directory as name.
func buildPlugin(dir, name string) (string, error) {
	tmp, err := os.MkdirTemp("", "flowlua-plugin-"+name)
	if err != nil {
		return "", err
	}
	out := filepath.Join(tmp, name)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", dir, err, b)
	}
	return out, nil
}

// nativeplugin [-variant N] DEST: copies the example native plugin
// (examples/plugin, built once) to DEST, executable. -variant appends N
// bytes, which makes another executable content that runs the same.
func cmdNativePlugin(ts *testscript.TestScript, neg bool, args []string) {
	variant := 0
	if len(args) == 3 && args[0] == "-variant" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		variant, args = n, args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: nativeplugin [-variant N] DEST")
	}
	src, err := examplePlugin()
	ts.Check(err)
	install(ts, src, args[0], variant)
}

// install copies the executable src to dest in $WORK, with pad bytes
// appended: a new file, renamed over the old one, as an installer
// replaces it.
func install(ts *testscript.TestScript, src, dest string, pad int) {
	b, err := os.ReadFile(src)
	ts.Check(err)
	b = append(b, make([]byte, pad)...)
	dest = ts.MkAbs(dest)
	ts.Check(os.MkdirAll(filepath.Dir(dest), 0o755))
	tmp := dest + ".tmp"
	ts.Check(os.WriteFile(tmp, b, 0o755))
	ts.Check(os.Rename(tmp, dest))
}

// sha256 VAR FILE: sets VAR to FILE's sha256 in hex.
func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sha256 VAR FILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	sum := sha256.Sum256(b)
	ts.Setenv(args[0], hex.EncodeToString(sum[:]))
}

// waitexegone FILE: polls until no process runs the executable FILE,
// failing after 10 s.
func cmdWaitExeGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitexegone FILE")
	}
	want := ts.MkAbs(args[0])
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := pidsRunning(want)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s still runs after 10s: pids %v", want, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pidsRunning returns the processes running the executable exe.
func pidsRunning(exe string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if got, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && got == exe {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killexe FILE: SIGKILLs every process running the executable FILE, and
// fails when there is none.
func cmdKillExe(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: killexe FILE")
	}
	want := ts.MkAbs(args[0])
	entries, err := os.ReadDir("/proc")
	ts.Check(err)
	killed := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || exe != want {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed == 0 {
		ts.Fatalf("no process runs %s", want)
	}
}
