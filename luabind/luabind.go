// Package luabind runs a flowlua pipeline script in a sandboxed gopher-lua
// state and produces its neutral form, a *script.Script (see package
// engine/script). It knows the language; the engine knows the components
// and checks references, types and cycles afterwards.
//
// # The language
//
//	otelcol.exporter.otlp "up" {                  -- a component block
//	  endpoint = env("UPSTREAM", "127.0.0.1:4317"),
//	  headers  = { auth = "Bearer " .. file.read.token.content },
//	  upper    = compute(function(t) return t:upper() end, file.read.token.content),
//	}
//	file.read "token" { filename = "/etc/token" }  -- order does not matter
//	http { listen = "127.0.0.1:12345" }           -- a service block
//	plugin "acme" { path = "plugins/acme" }        -- acme.<name> "label" { ... }
//	local gw = require "lib.gateway"               -- lib/gateway.lua
//
// Each first part of a registered component name is a global namespace;
// `<name> "<label>" { ... }` records a script.Block, and
// `<name>.<label>.<export>` a lazy *script.Ref positioned where it was
// written. References combine with `..` and arithmetic into *script.Expr
// values; compute(fn, inputs...) lists its inputs and calls fn at
// evaluation time. A component declaration returns `<name>.<label>`, so
// `local tok = file.read "token" { ... }` allows `tok.content`. A plugin
// namespace is usable from the start of a file that declares it at its
// top level (`plugin "acme" { ... }`), else from the declaration on.
//
// # Loading, step by step
//
//  1. The source is parsed once with github.com/yuin/gopher-lua/parse. The
//     syntax tree gives the line of every field of every literal argument
//     table (Block.FieldPos) and the plugin namespaces a file declares at
//     its top level; long bodies are split into closures (see split.go)
//     before compiling.
//  2. A fresh LState opens only base (without dofile, loadfile,
//     collectgarbage and module; load and loadstring take text only),
//     string, table and math, and gets flowlua's globals: the namespaces,
//     one block function per service, plugin, env, compute and require.
//     Reading an undefined global is an error; os, io, debug and package
//     are reported as unavailable.
//  3. The script runs under a deadline (LoadOptions.Timeout). Mistakes are
//     recorded and the script goes on, so that one load reports as many
//     problems as it can; a Lua error stops it.
//  4. Every problem becomes a script.Diagnostic at the file:line where it
//     was written; Load returns them sorted as a script.Diagnostics.
//
// # Limits
//
// A file is at most 8 MiB and its expressions nest at most 500 deep; an
// argument table nests at most 100 deep and holds at most 2^20 values; a
// load stops after 100 problems; string.format widths have at most two
// digits. The script's Lua state has a memory budget
// (LoadOptions.MemoryLimit, 64 MiB by default) kept by package
// luabind/luamem at load and in compute calls: string.rep, string.format,
// string.gsub and table.concat refuse to build a string larger than the
// budget, and the state measures itself as the process allocates; a
// script over its budget fails to load with "memory limit of 64 MiB
// exceeded". Not bounded: one long pattern match, which the deadline
// cannot interrupt.
//
// # The Lua state after Load
//
// When a script uses compute, the Lua state stays alive after Load: the
// script.Func of each compute expression calls back into it at evaluation
// time. Calls are serialized by a mutex, so a Func may be called from any
// goroutine, and each call is bounded by LoadOptions.ComputeTimeout. The
// state holds no operating-system resources (no io or os library is
// opened), so there is nothing to close: it is freed by the garbage
// collector once the Script's compute expressions are unreachable. When a
// script uses no compute, or fails to load, the state is closed before
// Load returns.
package luabind

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/flowlua/flowlua/engine/boundedfile"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/luamem"
)

// Defaults and bounds of a load.
const (
	// DefaultTimeout bounds running a script when LoadOptions.Timeout is 0.
	DefaultTimeout = 10 * time.Second
	// DefaultComputeTimeout bounds one compute call when
	// LoadOptions.ComputeTimeout is 0.
	DefaultComputeTimeout = time.Second
	// DefaultMemoryLimit bounds the memory of the script's Lua state when
	// LoadOptions.MemoryLimit is 0 (see package luabind/luamem).
	DefaultMemoryLimit = 64 << 20

	maxSourceSize  = 8 << 20 // bytes of one script or module
	maxDiagnostics = 100     // the load stops after this many problems
)

