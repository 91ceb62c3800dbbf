// Package scriptload is the one way a pipeline script is loaded: it runs
// the script (package luabind), loads the plugins it declares (package
// luabind/plugin) and returns the script in its neutral form with the
// registry to check it against. The commands (run, check, graph) and
// every reload go through Load.
package scriptload

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowlua/flowlua/engine/boundedfile"
	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
	"github.com/flowlua/flowlua/luabind"
	"github.com/flowlua/flowlua/luabind/plugin"
)

// Options configure Load.
type Options struct {
	// Registry holds the components the script may declare besides its
	// plugins' (component.DefaultRegistry when nil).
	Registry *component.Registry
	// Services are the names of the services the script may configure.
	Services []string
	// PluginPaths are directories a relative plugin path is looked up in
	// after the script's directory (the --plugins.path flag).
	PluginPaths []string
	// Prelude runs before the script: flowlua's own modules.
	Prelude []luabind.Source
	// Native opens native plugins; nil loads none.
	Native plugin.Native
	// NativeDirs are directories whose native plugins are available
	// without a declaration besides the script's plugins/ and
	// PluginPaths: the plugins/ beside flowlua's executable.
	NativeDirs []string
	// Translate, when set, makes a script of a file that is not one
	// (Translates says which: a collector config); Load runs that script
	// with its positions moved to the file's lines.
	Translate Translator
}

// Translator makes a pipeline script of a file in another language: a
// collector config.
type Translator interface {
	// Translates reports whether the file at path is one it translates.
	Translates(path string) bool
	// Translate returns the script for src, the file at path, knowing the
	// components of reg. What does not translate is returned as
	// script.Diagnostics at the file's lines, with the translation of the
	// rest when there is one (nil when the file could not be read as its
	// language at all).
	Translate(path string, src []byte, reg *component.Registry) (*Translation, error)
}

// Translation is a script made of a file in another language.
type Translation struct {
	Script []byte
	// Lines[i] is where the script's line i+1 comes from (the zero Pos:
	// nowhere, such as a head comment).
	Lines []script.Pos
	// Files are the other files read, with what they held: watched as
	// the file is.
	Files map[string][]byte
}

// Load loads the pipeline script at path and the plugins it declares.
// It returns the script, the registry to check it against (the options'
// registry plus the plugins' components) and every problem found, as
// script.Diagnostics merged, without repeats, sorted by position:
//
//   - a script that could not run returns nil, nil and its problems;
//   - a script that ran despite mistakes is returned with them, so that
//     a check reports every problem in one run;
//   - when a plugin failed to load, the registry is nil and the
//     problems are the script's and the plugins';
//   - the script's Files and Digests include the plugins' files, and
//     those looked for and not found, so that they are watched.
//
// Load modifies nothing it is given.
func Load(path string, opts Options) (*script.Script, *component.Registry, error) {
	reg := opts.Registry
	if reg == nil {
		reg = component.DefaultRegistry
	}
	var found map[string]script.Digest
	if opts.Native != nil {
		dirs := append(append([]string{filepath.Join(filepath.Dir(path), "plugins")}, opts.PluginPaths...), opts.NativeDirs...)
		r, digests, ferr := plugin.FindNative(dirs, reg, opts.Native)
		if ferr != nil {
			return nil, nil, ferr
		}
		reg, found = r, digests
	}
	popts := plugin.Options{SearchPaths: opts.PluginPaths, Native: opts.Native}
	if opts.Translate != nil && opts.Translate.Translates(path) {
		return loadTranslated(path, reg, found, opts)
	}
	s, err := luabind.Load(path, luabind.LoadOptions{Components: reg.Names(), Services: opts.Services, Prelude: opts.Prelude})
	if s == nil {
		return nil, nil, err
	}
	l, perr := plugin.Load(s, reg, popts)
	if perr == nil && l.Registry != reg && servesNewNames(l.Registry, reg, s.Plugins) {
		// A declared native plugin serves names of its own (otelcol.*)
		// that the script may use: run it again knowing them.
		s2, err2 := luabind.Load(path, luabind.LoadOptions{Components: l.Registry.Names(), Services: opts.Services, Prelude: opts.Prelude})
		if s2 == nil {
			return nil, nil, err2
		}
		s, err = s2, err2
		l, perr = plugin.Load(s, reg, popts)
	}
	s = withFiles(s, l.Files, l.Digests)
	s = withFiles(s, slices.Sorted(maps.Keys(found)), found)
	if perr != nil {
		return s, nil, script.Merge(script.AsDiagnostics(err), script.AsDiagnostics(perr))
	}
	return s, l.Registry, err
}

