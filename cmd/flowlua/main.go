// Command flowlua runs telemetry pipelines written in Lua.
package main

import (
	"os"

	// Imported for its initialiser: it stops heap sampling before the
	// dependencies' initialisers run when the profiler is turned off.
	_ "github.com/flowlua/flowlua/cmd/flowlua/internal/heapsampling"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}