// LoadOptions configure a load.
type LoadOptions struct {
	// Components are the registered component names, e.g. "file.read" or
	// "otelcol.receiver.otlp". No name may be a prefix of another.
	Components []string
	// Services are the service names, e.g. "http": a block `http { ... }`
	// configures the service.
	Services []string
	// Getenv reads the environment for env(); nil means os.LookupEnv.
	Getenv func(string) (string, bool)
	// Timeout bounds running the script (and its modules); 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// ComputeTimeout bounds one call of a compute function at evaluation
	// time; 0 means DefaultComputeTimeout.
	ComputeTimeout time.Duration
	// MemoryLimit bounds the memory of the script's Lua state, at load
	// and in compute calls; 0 means DefaultMemoryLimit.
	MemoryLimit int64
	// Print receives what the script prints with print; nil means
	// os.Stderr, so that a command's own output stays clean.
	Print io.Writer
	// Prelude runs before the script, in the same state: flowlua's own
	// modules (package stdlib/integrations) are defined this way, in the
	// public module language. Its files are not watched.
	Prelude []Source
}

// Source is a named chunk of Lua source.
type Source struct {
	Name string // as positions show it: "stdlib/integrations/host.lua"
	Src  []byte
}

// Load reads the script at path and runs it; see LoadSource.
func Load(path string, opts LoadOptions) (*script.Script, error) {
	src, err := boundedfile.Read(path, maxSourceSize, "the limit of a script")
	if err != nil {
		if pe := (*fs.PathError)(nil); !errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", path, err) // the file's type or size
		}
		return nil, fmt.Errorf("reading script: %w", err)
	}
	return LoadSource(path, src, opts)
}

// LoadSource runs the script src as if read from path and returns what it
// declared. Modules are read relative to filepath.Dir(path), and positions
// name files by path as given (modules: that directory joined with the
// module's relative file, e.g. "lib/gateway.lua").
//
// Mistakes in the script are returned as script.Diagnostics; any other error
// (invalid options) is returned as is. When the script ran to its end
// despite recorded mistakes (an unknown component, a duplicate id, ...),
// the script it collected is returned along with them, so that a checker
// can add its own findings; otherwise the script is nil. LoadSource never
// panics.
func LoadSource(path string, src []byte, opts LoadOptions) (s *script.Script, err error) {
	ld, err := newLoader(path, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("luabind: internal error loading %s: %v", path, r)
			ld.close()
		}
	}()
	return ld.run(src)
}

// loader is the state of one load. Its Go functions are bound into the Lua
// state; after the load they only run from compute calls, serialized by the
// runtime's mutex.
type loader struct {
	opts    LoadOptions
	path    string // the main script, as given
	dir     string // the directory modules are read from
	getenv  func(string) (string, bool)
	L       *lua.LState
	rt      *runtime
	root    *os.Root // dir, opened on the first require
	mt      metatables
	sink    lua.LValue // absorbs whatever is done to it after an error
	errFunc *lua.LFunction

	names    *nsNode  // the tree of component names
	comps    []string // registered component names, sorted
	services map[string]bool
	chunks   map[string]*chunk // compiled files by display path
	modules  map[string]*module

	out        *script.Script
	ids        map[string]script.Pos // declared component ids
	serviceIDs map[string]script.Pos
	pluginIDs  map[string]script.Pos
	pending    []*decl
	scope      []string // the module instances whose body runs, outermost first
	placements []string // their placements, innermost last
	unknowns   []*unknownRecord
	diags      script.Diagnostics
	usesFunc   bool // a compute expression needs the state after the load
	done       bool // the load is over: no more declarations
}

