package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/decode"
	"github.com/flowlua/flowlua/engine/script"
)

// Native opens native plugins: executables that serve components from
// their own process (package stdlib/native). This package only finds
// them and registers what they serve.
type Native interface {
	// Open opens the executable at path. A non-empty sum (hex sha256)
	// pins its content and version its version; a mismatch is an error.
	Open(path, version, sum string) (NativePlugin, error)
}

// NativePlugin is what an opened native plugin serves.
type NativePlugin struct {
	// Name and Version are the plugin's own.
	Name, Version string
	// Digest is the executable's content, for the watcher.
	Digest script.Digest
	// Components are its components under their own names, with source
	// as their Source.
	Components func(source string) []component.Registration
}

// sourceFound and sourceDeclared start the Source of a native plugin's
// components: a declared plugin takes a name from a found one.
const (
	sourceFound    = "native plugin "
	sourceDeclared = "declared native plugin "
)

// isExecutable reports whether path is a regular file someone may run.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// FindNative opens the native plugins in dirs (executable files; a
// directory is a Lua plugin, another file is no plugin) and returns a
// clone of base with their components added under their own names, and
// the executables' digests, to watch them. A plugin found in two
// directories is taken from the first. A name served twice is registered
// as an error naming both sources (see addServed).
func FindNative(dirs []string, base *component.Registry, native Native) (*component.Registry, map[string]script.Digest, error) {
	reg := base.Clone()
	digests := map[string]script.Digest{}
	seen := map[string]bool{}
	var errs script.Diagnostics
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if e.IsDir() || !isExecutable(path) {
				continue
			}
			np, err := native.Open(path, "", "")
			if err != nil {
				errs = append(errs, script.Diagnostic{Message: fmt.Sprintf("native plugin %s: %v", path, err)})
				continue
			}
			digests[path] = np.Digest
			if seen[np.Name] {
				continue
			}
			seen[np.Name] = true
			for _, r := range np.Components(fmt.Sprintf("%s%s %s (%s)", sourceFound, np.Name, np.Version, path)) {
				if err := addServed(reg, r); err != nil {
					errs = append(errs, script.Diagnostic{Message: fmt.Sprintf("native plugin %s: %v", path, err)})
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, digests, errs
	}
	return reg, digests, nil
}

// loadNative registers the components of the declared native plugin at
// path: under the namespace (ns.<class>.<type> for otelcol.<class>.<type>),
// and under their own names where flowlua has no such component built in.
func loadNative(decl script.Plugin, d declaration, path string, reg *component.Registry, l *Loaded, native Native) error {
	ns := decl.Namespace
	at := func(format string, args ...any) error {
		return script.Diagnostics{script.Errorf(decl.Pos, "plugin %q: "+format, append([]any{ns}, args...)...)}
	}
	if len(d.Grants) > 0 {
		return at("grants are for Lua plugins: %s is a native plugin, which runs in its own process", path)
	}
	np, err := native.Open(path, d.Version, d.SHA256)
	if err != nil {
		return at("%v", err)
	}
	l.Files = append(l.Files, path)
	l.addDigest(path, np.Digest)
	src := fmt.Sprintf("%s%s %s (%s, declared at %s)", sourceDeclared, np.Name, np.Version, path, decl.Pos)
	for _, r := range np.Components(src) {
		// Under its own name unless flowlua has that component itself: a
		// declaration reaches it through its namespace, and does not
		// make the built-in one unusable.
		if old, ok := reg.Get(r.Name); !ok || !isBuiltIn(old) {
			if err := addServed(reg, r); err != nil {
				return at("%v", err)
			}
		}
		rest := strings.TrimPrefix(r.Name, "otelcol.")
		r.Name = ns + "." + rest
		if err := reg.Add(r); err != nil {
			return at("%v", err)
		}
	}
	return nil
}

// isBuiltIn reports whether r is a component of flowlua itself, not of
// a plugin, nor a name this build lacks.
func isBuiltIn(r component.Registration) bool {
	return r.Source != "not in this build" && !strings.HasPrefix(r.Source, sourceFound) &&
		!strings.HasPrefix(r.Source, sourceDeclared) && !strings.Contains(r.Source, "; ")
}

// addServed registers r under its own name. A name this build lacks, or
// one a found plugin serves when r is declared, is taken over; the same
// plugin content found twice is kept once; any other name served twice
// becomes an error naming both sources, at each use of it.
func addServed(reg *component.Registry, r component.Registration) error {
	old, ok := reg.Get(r.Name)
	switch {
	case !ok:
		return reg.Add(r)
	case old.Fingerprint != "" && old.Fingerprint == r.Fingerprint:
		return nil
	case old.Source == "not in this build",
		strings.HasPrefix(r.Source, sourceDeclared) && strings.HasPrefix(old.Source, sourceFound):
		reg.Remove(r.Name)
		return reg.Add(r)
	}
	sources := []string{old.Source, r.Source}
	if a, ok := old.Schema.(*ambiguous); ok {
		sources = append(append([]string(nil), a.sources...), r.Source)
	}
	sort.Strings(sources)
	a := &ambiguous{name: r.Name, sources: sources, exports: r.ExportTypes()}
	reg.Remove(r.Name)
	return reg.Add(component.Registration{
		Name:   r.Name,
		Schema: a,
		Doc:    a.err().Error(),
		Source: strings.Join(sources, "; "),
		Build: func(component.Options, component.Arguments) (component.Component, error) {
			return nil, a.err()
		},
	})
}

// ambiguous is the schema of a name served twice: any use is an error.
type ambiguous struct {
	name    string
	sources []string
	exports map[string]reflect.Type
}

func (a *ambiguous) err() error {
	return fmt.Errorf("%s is served twice: by %s; remove one, or declare the plugin you want and use its namespace", a.name, strings.Join(a.sources, " and by "))
}

// DecodeArgs refuses: the name is ambiguous.
func (a *ambiguous) DecodeArgs(any) (any, error) { return nil, a.err() }

// ExportTypes are those of the last source.
func (a *ambiguous) ExportTypes() map[string]reflect.Type { return a.exports }

// Describe documents nothing: which component is meant is not known.
func (a *ambiguous) Describe() (args, exports []decode.Field) { return nil, nil }
