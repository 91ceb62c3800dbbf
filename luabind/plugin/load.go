package plugin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind/luacomponent"
)

// Options configure Load.
type Options struct {
	// SearchPaths are directories a relative plugin path is looked up in
	// after the script's directory (the --plugins.path flag), before the
	// default plugins/ next to the script.
	SearchPaths []string
	// Native opens native plugins; nil: a declaration must name a Lua
	// plugin directory.
	Native Native
}

// declaration is the argument table of `plugin "acme" { ... }`.
type declaration struct {
	Path    string   `lua:"path" doc:"the plugin directory (default: the namespace), relative to the script's directory or a plugins path"`
	Version string   `lua:"version" doc:"the version the plugin must have"`
	Grants  []string `lua:"grants" doc:"what the plugin's components may use beyond the sandbox: os.time, os.date, os.clock, os.difftime, os.getenv, io.open"`
	SHA256  string   `lua:"sha256" doc:"a native plugin's executable must have this sha256 (hex), checked before it starts"`
}

// Loaded is what Load found.
type Loaded struct {
	// Registry is the registry to check the script against: base plus
	// the plugins' components; nil when a plugin failed to load.
	Registry *component.Registry
	// Files are the plugins' files on disk, in the order they were read,
	// so that they are watched like the script.
	Files []string
	// Digests holds what each of Files held when it was read, and
	// script.Absent for the files looked for and not found (the manifest
	// in each directory tried, a component's file), so that a reload
	// that failed for them is retried when they appear.
	Digests map[string]script.Digest
}

func (l *Loaded) addFile(path string, content []byte) {
	l.Files = append(l.Files, path)
	l.addDigest(path, script.DigestOf(content))
}

func (l *Loaded) addMissing(path string) { l.addDigest(path, script.Absent) }

func (l *Loaded) addDigest(path string, d script.Digest) {
	if l.Digests == nil {
		l.Digests = map[string]script.Digest{}
	}
	l.Digests[path] = d
}

// Load loads the plugins s declares. It returns a clone of base with
// their components added under the declared namespaces (base itself
// when s declares none), and the files it read or looked for. It
// modifies neither s nor base. Every problem is returned as a
// script.Diagnostic: at the declaration (a missing directory, a version
// mismatch, a missing grant) or in the plugin's files (a malformed
// manifest or component); the files are returned then too.
func Load(s *script.Script, base *component.Registry, opts Options) (Loaded, error) {
	if len(s.Plugins) == 0 {
		return Loaded{Registry: base}, nil
	}
	var l Loaded
	reg := base.Clone()
	var ds script.Diagnostics
	for _, decl := range s.Plugins {
		files, err := loadDeclared(s.Path, decl, reg, &l, opts)
		files.addTo(&l)
		if err != nil {
			ds = append(ds, script.AsDiagnostics(err)...)
		}
	}
	if len(ds) > 0 {
		ds.Sort()
		return l, ds
	}
	l.Registry = reg
	return l, nil
}

