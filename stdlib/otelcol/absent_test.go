package otelcol

import (
	"strings"
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
)

// TestInPluginsNamed checks that a component the core leaves to a plugin
// is still a name, and that using it names the plugin.
func TestInPluginsNamed(t *testing.T) {
	for name, p := range inPlugins {
		r, ok := flowcomp.DefaultRegistry.Get(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if _, absent := r.Schema.(absentSchema); !absent {
			t.Errorf("%s is registered as a real component but listed in inPlugins", name)
			continue
		}
		_, err := r.Schema.DecodeArgs(map[string]any{})
		if err == nil || !strings.Contains(err.Error(), "the native plugin "+p+" serves it") {
			t.Errorf("%s: got %v, want an error naming the plugin %s", name, err, p)
		}
	}
}

// TestNotAtReleaseNamed checks that a component whose module is not at the
// pinned release is still a name, and that using it says why.
func TestNotAtReleaseNamed(t *testing.T) {
	for _, name := range notAtRelease {
		r, ok := flowcomp.DefaultRegistry.Get(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if _, absent := r.Schema.(absentSchema); !absent {
			t.Errorf("%s is registered as a real component but listed in notAtRelease", name)
			continue
		}
		_, err := r.Schema.DecodeArgs(map[string]any{})
		if err == nil || !strings.Contains(err.Error(), collectorRelease) {
			t.Errorf("%s: got %v, want an error naming %s", name, err, collectorRelease)
		}
	}
}
