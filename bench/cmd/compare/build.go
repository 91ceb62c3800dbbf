package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// builderVersion is the version of the collector builder (ocb); keep it in
// step with the component versions in collector/builder-config.yaml.
const builderVersion = "v0.165.0"

// builderModule is what go install fetches through the module proxy.
const builderModule = "go.opentelemetry.io/collector/cmd/builder@" + builderVersion

// Paths, relative to the bench directory.
const (
	builderConfig = "collector/builder-config.yaml"
	buildDir      = ".build"
	builderBin    = ".build/bin/" + builderVersion + "/builder"
	collectorBin  = ".build/otelcol-bench" // the binary the runner starts
	loadgenBin    = ".build/loadgen"
	sinkBin       = ".build/sink"
)

// collectorBuild is one build of the upstream collector by the builder.
type collectorBuild struct {
	config string // builder configuration, relative to the bench directory
	dist   string // dist.name in config
	src    string // dist.output_path in config
	bin    string // the binary the runner starts
}

// The collector builds: the one with the components of the pipelines
// (builder-config.yaml), the peer of flowlua's core with the same
// components, and the one with every component flowlua hosts, core and
// plugins.
var (
	collectorMinimal = collectorBuild{builderConfig, "otelcol-bench", ".build/otelcol-src", collectorBin}
	collectorCore    = collectorBuild{"collector/builder-config-core.yaml", "otelcol-core", ".build/otelcol-core-src", ".build/otelcol-core"}
	collectorFull    = collectorBuild{"collector/builder-config-full.yaml", "otelcol-full", ".build/otelcol-full-src", ".build/otelcol-full"}
)

// run runs name with args in dir, sending its output to stderr; extraEnv is
// added to the environment.
func run(dir string, extraEnv []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extraEnv...)
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// buildTools builds the load generator and the sink into .build (Go's build
// cache makes this quick when nothing changed).
func buildTools(benchDir string) error {
	for _, t := range [][2]string{{loadgenBin, "./loadgen"}, {sinkBin, "./sink"}} {
		if err := run(benchDir, nil, "go", "build", "-o", t[0], t[1]); err != nil {
			return err
		}
	}
	// The native plugin of pipelines/plugin-attributes.lua, a module of
	// its own, built as make build builds flowlua's plugins.
	out, err := filepath.Abs(filepath.Join(benchDir, nativePluginBin))
	if err != nil {
		return err
	}
	return run(filepath.Join(benchDir, "nativeplugin"), []string{"CGO_ENABLED=0"}, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, ".")
}

// nativePluginBin is where pipelines/plugin-attributes.lua finds the
// bench's native plugin.
const nativePluginBin = ".build/plugins/attributes"

// configHash identifies a collector build: the builder version and the
// builder configuration.
func configHash(benchDir, config string) (string, error) {
	b, err := os.ReadFile(filepath.Join(benchDir, config))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	io.WriteString(h, builderModule+"\n")
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ensureCollector builds the upstream collector c with the builder unless
// its binary was already built from the same builder version and
// configuration. It installs the builder into .build/bin first if needed.
// Everything comes through the Go module proxy. When the builder's own
// module download fails (the proxy lacks the .info of some contrib
// modules at v0.165.0 that the module cache holds), the sources it
// generated are compiled with go build as the builder would.
func ensureCollector(benchDir string, c collectorBuild, force bool) error {
	want, err := configHash(benchDir, c.config)
	if err != nil {
		return err
	}
	bin := filepath.Join(benchDir, c.bin)
	hashFile := bin + ".sha256"
	if !force {
		got, err := os.ReadFile(hashFile)
		if _, statErr := os.Stat(bin); err == nil && statErr == nil && string(bytes.TrimSpace(got)) == want {
			return nil
		}
	}
	gobin, err := filepath.Abs(filepath.Join(benchDir, filepath.Dir(builderBin)))
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(benchDir, builderBin)); err != nil {
		logf("installing %s", builderModule)
		if err := run(benchDir, []string{"GOBIN=" + gobin}, "go", "install", builderModule); err != nil {
			return err
		}
	}
	logf("building the collector from %s (takes a few minutes the first time)", c.config)
	// The builder runs go get / go mod tidy / go build itself; -mod=mod lets
	// it update its generated go.mod, -buildvcs=false keeps git out of it.
	env := []string{"GOFLAGS=-mod=mod -buildvcs=false"}
	if err := run(benchDir, env, builderBin, "--config", c.config); err != nil {
		logf("the builder failed (%v); compiling its generated sources with go build", err)
		if err := run(filepath.Join(benchDir, c.src), env, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", c.dist, "."); err != nil {
			return err
		}
	}
	if err := copyFile(filepath.Join(benchDir, c.src, c.dist), bin); err != nil {
		return err
	}
	return os.WriteFile(hashFile, []byte(want+"\n"), 0o644)
}

// stageBinaries copies each system's binary into .build/run and points o
// at the copies, so that every system runs from a file written the same
// way. How a file was written decides how its pages sit in the page
// cache, and with it the file-backed part of the resident memory: the
// same flowlua binary had 37 MB of its file resident when run as the Go
// linker wrote it and 29 MB when run from a plain copy, and the
// collector was already run from a copy.
func stageBinaries(o *options) error {
	dir := filepath.Join(o.benchDir, buildDir, "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, b := range []struct {
		path *string
		name string
	}{{&o.collectorBin, "collector"}, {&o.collectorCoreBin, "collector-core"}, {&o.collectorFullBin, "collector-full"}, {&o.flowluaBin, "flowlua"}, {&o.baselineBin, "flowlua-baseline"}} {
		if *b.path == "" {
			continue
		}
		if _, err := os.Stat(*b.path); err != nil {
			continue // reported as a skipped system when it is measured
		}
		staged := filepath.Join(dir, b.name)
		if err := copyFile(*b.path, staged); err != nil {
			return fmt.Errorf("staging %s: %w", *b.path, err)
		}
		*b.path = staged
	}
	return nil
}

// copyFile copies an executable from src to dst through a temporary file.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
