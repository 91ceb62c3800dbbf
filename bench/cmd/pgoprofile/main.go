// Command pgoprofile merges CPU profiles of flowlua into the profile that
// `go build` applies to it (cmd/flowlua/default.pgo), keeping only what
// profile-guided optimization reads: function names, their start lines and
// the sampled lines. The paths of the machine the profiles were taken on
// (the binary's, the sources') are reduced to base names, so that the
// committed profile names nothing of that machine.
//
// Usage: go run ./cmd/pgoprofile -o OUT PROFILE...
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"
)

func main() {
	out := flag.String("o", "", "the merged profile to write")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: pgoprofile -o OUT PROFILE...")
		os.Exit(2)
	}
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "pgoprofile:", err)
		os.Exit(1)
	}
}

func run(out string, files []string) error {
	var profiles []*profile.Profile
	for _, f := range files {
		p, err := read(f)
		if err != nil {
			return err
		}
		profiles = append(profiles, p)
	}
	merged, err := profile.Merge(profiles)
	if err != nil {
		return fmt.Errorf("merging %d profiles: %w", len(profiles), err)
	}
	scrub(merged)
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := merged.Write(w); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return w.Close()
}

func read(file string) (*profile.Profile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

// scrub reduces every path to its base name and drops what only locates
// the profiled binary (build IDs, comments).
func scrub(p *profile.Profile) {
	for _, m := range p.Mapping {
		m.File = filepath.Base(m.File)
		m.BuildID = ""
	}
	for _, fn := range p.Function {
		fn.Filename = filepath.Base(fn.Filename)
	}
	p.Comments = nil
}
