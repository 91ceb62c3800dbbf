package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

// fakeNative opens any executable as a plugin named "fake" serving names.
type fakeNative struct{ names []string }

func (f fakeNative) Open(string, string, string) (NativePlugin, error) {
	return NativePlugin{Name: "fake", Version: "1.0.0", Components: func(source string) []component.Registration {
		var regs []component.Registration
		for _, n := range f.names {
			regs = append(regs, fakeRegistration(n, source))
		}
		return regs
	}}, nil
}

func fakeRegistration(name, source string) component.Registration {
	return component.Registration{
		Name: name, Source: source, Fingerprint: "fake:" + name, Args: struct{}{},
		Build: func(component.Options, component.Arguments) (component.Component, error) { return nil, nil },
	}
}

// TestNativeNamesAgainstBuiltIn: a found plugin serving a name flowlua
// has built in makes that name an error naming both; a declared one is
// reached through its namespace and leaves the built-in name alone, and
// serves under their own names the components flowlua lacks.
func TestNativeNamesAgainstBuiltIn(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "tools", "fake")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := component.NewRegistry()
	builtIn := fakeRegistration("otelcol.processor.attributes", "")
	builtIn.Fingerprint = ""
	if err := base.Add(builtIn); err != nil {
		t.Fatal(err)
	}
	native := fakeNative{names: []string{"otelcol.processor.attributes", "otelcol.processor.extra"}}

	found, _, err := FindNative([]string{filepath.Dir(exe)}, base, native)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := found.Get("otelcol.processor.attributes")
	if _, ok := r.Schema.(*ambiguous); !ok || !strings.Contains(r.Doc, "served twice: by native and by native plugin fake 1.0.0") {
		t.Errorf("found: otelcol.processor.attributes is %q (%s), want served twice", r.Source, r.Doc)
	}

	s := &script.Script{
		Path:    filepath.Join(dir, "main.lua"),
		Plugins: []script.Plugin{{Namespace: "fk", Pos: script.Pos{File: "main.lua", Line: 1}, Args: map[string]any{"path": "tools/fake"}}},
	}
	l, err := Load(s, base, Options{Native: native})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := l.Registry.Get("otelcol.processor.attributes"); r.Source != "native" {
		t.Errorf("declared: otelcol.processor.attributes is served by %q, want the built-in one", r.Source)
	}
	for _, name := range []string{"fk.processor.attributes", "fk.processor.extra", "otelcol.processor.extra"} {
		if r, ok := l.Registry.Get(name); !ok || !strings.HasPrefix(r.Source, sourceDeclared) {
			t.Errorf("declared: %s is %q, want the declared plugin's", name, r.Source)
		}
	}
}
