// Package scriptload is the one way a pipeline script is loaded: it runs
// the script (package luabind), loads the plugins it declares (package
// luabind/plugin) and returns the script in its neutral form with the
// registry to check it against. The commands (run, check, graph) and
// every reload go through Load.
package scriptload

import (
	"maps"
	"slices"

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
	s, err := luabind.Load(path, luabind.LoadOptions{Components: reg.Names(), Services: opts.Services, Prelude: opts.Prelude})
	if s == nil {
		return nil, nil, err
	}
	l, perr := plugin.Load(s, reg, plugin.Options{SearchPaths: opts.PluginPaths})
	s = withFiles(s, l.Files, l.Digests)
	if perr != nil {
		return s, nil, script.Merge(script.AsDiagnostics(err), script.AsDiagnostics(perr))
	}
	return s, l.Registry, err
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
