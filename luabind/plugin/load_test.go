package plugin

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flowlua/flowlua/engine/component"
	"github.com/flowlua/flowlua/engine/script"
)

const acme = `
-- plugins/acme/plugin.lua --
return {
  name = "acme",
  version = "1.2.0",
  components = { "tag" },
  grants = { "os.time" },
}
-- plugins/acme/tag.lua --
local util = require "lib.util"
return { signals = { "traces" }, on_traces = function(b) return util.id(b) end }
-- plugins/acme/lib/util.lua --
return { id = function(x) return x end }
-- plugins/acme-2/plugin.lua --
return { name = "acme", version = "2.0.0", components = { "tag", "count" } }
-- plugins/acme-2/tag.lua --
return { signals = { "traces" }, on_traces = function(b) return b end }
-- plugins/acme-2/count.lua --
return { exports = { n = "integer" } }
`

func TestLoadDeclarations(t *testing.T) {
	dir := t.TempDir()
	writeTxtar(t, dir, acme)
	s := &script.Script{
		Path: filepath.Join(dir, "main.lua"),
		Plugins: []script.Plugin{
			{Namespace: "acme", Pos: script.Pos{File: "main.lua", Line: 1}, Args: map[string]any{"path": "plugins/acme", "version": "1.2.0", "grants": []any{"os.time"}}},
			{Namespace: "acme_v2", Pos: script.Pos{File: "main.lua", Line: 2}, Args: map[string]any{"path": "acme-2"}},
		},
	}
	base := component.NewRegistry()
	before := *s
	l, err := Load(s, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reg := l.Registry
	if got := strings.Join(reg.Names(), ","); got != "acme.tag,acme_v2.count,acme_v2.tag" {
		t.Errorf("components %s", got)
	}
	if len(base.Names()) != 0 {
		t.Error("Load changed the base registry")
	}
	r1, _ := reg.Get("acme.tag")
	r2, _ := reg.Get("acme_v2.tag")
	if r1.Source != "plugin acme 1.2.0" || r2.Source != "plugin acme 2.0.0" {
		t.Errorf("sources %q, %q", r1.Source, r2.Source)
	}
	if r1.Fingerprint == "" || r1.Fingerprint == r2.Fingerprint {
		t.Errorf("fingerprints %q, %q", r1.Fingerprint, r2.Fingerprint)
	}
	want := []string{
		filepath.Join(dir, "plugins/acme/lib/util.lua"), filepath.Join(dir, "plugins/acme/plugin.lua"), filepath.Join(dir, "plugins/acme/tag.lua"),
		filepath.Join(dir, "plugins/acme-2/count.lua"), filepath.Join(dir, "plugins/acme-2/plugin.lua"), filepath.Join(dir, "plugins/acme-2/tag.lua"),
	}
	if !slices.Equal(l.Files, want) {
		t.Errorf("files\n%v\nwant\n%v", l.Files, want)
	}
	for _, f := range want {
		if _, ok := l.Digests[f]; !ok {
			t.Errorf("no digest of %s", f)
		}
	}
	if s.Files != nil || s.Digests != nil || !reflect.DeepEqual(*s, before) {
		t.Error("Load changed the script")
	}

	// Editing a file changes the fingerprint of the plugin's components.
	if err := os.WriteFile(filepath.Join(dir, "plugins/acme/lib/util.lua"), []byte("return { id = function(x) return nil end }"), 0o644); err != nil {
		t.Fatal(err)
	}
	l2, err := Load(s, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r3, _ := l2.Registry.Get("acme.tag")
	r4, _ := l2.Registry.Get("acme_v2.tag")
	if r3.Fingerprint == r1.Fingerprint || r4.Fingerprint != r2.Fingerprint {
		t.Error("only the edited plugin's fingerprint should change")
	}
}

func TestLoadSearchPaths(t *testing.T) {
	dir := t.TempDir()
	writeTxtar(t, dir, acme)
	extra := t.TempDir()
	writeTxtar(t, extra, strings.ReplaceAll(acme, "plugins/acme-2/", "other/"))
	s := &script.Script{
		Path: filepath.Join(dir, "main.lua"),
		Plugins: []script.Plugin{
			{Namespace: "a", Pos: script.Pos{File: "main.lua", Line: 1}, Args: map[string]any{"path": "acme", "grants": []any{"os.time"}}},
			{Namespace: "b", Pos: script.Pos{File: "main.lua", Line: 2}, Args: map[string]any{"path": "other"}},
		},
	}
	l, err := Load(s, component.NewRegistry(), Options{SearchPaths: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.Registry.Names(), ","); got != "a.tag,b.count,b.tag" {
		t.Errorf("components %s", got)
	}
}

func TestLoadErrors(t *testing.T) {
	base := component.NewRegistry()
	if err := base.Add(component.Registration{Name: "file.read", Args: struct{}{}, Build: func(component.Options, component.Arguments) (component.Component, error) { return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		files string
		ns    string
		args  map[string]any
		want  string
		// absent are the files the load looked for and did not find,
		// which a watcher waits for.
		absent []string
	}{
		{"missing directory", acme, "acme", map[string]any{"path": "plugins/acne"},
			`main.lua:3: plugin "acme": plugin directory "plugins/acne" not found (looked in `,
			[]string{filepath.Join("plugins", "acne", "plugin.lua"), filepath.Join("plugins", "plugins", "acne", "plugin.lua")}},
		{"version mismatch", acme, "acme", map[string]any{"path": "plugins/acme", "version": "1.3.0", "grants": []any{"os.time"}},
			`main.lua:3: plugin "acme": version "1.3.0" declared, but ` + filepath.Join("plugins", "acme", "plugin.lua") + ` is version "1.2.0"`, nil},
		{"missing grant", acme, "acme", map[string]any{"path": "plugins/acme"},
			`main.lua:3: plugin "acme": the plugin needs grants = { "os.time" }: add them to the declaration to allow it`, nil},
		{"unknown grant", acme, "acme", map[string]any{"path": "plugins/acme", "grants": []any{"os.tim"}},
			`main.lua:3: plugin "acme": grants: unknown grant "os.tim" (did you mean "os.time"?)`, nil},
		{"bad declaration", acme, "acme", map[string]any{"pth": "plugins/acme"},
			`main.lua:3: plugin "acme": unknown field "pth" (did you mean "path"?)`, nil},
		{"namespace clash", acme, "file", map[string]any{"path": "plugins/acme"},
			`main.lua:3: plugin "file": the namespace clashes with the component file.read: choose another one`, nil},
		{"not a plugin", "-- plugins/x/readme.lua --\n", "x", map[string]any{},
			`main.lua:3: plugin "x": ` + filepath.Join("plugins", "x") + ` is not a plugin directory: it has no plugin.lua`,
			[]string{filepath.Join("plugins", "x", "plugin.lua")}},
		{"manifest syntax error", "-- plugins/x/plugin.lua --\nreturn {\n  name = \"x\"\n  version = \"1\",\n}\n", "x", map[string]any{},
			filepath.Join("plugins", "x", "plugin.lua") + `:3: syntax error near 'version'`, nil},
		{"manifest field", "-- plugins/x/plugin.lua --\nreturn {\n  name = \"x\",\n  version = 1,\n  components = {},\n}\n", "x", map[string]any{},
			filepath.Join("plugins", "x", "plugin.lua") + `:3: version: expected string, got number`, nil},
		{"manifest sandbox", "-- plugins/x/plugin.lua --\nreturn { name = os.getenv(\"X\") }\n", "x", map[string]any{},
			filepath.Join("plugins", "x", "plugin.lua") + `:1: attempt to index a non-table object(nil) with key 'getenv'`, nil},
		{"missing component file", "-- plugins/x/plugin.lua --\nreturn { name = \"x\", version = \"1\", components = { \"c\" } }\n", "x", map[string]any{},
			filepath.Join("plugins", "x", "plugin.lua") + `:1: components[1]: no file ` + filepath.Join("plugins", "x", "c.lua") + ` for component "c"`,
			[]string{filepath.Join("plugins", "x", "c.lua")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTxtar(t, dir, tt.files)
			// Positions are relative to the script's directory, as when
			// flowlua runs there.
			t.Chdir(dir)
			s := &script.Script{Path: "main.lua", Plugins: []script.Plugin{{Namespace: tt.ns, Pos: script.Pos{File: "main.lua", Line: 3}, Args: tt.args}}}
			l, err := Load(s, base, Options{})
			if l.Registry != nil {
				t.Error("a failed load returned a registry")
			}
			if got := diagnostics(err); !strings.Contains(got, tt.want) {
				t.Fatalf("got %q\nwant it to contain %q", got, tt.want)
			}
			var absent []string
			for f, d := range l.Digests {
				if d == script.Absent {
					absent = append(absent, f)
				}
			}
			slices.Sort(absent)
			if !slices.Equal(absent, tt.absent) {
				t.Errorf("absent files %q, want %q", absent, tt.absent)
			}
		})
	}
}

func TestScan(t *testing.T) {
	dir := t.TempDir()
	writeTxtar(t, dir, acme)
	regs, err := Scan([]string{filepath.Join(dir, "plugins"), filepath.Join(dir, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range regs {
		names = append(names, r.Name+" "+r.Source)
	}
	if got := strings.Join(names, ","); got != "acme.tag plugin acme 1.2.0" {
		t.Errorf("scanned %s", got)
	}
}