// loadDeclared loads one declared plugin of the script at scriptPath into
// reg and returns its files (nil when the directory could not be read);
// the files it looked for and did not find go to l.
func loadDeclared(scriptPath string, decl script.Plugin, reg *component.Registry, l *Loaded, opts Options) (*files, error) {
	ns := decl.Namespace
	at := func(format string, args ...any) error {
		return script.Diagnostics{script.Errorf(decl.Pos, "plugin %q: "+format, append([]any{ns}, args...)...)}
	}
	var d declaration
	if err := decode.Decode(decl.Args, &d); err != nil {
		var ds script.Diagnostics
		var errs decode.Errors
		if errors.As(err, &errs) {
			for _, e := range errs {
				ds = append(ds, script.Errorf(decl.Pos, "plugin %q: %s", ns, e.Error()))
			}
			return nil, ds
		}
		return nil, at("%v", err)
	}
	if !nameRE.MatchString(ns) {
		return nil, at("a namespace must be lowercase letters, digits and _")
	}
	if taken := namespaceTaken(reg, ns); taken != "" {
		return nil, at("the namespace clashes with the component %s: choose another one", taken)
	}
	if d.Path == "" {
		d.Path = ns
	}
	if opts.Native != nil {
		if exe := findExecutable(filepath.Dir(scriptPath), d.Path, opts.SearchPaths); exe != "" {
			return nil, loadNative(decl, d, exe, reg, l, opts.Native)
		}
	}
	if err := luacomponent.CheckGrants(d.Grants); err != nil {
		return nil, at("grants: %v", err)
	}
	if d.SHA256 != "" {
		return nil, at("sha256 pins a native plugin's executable, and %s names none", d.Path)
	}
	dir, tried, err := findDir(filepath.Dir(scriptPath), d.Path, opts.SearchPaths)
	if err != nil {
		for _, t := range tried {
			l.addMissing(filepath.Join(t, manifestLua))
		}
		return nil, at("%v", err)
	}
	f, err := readDirFiles(dir)
	switch {
	case errors.Is(err, errNoManifest):
		l.addMissing(filepath.Join(dir, manifestLua))
		return nil, at("%s is not a plugin directory: it has no %s", dir, manifestLua)
	case err != nil:
		return nil, at("reading %s: %v", dir, err)
	}
	p, err := load(f)
	if err != nil {
		return f, err
	}
	if d.Version != "" && strings.TrimPrefix(d.Version, "v") != strings.TrimPrefix(p.manifest.Version, "v") {
		return f, at("version %q declared, but %s is version %q", d.Version, f.display(manifestLua), p.manifest.Version)
	}
	var missing []string
	for _, g := range p.manifest.Grants {
		if !slices.Contains(d.Grants, g) {
			missing = append(missing, fmt.Sprintf("%q", g))
		}
	}
	if len(missing) > 0 {
		return f, at("the plugin needs grants = { %s }: add them to the declaration to allow it", strings.Join(missing, ", "))
	}
	for _, r := range p.registrations(ns) {
		if err := reg.Add(r); err != nil {
			return f, at("%v", err)
		}
	}
	return f, nil
}

// namespaceTaken returns a registered component under ns, or "".
func namespaceTaken(reg *component.Registry, ns string) string {
	for _, name := range reg.Names() {
		if name == ns || strings.HasPrefix(name, ns+".") {
			return name
		}
	}
	return ""
}

// findDir looks a plugin path up: an absolute path as it is; a relative
// one in the script's directory, then in each search path, then in
// plugins/ next to the script. When it finds none, it also returns the
// directories it looked in.
func findDir(scriptDir, path string, search []string) (dir string, tried []string, err error) {
	if filepath.IsAbs(path) {
		if isDir(path) {
			return path, nil, nil
		}
		return "", []string{path}, fmt.Errorf("plugin directory %s not found", path)
	}
	for _, base := range append(append([]string{scriptDir}, search...), filepath.Join(scriptDir, "plugins")) {
		dir := filepath.Join(base, path)
		if isDir(dir) {
			return dir, nil, nil
		}
		if !slices.Contains(tried, dir) {
			tried = append(tried, dir)
		}
	}
	return "", tried, fmt.Errorf("plugin directory %q not found (looked in %s)", path, strings.Join(tried, ", "))
}

// findExecutable looks a plugin path up as findDir does, for an
// executable file; "" when there is none.
func findExecutable(scriptDir, path string, search []string) string {
	if filepath.IsAbs(path) {
		if isExecutable(path) {
			return path
		}
		return ""
	}
	for _, base := range append(append([]string{scriptDir}, search...), filepath.Join(scriptDir, "plugins")) {
		if p := filepath.Join(base, path); isExecutable(p) {
			return p
		}
	}
	return ""
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// LoadFS loads a plugin held in fsys (its root is the plugin directory,
// e.g. an embed.FS sub-tree) and returns its components under its own
// name, for built-in plugins; dir names the plugin in messages.
func LoadFS(fsys fs.FS, dir string) ([]component.Registration, error) {
	f, err := readFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	p, err := load(f)
	if err != nil {
		return nil, err
	}
	return p.registrations(p.manifest.Name), nil
}

// Scan finds the plugins in the subdirectories of dirs and returns their
// components under the plugins' own names, for listings: a plugin found
// twice is listed once (the first, in dirs order then name order), and
// it gets the grants it asks for. Directories that are no plugins are
// skipped; broken plugins are returned as errors.
func Scan(dirs []string) ([]component.Registration, error) {
	var regs []component.Registration
	var errs []error
	seen := map[string]bool{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			f, err := readDirFiles(filepath.Join(dir, e.Name()))
			if err != nil {
				if !errors.Is(err, errNoManifest) {
					errs = append(errs, err)
				}
				continue
			}
			p, err := load(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if seen[p.manifest.Name] {
				continue
			}
			seen[p.manifest.Name] = true
			regs = append(regs, p.registrations(p.manifest.Name)...)
		}
	}
	return regs, errors.Join(errs...)
}