func newLoader(path string, opts LoadOptions) (*loader, error) {
	ld := &loader{
		opts:       opts,
		path:       path,
		dir:        filepath.Dir(path),
		getenv:     opts.Getenv,
		chunks:     map[string]*chunk{},
		modules:    map[string]*module{},
		ids:        map[string]script.Pos{},
		serviceIDs: map[string]script.Pos{},
		pluginIDs:  map[string]script.Pos{},
		out:        &script.Script{Path: path},
	}
	if ld.getenv == nil {
		ld.getenv = os.LookupEnv
	}
	if ld.opts.Timeout <= 0 {
		ld.opts.Timeout = DefaultTimeout
	}
	if ld.opts.ComputeTimeout <= 0 {
		ld.opts.ComputeTimeout = DefaultComputeTimeout
	}
	if ld.opts.MemoryLimit <= 0 {
		ld.opts.MemoryLimit = DefaultMemoryLimit
	}
	if ld.opts.Print == nil {
		ld.opts.Print = os.Stderr
	}
	names, err := buildNames(opts.Components)
	if err != nil {
		return nil, err
	}
	ld.names = names
	ld.comps = append([]string(nil), opts.Components...)
	sort.Strings(ld.comps)
	ld.services = map[string]bool{}
	for _, s := range opts.Services {
		if !isIdent(s) {
			return nil, fmt.Errorf("luabind: invalid service name %q", s)
		}
		if _, ok := names.children[s]; ok {
			return nil, fmt.Errorf("luabind: service %q clashes with the component namespace %q", s, s)
		}
		ld.services[s] = true
	}
	if err := ld.newState(); err != nil {
		ld.close()
		return nil, err
	}
	return ld, nil
}

// run compiles and runs the main script, then collects the result.
func (ld *loader) run(src []byte) (*script.Script, error) {
	defer ld.closeRoot()
	ch, diags := ld.compile(ld.path, src)
	if diags != nil {
		ld.close()
		return nil, diags
	}
	ld.out.AddFile(ld.path, src)

	L := ld.L
	guard := luamem.Start(L, ld.opts.Timeout, ld.opts.MemoryLimit, false)
	L.SetContext(guard)
	var err error
	for _, p := range ld.opts.Prelude {
		pch, diags := ld.compile(p.Name, p.Src)
		if diags != nil {
			L.RemoveContext()
			guard.Stop()
			ld.close()
			return nil, diags
		}
		L.Push(L.NewFunctionFromProto(pch.proto))
		if err = L.PCall(0, 0, ld.errFunc); err != nil {
			break
		}
	}
	if err == nil {
		L.Push(L.NewFunctionFromProto(ch.proto))
		err = L.PCall(0, 0, ld.errFunc)
	}
	L.RemoveContext()
	guard.Stop()
	ld.done = true
	if err != nil {
		d := ld.errorDiagnostic(err, script.Pos{File: ld.path, Line: 1})
		if lerr := guard.LimitErr(); lerr != nil {
			d.Message = "loading the script: " + lerr.Error()
		} else if guard.Err() != nil {
			d.Message = fmt.Sprintf("script did not finish loading within %s (is there an endless loop?)", ld.opts.Timeout)
		}
		ld.diags = append(ld.diags, d)
	} else {
		ld.finish()
	}

	if len(ld.diags) > 0 && err != nil {
		ld.close()
		return nil, sortDiagnostics(ld.diags)
	}
	if !ld.usesFunc {
		ld.close()
	}
	if len(ld.diags) > 0 {
		// The script ran to its end: what it declared is returned with its
		// mistakes, so that a checker can report its own findings as well.
		return ld.out, sortDiagnostics(ld.diags)
	}
	return ld.out, nil
}

// finish reports what can only be known once the script ran to its end:
// declarations that never got their argument table, unknown names that
// were never used.
func (ld *loader) finish() {
	for _, d := range ld.pending {
		if !d.called {
			ld.diags = append(ld.diags, script.Errorf(d.pos, "%s: expected an argument table { ... }", d.describe()))
		}
	}
	for _, u := range ld.unknowns {
		if !u.reported {
			ld.diags = append(ld.diags, script.Errorf(u.pos, "unknown name %q%s", u.name(), ld.didYouMeanChild(u)))
		}
	}
}

// close closes the Lua state unless it is closed already.
func (ld *loader) close() {
	if ld.L != nil && !ld.L.IsClosed() {
		ld.L.Close()
	}
}

// closeRoot closes the module directory if require opened it.
func (ld *loader) closeRoot() {
	if ld.root != nil {
		_ = ld.root.Close()
		ld.root = nil
	}
}