// loadTranslated loads the file at path through opts.Translate: the
// script it makes runs as if it were the file, its positions at the
// file's lines, and the file is what is watched. A translated file
// declares no plugins: the found ones (reg) are all it can use.
func loadTranslated(path string, reg *component.Registry, found map[string]script.Digest, opts Options) (*script.Script, *component.Registry, error) {
	src, err := boundedfile.Read(path, maxTranslatedSize, "the limit of a config")
	if err != nil {
		if pe := (*fs.PathError)(nil); !errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, nil, fmt.Errorf("reading config: %w", err)
	}
	tr, terr := opts.Translate.Translate(path, src, reg)
	if tr == nil {
		return nil, nil, terr
	}
	s, err := luabind.LoadSource(path, tr.Script, luabind.LoadOptions{Components: reg.Names(), Services: opts.Services, Prelude: opts.Prelude})
	toFile := func(line int) script.Pos {
		if line >= 1 && line <= len(tr.Lines) && tr.Lines[line-1].Line > 0 {
			return tr.Lines[line-1]
		}
		return script.Pos{File: path, Line: 1}
	}
	ds := script.AsDiagnostics(err)
	if s == nil {
		(&script.Script{}).MapLines(path, toFile, ds)
		return nil, nil, script.Merge(ds, script.AsDiagnostics(terr))
	}
	s.MapLines(path, toFile, ds)
	// The files are what a watcher compares, not the script made of them.
	out := *s
	out.Digests = maps.Clone(s.Digests)
	if out.Digests == nil {
		out.Digests = map[string]script.Digest{}
	}
	out.Digests[path] = script.DigestOf(src)
	if !slices.Contains(out.Files, path) {
		out.Files = append(slices.Clip(out.Files), path)
	}
	for _, f := range slices.Sorted(maps.Keys(tr.Files)) {
		out.Files = append(out.Files, f)
		out.Digests[f] = script.DigestOf(tr.Files[f])
	}
	s = withFiles(&out, slices.Sorted(maps.Keys(found)), found)
	if all := script.Merge(ds, script.AsDiagnostics(terr)); len(all) > 0 {
		return s, reg, all
	}
	return s, reg, nil
}

// maxTranslatedSize bounds a translated file, as luabind bounds a script.
const maxTranslatedSize = 8 << 20

// servesNewNames reports whether after has names outside before that
// the script's first run could not know: names not directly under a
// declared namespace.
func servesNewNames(after, before *component.Registry, decls []script.Plugin) bool {
	for _, name := range after.Names() {
		if _, ok := before.Get(name); ok {
			continue
		}
		under := false
		for _, d := range decls {
			// The script's first run knows one level below a declared
			// namespace (a Lua plugin's ns.<type>); a native plugin's
			// ns.<class>.<type> needs the run that knows it.
			if rest, ok := strings.CutPrefix(name, d.Namespace+"."); ok && !strings.Contains(rest, ".") {
				under = true
				break
			}
		}
		if !under {
			return true
		}
	}
	return false
}

// withFiles returns s, or a copy of it with files appended to Files and
// digests added to Digests.
func withFiles(s *script.Script, files []string, digests map[string]script.Digest) *script.Script {
	if len(files) == 0 && len(digests) == 0 {
		return s
	}
	out := *s
	out.Files = append(slices.Clip(s.Files), files...)
	out.Digests = maps.Clone(s.Digests)
	if out.Digests == nil {
		out.Digests = map[string]script.Digest{}
	}
	maps.Copy(out.Digests, digests)
	return &out
}
