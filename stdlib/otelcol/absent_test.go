//go:build !flowlua_minimal && !flowlua_lean

package otelcol

import (
	"strings"
	"testing"

	flowcomp "github.com/flowlua/flowlua/engine/component"
)

// TestLeftOutNamesAreComponents checks that every name the smaller builds
// register as left out is a component of the default build.
func TestLeftOutNamesAreComponents(t *testing.T) {
	for _, name := range append(append([]string{}, leftOutByLean...), leftOutByMinimal...) {
		r, ok := flowcomp.DefaultRegistry.Get(name)
		if !ok {
			t.Errorf("%s is listed as left out by a smaller build but is no component of the default build", name)
			continue
		}
		if _, absent := r.Schema.(absentSchema); absent {
			t.Errorf("%s is registered as left out in the default build", name)
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
